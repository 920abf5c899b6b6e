import { readClusterConfig, readStackConfig, shown } from './config.js';
import { clusterStatus, ensureClusterStack, stopClusterStack, type ClusterMemberStatus } from './cluster.js';
import { StackError } from './stack-error.js';
import { ensureStack, stackStatus, stopStack, type ServerStatus, type StackEnv, type StackOptions } from './stack.js';

const usage = `usage: tsx scripts/stack/cli.ts up|down|status [--cluster]

  up      start Kafka, MongoDB (a one-member replica set) and Redis on loopback (or find them running); writes .stack/env
  down    stop them
  status  say which of them run and answer (exit code 1 unless all answer)

  --cluster  the cluster instead: a 3-member replica set (rs-cluster), 3 Kafka nodes (brokers and
             controllers) and Redis, in .stack/cluster/ (addresses in .stack/cluster/env)

Ports: OSSN_STACK_KAFKA_PORT (19092), OSSN_STACK_KAFKA_CONTROLLER_PORT (19093),
OSSN_STACK_MONGODB_PORT (27018), OSSN_STACK_REDIS_PORT (16379); the cluster's from
OSSN_STACK_CLUSTER_PORT_BASE (20000): mongodb-N on base+10+N, kafka-N on base+20+N (its
controller on base+30+N), redis on base+40.
Directories: OSSN_STACK_DIR (.stack), OSSN_STACK_CACHE_DIR (.cache).`;

interface Target {
  ensure(options: StackOptions): Promise<StackEnv>;
  stop(): Promise<void>;
  /** Each server's status; a cluster member's with its role and memory. */
  status(): Promise<(ServerStatus | ClusterMemberStatus)[]>;
  envFile(): string;
}

const single: Target = { ensure: ensureStack, stop: () => stopStack(), status: () => stackStatus(), envFile: () => readStackConfig().envFile };
const cluster: Target = { ensure: ensureClusterStack, stop: () => stopClusterStack(), status: () => clusterStatus(), envFile: () => readClusterConfig().envFile };

async function up(target: Target): Promise<void> {
  // Ctrl-C while starting stops what was started, instead of leaving half a stack behind.
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const since = Date.now();
  try {
    const env = await target.ensure({ signal: interrupt.signal });
    process.stderr.write(`stack: up in ${((Date.now() - since) / 1000).toFixed(1)} s; addresses in ${shown(target.envFile())}:\n`);
    for (const [key, value] of Object.entries(env)) process.stdout.write(`${key}=${value}\n`);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function status(target: Target): Promise<void> {
  const servers = await target.status();
  const addressWidth = Math.max(...servers.map((server) => server.address.length));
  for (const server of servers) {
    const process_ = server.pid ? `pid ${server.pid}` : 'not started by the stack';
    const columns = [server.name.padEnd(9), server.address.padEnd(addressWidth), process_.padEnd(24), (server.answers ? 'answers' : 'does not answer').padEnd(15)];
    if ('rssBytes' in server) columns.push((server.role ?? '').padEnd(9), `${(server.rssBytes / 2 ** 20).toFixed(0)} MiB`.padStart(8));
    process.stdout.write(`${columns.join(' ').trimEnd()}\n`);
  }
  if (!servers.every((server) => server.answers)) process.exitCode = 1;
}

const commands: Record<string, (target: Target) => Promise<void>> = { up, down: (target) => target.stop(), status };

const [name, ...flags] = process.argv.slice(2);
const command = commands[name ?? ''];
if (!command || flags.some((flag) => flag !== '--cluster') || flags.length > 1) {
  process.stderr.write(`${usage}\n`);
  process.exitCode = 2;
} else {
  try {
    await command(flags.includes('--cluster') ? cluster : single);
  } catch (error) {
    const message = error instanceof StackError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`${message.split('\n').map((line) => `stack: ${line}`).join('\n')}\n`);
    process.exitCode = 1;
  }
}
