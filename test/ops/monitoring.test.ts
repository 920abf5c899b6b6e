// The monitoring shipped in ops/, as Prometheus and Grafana read it: the alert rules parsed by
// Prometheus' own rule loader (scripts/rules-check, the code `promtool check rules` runs), the
// dashboard's queries by its PromQL parser, and every metric either reads is one the services
// export. The dashboard can be narrowed to a job and an instance (the cluster runs two of each).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectorMetrics } from '../../services/plumbing/metrics/projector-metrics.js';
import { createQueryMetrics } from '../../services/plumbing/metrics/query-metrics.js';
import { goRun, repo } from '../support/go-run.js';

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  metrics: string[];
}
interface Checked {
  prometheus: string;
  files: { file: string; groups: { name: string; rules: Rule[] }[] }[];
  expressions: { expr: string; metrics: string[] }[];
}
interface Dashboard {
  templating: { list: { name: string; query: { query: string } }[] };
  panels: { title: string; targets: { expr: string }[] }[];
}

const alertRules = join(repo, 'ops/prometheus/alerts.yml');
const dashboard = JSON.parse(readFileSync(join(repo, 'ops/grafana/dashboards/ossn.json'), 'utf8')) as Dashboard;
const queries = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));

let checked: Checked;
const scratch = mkdtempSync(join(tmpdir(), 'ossn-rules-'));
beforeAll(async () => {
  const { stdout } = await goRun('rules-check', [alertRules], JSON.stringify(queries));
  checked = JSON.parse(stdout) as Checked;
}, 600_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every metric name the services export (both registries), with its type; `up` is Prometheus' own for every target. */
async function exported(): Promise<Map<string, string>> {
  const all = [...(await createQueryMetrics().registry.getMetricsAsJSON()), ...(await createProjectorMetrics().registry.getMetricsAsJSON())];
  return new Map([...all.map((m) => [m.name, String(m.type)] as const), ['up', 'gauge']]);
}

/** A name as read in PromQL: a metric, or a histogram's _bucket, _sum or _count series. */
function isExported(name: string, names: Map<string, string>): boolean {
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return names.has(name) || (base !== name && names.get(base) === 'histogram');
}

const rules = () => checked.files.flatMap((f) => f.groups.flatMap((g) => g.rules));

describe('alert rules (ops/prometheus/alerts.yml)', () => {
  it('load as Prometheus loads them, and alert on targets down, consumer lag, parked dead letters, error rate and local rate counting', () => {
    expect(checked.prometheus).toMatch(/^v0\.\d+\.\d+/); // the Prometheus module's version (v0.305.0 is Prometheus 3.5.0)
    expect(rules().map((r) => r.alert).sort()).toEqual(['OssnConsumerLagHigh', 'OssnDeadLettersParked', 'OssnQueryErrorRate', 'OssnRateLimitCountedLocally', 'OssnTargetDown']);
    for (const rule of rules()) expect(['warning', 'critical'], rule.alert).toContain(rule.labels['severity']);
    const byName = new Map(rules().map((r) => [r.alert, r]));
    expect(byName.get('OssnConsumerLagHigh')?.metrics).toEqual(['ossn_projector_consumer_lag_messages']);
    expect(byName.get('OssnDeadLettersParked')?.metrics).toEqual(['ossn_projector_dead_letters_total']);
    expect(byName.get('OssnQueryErrorRate')?.metrics).toEqual(['ossn_query_requests_total']);
    expect(byName.get('OssnRateLimitCountedLocally')?.metrics).toEqual(['ossn_query_rate_limit_local']);
  });

  it('read only metrics the services export', async () => {
    const names = await exported();
    for (const rule of rules()) for (const metric of rule.metrics) expect(isExported(metric, names), `${rule.alert} reads ${metric}, which no service exports`).toBe(true);
  });

  it('are refused when Prometheus would refuse them: bad PromQL, an unknown field, a broken template', async () => {
    const cases = {
      promql: 'groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: sum by (job (up)\n',
      field: 'groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: up == 0\n        severity: critical\n',
      template: 'groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: up == 0\n        annotations:\n          summary: "{{ $labels.job "\n',
    };
    for (const [name, text] of Object.entries(cases)) {
      const file = join(scratch, `${name}.yml`);
      writeFileSync(file, text);
      await expect(goRun('rules-check', [file]), name).rejects.toThrow(file);
    }
  }, 600_000);
});

describe('Grafana dashboard (ops/grafana/dashboards/ossn.json)', () => {
  it('has job and instance variables, and every query narrowed by both', () => {
    expect(dashboard.templating.list.map((v) => [v.name, v.query.query])).toEqual([
      ['job', 'label_values(ossn_build_info, job)'],
      ['instance', 'label_values(ossn_build_info{job=~"$job"}, instance)'],
    ]);
    // As many selectors narrowed as metrics read (each query parsed by Prometheus' parser).
    checked.expressions.forEach(({ expr, metrics }) => {
      const narrowed = expr.match(/\{job=~"\$job", instance=~"\$instance"[^}]*\}/g) ?? [];
      expect(narrowed.length, expr).toBeGreaterThanOrEqual(metrics.length);
    });
  });

  it('shows whether each target is up, and what each process runs', () => {
    const titlesReading = (metric: string) => dashboard.panels.filter((p) => p.targets.some((t) => new RegExp(`\\b${metric}\\{`).test(t.expr))).map((p) => p.title);
    expect(titlesReading('up')).toEqual(['Targets up (1) or down (0)']);
    expect(titlesReading('ossn_build_info')).toHaveLength(1);
    expect(titlesReading('process_resident_memory_bytes')).toHaveLength(1);
  });

  it('queries only metrics the services export, and shows every metric of ours', async () => {
    const names = await exported();
    expect(checked.expressions).toHaveLength(queries.length);
    const read = new Set<string>();
    for (const { expr, metrics } of checked.expressions) {
      expect(metrics.length, expr).toBeGreaterThan(0);
      for (const metric of metrics) {
        expect(isExported(metric, names), `the dashboard queries ${metric}, which no service exports`).toBe(true);
        read.add(metric.replace(/_(bucket|sum|count)$/, ''));
      }
    }
    expect([...names.keys()].filter((name) => name.startsWith('ossn_') && !read.has(name))).toEqual([]);
  });
});
