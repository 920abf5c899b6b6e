import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Gauge, type Registry } from 'prom-client';

const root = new URL('../../../', import.meta.url);

export interface BuildInfo {
  version: string;
  node_version: string;
  commit: string;
}

let known: BuildInfo | undefined;

/**
 * What this process runs: the package's version, Node's, and the git commit when the code runs from
 * a clone (an image has no .git: `unknown`). Read once per process.
 */
export function buildInfo(): BuildInfo {
  if (known) return known;
  const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string };
  let commit = 'unknown';
  try {
    // Bounded, and silent when git or the clone is missing.
    commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, timeout: 2_000, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' }).trim() || 'unknown';
  } catch {
    // not a clone
  }
  known = { version, node_version: process.version, commit };
  return known;
}

/**
 * `ossn_build_info` (always 1), one name in every service as Prometheus' own `prometheus_build_info`
 * is, so one query lists what each scraped job runs.
 */
export function registerBuildInfo(registry: Registry): void {
  const info = buildInfo();
  new Gauge({
    name: 'ossn_build_info',
    help: 'Always 1; its labels say what this process runs: ossn version, Node.js version and git commit (unknown outside a clone).',
    labelNames: ['version', 'node_version', 'commit'] as const,
    registers: [registry],
  }).set(info, 1);
}
