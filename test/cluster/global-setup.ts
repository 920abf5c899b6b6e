import type { TestProject } from 'vitest/node';
import { clusterMemory, ensureClusterStackStarted, stopClusterStack } from '../../scripts/stack/cluster.js';

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
/** The cluster's members, all of which a run started when it found none running. */
const memberCount = 7;

/**
 * Vitest globalSetup of the cluster project: brings up the local cluster (or finds it running)
 * and provides its addresses to every test file (see support/cluster-servers.ts). At the end it
 * prints each member's memory, then stops the cluster if this run started all of it; a cluster
 * found running (members this run brought back from dead included) is left running.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const since = Date.now();
  const { env, started } = await ensureClusterStackStarted();
  project.provide('cluster', env);
  const startedAll = started.length === memberCount;
  const took = `${((Date.now() - since) / 1000).toFixed(1)} s`;
  const how = startedAll ? `started in ${took}` : started.length > 0 ? `found running; restarted ${started.join(', ')}, found dead, in ${took}` : 'found running';
  process.stderr.write(`cluster tests use the local cluster (${how}: Kafka ${env.KAFKA_BROKERS}, MongoDB ${env.MONGODB_URI}, Redis ${env.REDIS_URL}; npm run stack:down -- --cluster stops it)\n`);
  return async () => {
    const memory = await clusterMemory();
    const total = memory.reduce((sum, member) => sum + member.rssBytes, 0);
    process.stderr.write(`cluster memory at the end (RSS): ${memory.map((member) => `${member.name} ${mib(member.rssBytes)}`).join(', ')}; ${mib(total)} in all\n`);
    if (startedAll) await stopClusterStack();
  };
}
