// The metrics as operators meet them: each one listed in docs/operations.md with its help text, and every
// metric a panel of the Grafana dashboard queries is one the services export.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createProjectorMetrics } from './projector-metrics.js';
import { createQueryMetrics } from './query-metrics.js';

const root = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** Our own metrics (not the process and Node.js defaults), with their types and help texts. */
async function exported() {
  const all = [...(await createQueryMetrics().registry.getMetricsAsJSON()), ...(await createProjectorMetrics().registry.getMetricsAsJSON())];
  const defaults = /_(process|nodejs)_/;
  return {
    own: all.filter((m) => !defaults.test(m.name)),
    names: new Map(all.map((m) => [m.name, String(m.type)])),
  };
}

describe('metrics documentation', () => {
  it('lists every metric in docs/operations.md with its type and help text', async () => {
    const operations = read('docs/operations.md');
    const { own } = await exported();
    expect(own.length).toBeGreaterThanOrEqual(14);
    for (const metric of own) expect(operations).toContain(`| \`${metric.name}\` | ${String(metric.type)} | ${metric.help} |`);
  });

  it('has the dashboard query only metrics the services export', async () => {
    const dashboard = JSON.parse(read('ops/grafana/dashboards/ossn.json')) as { panels: { title: string; targets: { expr: string }[] }[] };
    const { names } = await exported();
    const queried = new Set<string>();
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const { expr } of panel.targets) {
        const used = expr.match(/\bossn_[a-z0-9_]+/g) ?? [];
        expect(used.length, `${panel.title}: ${expr}`).toBeGreaterThan(0);
        for (const name of used) {
          const base = name.replace(/_(bucket|sum|count)$/, '');
          // A _bucket, _sum or _count series belongs to a histogram of that name.
          const known = names.get(name) !== undefined || (base !== name && names.get(base) === 'histogram');
          expect(known, `${panel.title} queries ${name}, which no service exports`).toBe(true);
          queried.add(base);
        }
      }
    }
    // And the dashboard shows every metric of ours.
    const { own } = await exported();
    expect([...own.map((m) => m.name)].filter((n) => !queried.has(n))).toEqual([]);
  });

  it('is scraped from both services\' operators\' ports by the Prometheus configuration in docker-compose', () => {
    const prometheus = read('ops/prometheus/prometheus.yml');
    expect(prometheus).toContain('targets: ["query:9465"]');
    expect(prometheus).toContain('targets: ["projector:9464"]');
    const compose = read('docker-compose.yml');
    expect(compose).toContain('OPS_PORT: 9465');
    expect(compose).toContain('OSSN_METRICS_PORT: 9464');
    // The operators' port is not published to partners: the query service publishes its partner port only.
    const queryService = /\n {2}query:\n([\s\S]*?)(?=\n {2}[\w-]+:\n|$)/.exec(compose)?.[1] ?? '';
    const published = /\n {4}ports:\n((?: {6}- .*\n?)*)/.exec(queryService)?.[1] ?? '';
    expect(published.trim().split('\n').map((line) => line.trim())).toEqual(['- "8080:8080"']);
    for (const mounted of ['./ops/prometheus/prometheus.yml', './ops/grafana/provisioning', './ops/grafana/dashboards']) expect(compose).toContain(mounted);
    expect(read('ops/grafana/provisioning/dashboards/ossn.yml')).toContain('path: /var/lib/grafana/dashboards');
    expect(read('ops/grafana/provisioning/datasources/prometheus.yml')).toContain('uid: prometheus');
  });
});
