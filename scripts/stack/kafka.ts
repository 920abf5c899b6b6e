import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { shown, type StackConfig } from './config.js';
import { StackError } from './stack-error.js';
import type { Server, ServerContext } from './server.js';
import { grepLog, run, which } from './tools.js';

const kafkaVersion = '4.1.1';

/**
 * True when a broker answers a metadata request and lists itself, and the group coordinator
 * answers too: on a new broker the offsets topic is created on first use and consumer groups
 * fail ("coordinator not available", "loading") until it is, so ready means groups work.
 */
export async function kafkaAnswers(brokers: string[]): Promise<boolean> {
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

/** Resolves the broker's runtime classpath from Maven Central, once per version of the pom. */
async function resolveClasspath(ctx: ServerContext, libDir: string): Promise<void> {
  const { config } = ctx;
  const pom = resolve(config.repoRoot, 'scripts/stack/kafka/pom.xml');
  const pomHash = createHash('sha256').update(readFileSync(pom)).digest('hex');
  const stamp = resolve(libDir, '.pom.sha256');
  const complete =
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8').trim() === pomHash &&
    readdirSync(libDir).some((file) => file.startsWith('kafka_2.13-'));
  if (complete) return;

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

function serverProperties(config: StackConfig, dataDir: string): string {
  const { kafka, kafkaController } = config.ports;
  return `# Written by scripts/stack/kafka.ts on every start; edits are lost.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:${kafkaController}
listeners=PLAINTEXT://127.0.0.1:${kafka},CONTROLLER://127.0.0.1:${kafkaController}
advertised.listeners=PLAINTEXT://127.0.0.1:${kafka}
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
log.dirs=${dataDir}
auto.create.topics.enable=true
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
# One node: every internal topic must be satisfied by one replica, or consumer groups never
# find their coordinator. One offsets partition: the readiness probe then proves that the
# coordinator of every group is loaded.
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
`;
}

// Warnings only, except the line that says the server has started, to keep the log readable.
const log4j2Properties = `status = warn
appender.stdout.type = Console
appender.stdout.name = STDOUT
appender.stdout.layout.type = PatternLayout
appender.stdout.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.stdout.ref = STDOUT
logger.started.name = kafka.server.KafkaRaftServer
logger.started.level = INFO
`;

export function kafkaServer(config: StackConfig): Server {
  const libDir = resolve(config.cacheDir, 'kafka/lib');
  const home = resolve(config.stackDir, 'kafka');
  const dataDir = resolve(home, 'data');
  const propertiesFile = resolve(home, 'server.properties');
  const log4jFile = resolve(home, 'log4j2.properties');
  const classpath = `${libDir}/*`;
  const brokers = [`127.0.0.1:${config.ports.kafka}`];

  return {
    name: 'kafka',
    ports: [
      { port: config.ports.kafka, variable: 'OSSN_STACK_KAFKA_PORT' },
      { port: config.ports.kafkaController, variable: 'OSSN_STACK_KAFKA_CONTROLLER_PORT' },
    ],
    address: brokers.join(','),
    startTimeoutMs: 120_000,
    stopGraceMs: 30_000,

    async prepare(ctx) {
      requireTool('java', 'Kafka needs a Java 17+ runtime (apt-get install openjdk-17-jre-headless)');
      await resolveClasspath(ctx, libDir);
    },

    async launch(ctx) {
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(propertiesFile, serverProperties(config, dataDir));
      writeFileSync(log4jFile, log4j2Properties);
      if (!existsSync(resolve(dataDir, 'meta.properties'))) {
        const logFile = resolve(config.logsDir, 'kafka-format.log');
        const storageTool = (args: string[]) =>
          run('java', ['-Xmx256m', `-Dlog4j2.configurationFile=${log4jFile}`, '-cp', classpath, 'kafka.tools.StorageTool', ...args], {
            logFile,
            signal: ctx.signal,
          });
        const uuid = await storageTool(['random-uuid']);
        const clusterId = uuid.stdout.trim();
        if (uuid.code !== 0 || !clusterId) {
          throw new StackError(`kafka: could not create a cluster id; see ${shown(logFile)}`);
        }
        const format = await storageTool(['format', '-t', clusterId, '-c', propertiesFile, '--ignore-formatted']);
        if (format.code !== 0) throw new StackError(`kafka: formatting ${shown(dataDir)} failed; see ${shown(logFile)}`);
      }
      return {
        command: 'java',
        args: [
          '-Xms256m',
          '-Xmx768m',
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
