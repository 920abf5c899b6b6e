// The metrics as operators meet them: each one listed in docs/operations.md with its help text, each
// with its service's prefix (the dashboard and alert rules: test/ops/monitoring.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createProjectorMetrics } from './projector-metrics.js';
import { createPusherMetrics } from './pusher-metrics.js';
import { createQueryMetrics } from './query-metrics.js';

const root = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** Our own metrics (not the process and Node.js defaults), with their types and help texts. */
async function exported() {
  const all = [
    ...(await createQueryMetrics().registry.getMetricsAsJSON()),
    ...(await createProjectorMetrics().registry.getMetricsAsJSON()),
    ...(await createPusherMetrics().registry.getMetricsAsJSON()),
  ];
  // prom-client's defaults, unprefixed as stock Node.js dashboards read them.
  const defaults = /^(process|nodejs)_/;
  return { own: all.filter((m) => !defaults.test(m.name)) };
}

describe('metrics documentation', () => {
  it('lists every metric in docs/operations.md with its type and help text', async () => {
    const operations = read('docs/operations.md');
    const { own } = await exported();
    expect(own.length).toBeGreaterThanOrEqual(14);
    for (const metric of own) expect(operations).toContain(`| \`${metric.name}\` | ${String(metric.type)} | ${metric.help} |`);
  });

  it('gives each metric of ours its service\'s prefix (query, projector, pusher), but ossn_build_info, one name in every service', async () => {
    const { own } = await exported();
    const projector = (await createProjectorMetrics().registry.getMetricsAsJSON()).map((m) => m.name);
    const pusher = (await createPusherMetrics().registry.getMetricsAsJSON()).map((m) => m.name);
    for (const { name } of own) {
      if (name === 'ossn_build_info') continue;
      expect(name).toMatch(projector.includes(name) ? /^ossn_projector_/ : pusher.includes(name) ? /^ossn_pusher_/ : /^ossn_query_/);
    }
    expect(own.filter((m) => m.name === 'ossn_build_info')).toHaveLength(3);
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
