// The cluster: a 3-member MongoDB replica set, 3 Kafka nodes (each broker and controller, one
// KRaft quorum) and one Redis on loopback, in `<stackDir>/cluster`, beside the single stack and
// managed by the same machinery (stack.ts), so ossn can be tried, and its failover tested,
// against the shape of a production cluster.
import { resolve } from 'node:path';
import { clusterSize, readClusterConfig, shown, type ClusterConfig } from './config.js';
import { kafkaAnswers, kafkaServer, type KafkaNode } from './kafka.js';
import { mongodbServer, settleReplicaSet, type MongodMember } from './mongodb.js';
import { killGroup, isRunning, signalGroup } from './process.js';
import { redisServer } from './redis.js';
import type { Server } from './server.js';
import { ensureOneServer, ensureServers, serversMemory, serversStatus, stopServers, withStackLock, type ServerStatus, type StackEnv, type StackOptions, type Topology } from './stack.js';
import { StackError } from './stack-error.js';
import { readState } from './state.js';
import { waitFor } from './wait.js';

export type ClusterMemberName = 'mongodb-1' | 'mongodb-2' | 'mongodb-3' | 'kafka-1' | 'kafka-2' | 'kafka-3' | 'redis';

const clusterReplicaSetName = 'rs-cluster';
const portVariable = 'OSSN_STACK_CLUSTER_PORT_BASE';
const memberNumbers = Array.from({ length: clusterSize }, (_, i) => i + 1);

export function clusterMongodMembers(config: ClusterConfig): MongodMember[] {
  const hosts = config.ports.mongodb.map((port) => `127.0.0.1:${port}`);
  return memberNumbers.map((n) => ({
    name: `mongodb-${n}`,
    port: config.ports.mongodb[n - 1] as number,
    portVariable,
    dataDir: resolve(config.stackDir, `mongodb-${n}/data`),
    replicaSet: { name: clusterReplicaSetName, hosts },
    // Three members and three JVMs share the machine with the suite's services and load.
    cacheSizeGb: 0.25,
    oplogSizeMb: 512,
  }));
}

export function clusterKafkaNodes(config: ClusterConfig): KafkaNode[] {
  const voters = memberNumbers.map((n) => ({ nodeId: n, controllerPort: config.ports.kafkaController[n - 1] as number }));
  return memberNumbers.map((n) => ({
    name: `kafka-${n}`,
    nodeId: n,
    port: config.ports.kafka[n - 1] as number,
    controllerPort: config.ports.kafkaController[n - 1] as number,
    portVariables: [portVariable, portVariable],
    voters,
    home: resolve(config.stackDir, `kafka-${n}`),
    // Formatted with one id, or the nodes would not form one cluster.
    clusterIdFile: resolve(config.stackDir, 'kafka-cluster-id'),
    replicationFactor: clusterSize,
    heap: { initial: '128m', max: '512m' },
  }));
}

/** The addresses a user configures for a real cluster: every member, and the replica set's name. */
export function clusterEnv(config: ClusterConfig): StackEnv {
  return {
    KAFKA_BROKERS: config.ports.kafka.map((port) => `127.0.0.1:${port}`).join(','),
    MONGODB_URI: `mongodb://${config.ports.mongodb.map((port) => `127.0.0.1:${port}`).join(',')}/?replicaSet=${clusterReplicaSetName}`,
    REDIS_URL: `redis://127.0.0.1:${config.ports.redis}`,
  };
}

const settleTimeoutMs = 90_000;

function clusterTopology(config: ClusterConfig): Topology {
  const mongods = clusterMongodMembers(config);
  const env = clusterEnv(config);
  const servers: Server[] = [
    ...mongods.map((member) => mongodbServer(config, member)),
    ...clusterKafkaNodes(config).map((node) => kafkaServer(config, node)),
    redisServer({ name: 'redis', port: config.ports.redis, portVariable, dir: resolve(config.stackDir, 'redis') }),
  ];
  return {
    paths: config,
    servers,
    env,
    async settle(ctx) {
      const brokers = env.KAFKA_BROKERS.split(',');
      await Promise.all([
        settleReplicaSet(ctx, (mongods[0] as MongodMember).replicaSet, settleTimeoutMs),
        waitFor(() => kafkaAnswers(brokers, memberNumbers), {
          timeoutMs: settleTimeoutMs,
          intervalMs: 500,
          signal: ctx.signal,
          timeoutMessage: `kafka: not all of nodes ${memberNumbers.join(', ')} are registered in the cluster's metadata after ${settleTimeoutMs / 1000} s; see ${shown(config.logsDir)}/kafka-*.log`,
        }),
      ]);
    },
  };
}

/**
 * Starts the cluster's seven members (in parallel), or finds them running, initiates the replica
 * set once and waits until it has a primary and two secondaries and all three brokers are
 * registered; writes `<stackDir>/cluster/env`.
 */
export async function ensureClusterStack(options: StackOptions = {}): Promise<StackEnv> {
  return (await ensureClusterStackStarted(options)).env;
}

