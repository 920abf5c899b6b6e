import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { clusterMemory, ensureClusterStackStarted, stopClusterStack } from '../../scripts/stack/cluster.js';
import { readClusterConfig, shown } from '../../scripts/stack/config.js';
import { acquireLock } from '../../scripts/stack/lock.js';

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
/** The cluster's members, all of which a run started when it found none running. */
const memberCount = 7;
/** A whole cluster run (the failover suite) takes minutes; a run waiting longer than this is told why. */
const runLockTimeoutMs = 30 * 60_000;
const say = (line: string) => process.stderr.write(`cluster tests: ${line}\n`);

/**
 * Vitest globalSetup of the cluster project: brings up the local cluster (or finds it running)
 * and provides its addresses to every test file (see support/cluster-servers.ts). At the end it
 * prints each member's memory, then stops the cluster if this run started all of it; a cluster
 * found running (members this run brought back from dead included) is left running. From setup
 * to teardown it holds the cluster's run lock: the files kill members, and two runs killing
 * members of one cluster at once would fail each other.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const config = readClusterConfig();
  mkdirSync(config.stackDir, { recursive: true });
  const runLock = resolve(config.stackDir, 'test-run.lock');
  const releaseRun = await acquireLock(runLock, { log: say, holder: 'another cluster test run', timeoutMs: runLockTimeoutMs });
  const since = Date.now();
  let started: string[];
  try {
    const ensured = await ensureClusterStackStarted();
    started = ensured.started;
    project.provide('cluster', ensured.env);
    const { env } = ensured;
    const took = `${((Date.now() - since) / 1000).toFixed(1)} s`;
    const how = started.length === memberCount ? `started in ${took}` : started.length > 0 ? `found running; restarted ${started.join(', ')}, found dead, in ${took}` : 'found running';
    say(`the local cluster (${how}: Kafka ${env.KAFKA_BROKERS}, MongoDB ${env.MONGODB_URI}, Redis ${env.REDIS_URL}; npm run stack:down -- --cluster stops it); this run holds ${shown(runLock)}`);
  } catch (error) {
    await releaseRun();
    throw error;
  }
  return async () => {
    try {
      const memory = await clusterMemory();
      const total = memory.reduce((sum, member) => sum + member.rssBytes, 0);
      say(`memory at the end (RSS): ${memory.map((member) => `${member.name} ${mib(member.rssBytes)}`).join(', ')}; ${mib(total)} in all`);
      if (started.length === memberCount) await stopClusterStack();
    } finally {
      await releaseRun();
    }
  };
}
