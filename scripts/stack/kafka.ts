import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { shown, type StackConfig, type StackPaths } from './config.js';
import { StackError } from './stack-error.js';
import type { Server, ServerContext } from './server.js';
import { grepLog, run, which, withDownloadLock } from './tools.js';

const kafkaVersion = '4.1.1';

/**
 * True when a broker answers a metadata request and lists itself (or, given `nodeIds`, lists
 * every one of them), and the group coordinator answers too: on a new broker the offsets topic is
 * created on first use and consumer groups fail ("coordinator not available", "loading") until it
 * is, so ready means groups work.
 */
export async function kafkaAnswers(brokers: string[], nodeIds?: number[]): Promise<boolean> {
  const admin = new Kafka({
    clientId: 'ossn-stack-probe',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 3_000,
    retry: { retries: 0 },
  }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    if (cluster.brokers.length === 0) return false;
    if (nodeIds && !nodeIds.every((id) => cluster.brokers.some((broker) => broker.nodeId === id))) return false;
    await admin.describeGroups(['ossn-stack-probe']);
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

function requireTool(command: string, hint: string): string {
  const path = which(command);
  if (!path) throw new StackError(`kafka: ${command} is not on the PATH: ${hint}`);
  return path;
}

/** The Maven failure in one line: which artifact (or plugin) could not be resolved, and why. */
function mavenFailure(logFile: string): string {
  const errors = grepLog(logFile, /\[ERROR\]/).map((line) => line.replace(/^.*?\[ERROR\]\s*/, '').trim());
  const text = errors.join(' ');
  const artifact =
    /artifacts? could not be resolved: (\S+?)[,:]?\s/.exec(text)?.[1] ??
    /Could not (?:find|transfer) artifact (\S+)/.exec(text)?.[1] ??
    /Failed to read artifact descriptor for (\S+)/.exec(text)?.[1] ??
    /Plugin (\S+) or one of its dependencies could not be resolved/.exec(text)?.[1];
  const reason = /Could not find artifact/.test(text)
    ? ': it is not in the repository'
    : /Could not transfer|Connection refused|Unknown host|unreachable|timed out/i.test(text)
      ? ': the download failed (is Maven Central reachable?)'
      : '';
  if (artifact) return `Maven could not resolve ${artifact}${reason}`;
  return `Maven failed: ${(errors.find((line) => line.length > 0) ?? 'no error message').slice(0, 240)}`;
}

const pomFile = (ctx: ServerContext) => resolve(ctx.config.repoRoot, 'scripts/stack/kafka/pom.xml');

/** True when `libDir` holds the classpath of the pom as it is now (its hash stamped inside, written before the directory was moved in place). */
function classpathComplete(ctx: ServerContext, libDir: string): boolean {
  const stamp = resolve(libDir, '.pom.sha256');
  return (
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8').trim() === createHash('sha256').update(readFileSync(pomFile(ctx))).digest('hex') &&
    readdirSync(libDir).some((file) => file.startsWith('kafka_2.13-'))
  );
}

/** Resolves the broker's runtime classpath from Maven Central, once per version of the pom; run under the download lock. */
async function resolveClasspath(ctx: ServerContext, libDir: string): Promise<void> {
  if (classpathComplete(ctx, libDir)) return;
  const { config } = ctx;
  const pom = pomFile(ctx);
  const pomHash = createHash('sha256').update(readFileSync(pom)).digest('hex');

  const mvn = requireTool('mvn', 'Kafka is assembled from Maven Central with Maven (apt-get install maven)');
  const m2 = resolve(config.cacheDir, 'm2');
  const logFile = resolve(config.logsDir, 'maven.log');
  // Copied next to the final directory and renamed at the end, so an interrupted run leaves no half classpath.
  const staging = `${libDir}.partial`;
  rmSync(staging, { recursive: true, force: true });
  ctx.log(`kafka: resolving Kafka ${kafkaVersion} from Maven Central into ${shown(m2)} (first run only, about a minute)`);
  const started = Date.now();
  const { code } = await run(
    mvn,
    [
      '-q',
      '-B',
      `-Dmaven.repo.local=${m2}`,
      '-f',
      pom,
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      `-DoutputDirectory=${staging}`,
    ],
    {
      logFile,
      signal: ctx.signal,
      progress: (seconds) => ctx.log(`kafka: still resolving the classpath (${seconds} s)`),
    },
  );
  if (code !== 0) throw new StackError(`kafka: ${mavenFailure(logFile)}; full output in ${shown(logFile)}`);
  writeFileSync(resolve(staging, '.pom.sha256'), `${pomHash}\n`);
  rmSync(libDir, { recursive: true, force: true });
  renameSync(staging, libDir);
  ctx.log(`kafka: classpath ready in ${shown(libDir)} (${Math.round((Date.now() - started) / 1000)} s)`);
}

/** One Kafka node (broker and controller in one process) of a stack. */
export interface KafkaNode {
  name: string;
  nodeId: number;
  port: number;
  controllerPort: number;
  /** The variable that moves each port, named when one is taken. */
  portVariables: [string, string];
  /** Every controller of the quorum, this node's included. */
  voters: { nodeId: number; controllerPort: number }[];
  /** Its configuration and data. */
  home: string;
  /** The cluster id every node is formatted with, made by the first node that needs it. */
  clusterIdFile: string;
  /** Replicas of every topic, internal ones included (1, or 3 in the cluster). */
  replicationFactor: number;
  heap: { initial: string; max: string };
}

/** The single stack's one node. */
export function stackKafkaNode(config: StackConfig): KafkaNode {
  const home = resolve(config.stackDir, 'kafka');
  return {
    name: 'kafka',
    nodeId: 1,
    port: config.ports.kafka,
    controllerPort: config.ports.kafkaController,
    portVariables: ['OSSN_STACK_KAFKA_PORT', 'OSSN_STACK_KAFKA_CONTROLLER_PORT'],
    voters: [{ nodeId: 1, controllerPort: config.ports.kafkaController }],
    home,
    clusterIdFile: resolve(home, 'cluster-id'),
    replicationFactor: 1,
    heap: { initial: '256m', max: '768m' },
  };
}

export function kafkaServerProperties(node: KafkaNode, dataDir: string): string {
  const replicas = node.replicationFactor;
  // With replicas, a write acknowledged by all (acks=all) is on two of them at least.
  const minIsr = Math.min(replicas, 2);
  return `# Written by scripts/stack/kafka.ts on every start; edits are lost.
process.roles=broker,controller
node.id=${node.nodeId}
controller.quorum.voters=${node.voters.map((voter) => `${voter.nodeId}@127.0.0.1:${voter.controllerPort}`).join(',')}
listeners=PLAINTEXT://127.0.0.1:${node.port},CONTROLLER://127.0.0.1:${node.controllerPort}
advertised.listeners=PLAINTEXT://127.0.0.1:${node.port}
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
log.dirs=${dataDir}
auto.create.topics.enable=true
num.partitions=1
default.replication.factor=${replicas}
min.insync.replicas=${minIsr}
# Every internal topic as replicated as the others, or consumer groups never find their
# coordinator. One offsets partition: the readiness probe then proves that the coordinator of
# every group is loaded.
offsets.topic.replication.factor=${replicas}
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=${replicas}
transaction.state.log.min.isr=${minIsr}
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=${replicas}
share.coordinator.state.topic.min.isr=${minIsr}
group.initial.rebalance.delay.ms=0
`;
}

/**
 * A cluster id as Kafka's Uuid.randomUuid makes one: a random (version 4) UUID in base64url, drawn
 * again when it starts with '-', which Kafka's tools would read as an option (1 draw in 64).
 */
export function newKafkaClusterId(draw: () => string = randomUUID): string {
  for (let attempt = 0; attempt < 1_000; attempt++) {
    const id = Buffer.from(draw().replaceAll('-', ''), 'hex').toString('base64url');
    if (!id.startsWith('-')) return id;
  }
  throw new StackError("kafka: 1000 cluster ids in a row started with '-'; is the random source broken?");
}

/**
 * The id all nodes of a stack are formatted with: read from its file, or made there (the
 * exclusive create lets one node win). Read only while a node's data is not formatted yet: an id
 * starting with '-' (made before ids were drawn again) is replaced, as no node can have been
 * formatted with it (the format refused it).
 */
export function kafkaClusterId(file: string): string {
  try {
    writeFileSync(file, `${newKafkaClusterId()}\n`, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const id = readFileSync(file, 'utf8').trim();
  if (!id.startsWith('-')) return id;
  const fresh = newKafkaClusterId();
  writeFileSync(`${file}.tmp`, `${fresh}\n`);
  renameSync(`${file}.tmp`, file);
  return fresh;
}

/** StorageTool's arguments that format a node's data with the cluster's id (given as `--cluster-id=<id>`, so no id is ever read as an option). */
export function storageFormatArgs(node: { log4jFile: string; classpath: string; propertiesFile: string }, clusterId: string): string[] {
  return ['-Xmx256m', `-Dlog4j2.configurationFile=${node.log4jFile}`, '-cp', node.classpath, 'kafka.tools.StorageTool', 'format', `--cluster-id=${clusterId}`, '-c', node.propertiesFile, '--ignore-formatted'];
}

// Warnings only, to keep the log readable, except what tells where a start stands: the server
// started, the logs loaded (recovered after a kill), the broker registered and unfenced.
const log4j2Properties = `status = warn
appender.stdout.type = Console
appender.stdout.name = STDOUT
appender.stdout.layout.type = PatternLayout
appender.stdout.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.stdout.ref = STDOUT
logger.started.name = kafka.server.KafkaRaftServer
logger.started.level = INFO
logger.logs.name = kafka.log.LogManager
logger.logs.level = INFO
logger.lifecycle.name = kafka.server.BrokerLifecycleManager
logger.lifecycle.level = INFO
`;

export function kafkaServer(config: StackPaths, node: KafkaNode): Server {
  const libDir = resolve(config.cacheDir, 'kafka/lib');
  const { home, name } = node;
  const dataDir = resolve(home, 'data');
  const propertiesFile = resolve(home, 'server.properties');
  const log4jFile = resolve(home, 'log4j2.properties');
  const classpath = `${libDir}/*`;
  const brokers = [`127.0.0.1:${node.port}`];

  return {
    name,
    ports: [
      { port: node.port, variable: node.portVariables[0] },
      { port: node.controllerPort, variable: node.portVariables[1] },
    ],
    address: brokers.join(','),
    startTimeoutMs: 120_000,
    stopGraceMs: 30_000,

    async prepare(ctx) {
      requireTool('java', 'Kafka needs a Java 17+ runtime (apt-get install openjdk-17-jre-headless)');
      // Checked again under the lock: another caller may have resolved it meanwhile.
      if (!classpathComplete(ctx, libDir)) await withDownloadLock(ctx, () => resolveClasspath(ctx, libDir));
    },

    async launch(ctx) {
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(propertiesFile, kafkaServerProperties(node, dataDir));
      writeFileSync(log4jFile, log4j2Properties);
      if (!existsSync(resolve(dataDir, 'meta.properties'))) {
        const logFile = resolve(config.logsDir, `${name}-format.log`);
        const args = storageFormatArgs({ log4jFile, classpath, propertiesFile }, kafkaClusterId(node.clusterIdFile));
        const format = await run('java', args, { logFile, signal: ctx.signal });
        if (format.code !== 0) throw new StackError(`${name}: formatting ${shown(dataDir)} failed; see ${shown(logFile)}`);
      }
      return {
        command: 'java',
        args: [
          `-Xms${node.heap.initial}`,
          `-Xmx${node.heap.max}`,
          '-XX:+UseG1GC',
          '-XX:+ExitOnOutOfMemoryError',
          '-Djava.awt.headless=true',
          `-Dlog4j2.configurationFile=${log4jFile}`,
          '-cp',
          classpath,
          'kafka.Kafka',
          propertiesFile,
        ],
        cwd: home,
      };
    },

    answers: () => kafkaAnswers(brokers),
  };
}