/** ensureClusterStack, telling also which members this call started (the others were running already). */
export async function ensureClusterStackStarted(options: StackOptions = {}): Promise<{ env: StackEnv; started: ClusterMemberName[] }> {
  const { env, started } = await ensureServers(clusterTopology(readClusterConfig(options.env)), options);
  return { env, started: started as ClusterMemberName[] };
}

/** Stops every member the cluster started, or only those named. */
export async function stopClusterStack(options: StackOptions & { only?: ClusterMemberName[] } = {}): Promise<void> {
  await stopServers(clusterTopology(readClusterConfig(options.env)), options);
}

/** A member's status: also its role (PRIMARY or SECONDARY for a mongod) and its memory. */
export interface ClusterMemberStatus extends ServerStatus {
  role?: string;
  /** Resident memory of its process group (0 when it does not run). */
  rssBytes: number;
}

/** Each member: its recorded process, whether it answers, its role and its memory; read under the cluster's lock, so never halfway through a kill or a restart. */
export async function clusterStatus(options: Pick<StackOptions, 'env' | 'log' | 'signal'> = {}): Promise<ClusterMemberStatus[]> {
  const config = readClusterConfig(options.env);
  const topology = clusterTopology(config);
  return withStackLock(config, options, async () => {
    const [statuses, roles] = await Promise.all([serversStatus(topology), Promise.all(topology.servers.map((server) => server.role?.()))]);
    const memory = serversMemory(topology);
    return statuses.map((status, i) => ({ ...status, role: roles[i], rssBytes: memory[i]?.rssBytes ?? 0 }));
  });
}

function recordOf(config: ClusterConfig, name: ClusterMemberName) {
  const record = readState(config.stateFile)[name];
  if (!record) throw new StackError(`${name} was not started by the cluster stack (nothing recorded in ${shown(config.stateFile)}); run stack:up -- --cluster`);
  return record;
}

/** SIGKILLs the member's process group, as a crash would, and resolves once none of it runs. */
export async function killClusterMember(name: ClusterMemberName, options: StackOptions = {}): Promise<void> {
  const config = readClusterConfig(options.env);
  // Under the cluster's lock: never while a start or restart of it records its processes.
  await withStackLock(config, options, async () => {
    const record = recordOf(config, name);
    if (!isRunning(record)) return;
    const left = await killGroup(record.pid);
    if (left.length > 0) throw new StackError(`${name}: pids ${left.join(', ')} still run 10 s after SIGKILL`);
  });
}

/**
 * SIGSTOPs the member's process group, as a machine that hangs: its connections stay open and
 * nothing answers. A frozen member counts as running (restartClusterMember leaves it as it is):
 * end it with killClusterMember, then restart it.
 */
export async function freezeClusterMember(name: ClusterMemberName, options: StackOptions = {}): Promise<void> {
  const config = readClusterConfig(options.env);
  await withStackLock(config, options, async () => {
    const record = recordOf(config, name);
    if (isRunning(record)) signalGroup(record.pid, 'SIGSTOP');
  });
}

/**
 * Starts a member again on its data and resolves when it answers: a mongod as PRIMARY or
 * SECONDARY of the replica set, a broker registered in the cluster's metadata. One that runs is
 * left as it is. The error of a failed start names the member's log.
 */
export async function restartClusterMember(name: ClusterMemberName, options: StackOptions = {}): Promise<void> {
  await ensureOneServer(clusterTopology(readClusterConfig(options.env)), name, options);
}

/** The member that listens on `host` ('127.0.0.1:20012' is mongodb-2), as the driver names replica set members. */
export function clusterMemberForMongoHost(host: string, options: Pick<StackOptions, 'env'> = {}): ClusterMemberName {
  const config = readClusterConfig(options.env);
  const port = Number(/:(\d+)$/.exec(host)?.[1]);
  const index = config.ports.mongodb.indexOf(port);
  if (index < 0) throw new StackError(`${host} is no mongod of the cluster (${config.ports.mongodb.map((p) => `127.0.0.1:${p}`).join(', ')})`);
  return `mongodb-${index + 1}` as ClusterMemberName;
}

/** The member that is Kafka node `nodeId` (node.id 1 is kafka-1). */
export function clusterMemberForKafkaNode(nodeId: number): ClusterMemberName {
  if (!memberNumbers.includes(nodeId)) throw new StackError(`Kafka node ${nodeId} is not in the cluster (nodes ${memberNumbers.join(', ')})`);
  return `kafka-${nodeId}` as ClusterMemberName;
}

/** Resident memory (VmRSS) of each member's process group now, 0 for one that does not run. */
export async function clusterMemory(options: Pick<StackOptions, 'env'> = {}): Promise<{ name: ClusterMemberName; rssBytes: number }[]> {
  return serversMemory(clusterTopology(readClusterConfig(options.env))).map(({ name, rssBytes }) => ({ name: name as ClusterMemberName, rssBytes }));
}
