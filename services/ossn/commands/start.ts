import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { generateDemoEvents } from '../demo-events/demo-events.js';
import { defaultStopTimeoutMs, readProjectorConfig, readPusherConfig, readQueryConfig, type ProjectorConfig, type PusherConfig, type QueryConfig } from '../../config/config.js';
import { ConfigError } from '../../config/env.js';
import { SECRET_KEY_FILE_VARIABLE, SECRET_KEY_VARIABLE } from '../../config/secret-key.js';
import { CredentialStore, credentialsCollection } from '../../adapters/mongodb/credential-store.js';
import { demoCredentialId, ensureDemoCredential } from '../../domain/credentials/demo-credential.js';
import { generatePassword } from '../../domain/credentials/password-hash.js';
import { createKafka } from '../../adapters/kafka/client.js';
import { connectProducer } from '../../adapters/kafka/producer.js';
import { topicSize, waitUntilCaughtUp } from '../../adapters/kafka/progress.js';
import { ensureTopics } from '../../adapters/kafka/topics.js';
import { createLogger, type Logger } from '../../plumbing/logging/logger.js';
import { untilAnswered } from '../../plumbing/lifecycle/until-answered.js';
import { createProjectorMetrics } from '../../plumbing/metrics/projector-metrics.js';
import { startFollowingProjector, type FollowingProjector } from '../../projector/follow-active-version.js';
import { consumerGroupFor } from '../../projector/versions.js';
import { publishNdjson } from '../../adapters/kafka/publish-events.js';
import { connectMongo } from '../../adapters/mongodb/connect.js';
import { startQueryService, type RunningQueryService } from '../../query/server.js';
import { serveProjectorOps } from '../projector-ops.js';
import { PushInStart } from '../push-in-start.js';
import { exitOnSecondSignal } from '../second-signal.js';
import { untilSignal } from '../signals.js';
import { examples } from '../start-examples.js';
import { stopWithinDeadline } from '../stop-deadline.js';
import type { Command } from '../command.js';
import { parseCommandLine } from '../command-line.js';

// Local runs only: the demo password is kept beside the stack's data (git-ignored), so that each
// start prints a working credential without storing real partners' secrets anywhere.
const demoPasswordFile = resolve('.stack/demo-password');

function demoPassword(): string {
  if (existsSync(demoPasswordFile)) return readFileSync(demoPasswordFile, 'utf8').trim();
  const password = generatePassword();
  mkdirSync(dirname(demoPasswordFile), { recursive: true });
  writeFileSync(demoPasswordFile, `${password}\n`, { mode: 0o600 });
  return password;
}

/** What `ossn start` has started so far. */
interface Running {
  projector?: FollowingProjector;
  projectorOps?: Awaited<ReturnType<typeof serveProjectorOps>>;
  query?: RunningQueryService;
  push?: PushInStart;
}

/** The ports this process listens on must differ (0, any free port, always does): the pusher's too, when it may run. */
function portClashes(projector: ProjectorConfig, query: QueryConfig, pusher: PusherConfig | undefined): string[] {
  const ports: [string, number | undefined][] = [
    ['PORT (query service)', query.port],
    ['OPS_PORT (query service metrics and probes)', query.opsPort],
    ['OSSN_METRICS_PORT (projector metrics and probes)', projector.metricsPort],
    ...(pusher ? [['OSSN_PUSHER_METRICS_PORT (pusher metrics and probes)', pusher.metricsPort] as [string, number]] : []),
  ];
  return ports.flatMap(([name, port], i) =>
    ports.slice(i + 1).flatMap(([other, otherPort]) => (port && port === otherPort ? [`${name} and ${other} are both ${port}`] : [])),
  );
}

/**
 * The pusher's configuration when a secret key is given (a bad one, or another bad pusher
 * variable, is refused as every setting is); undefined without a key: push then does not run here.
 */
function readKeyedPusherConfig(env: NodeJS.ProcessEnv): PusherConfig | undefined {
  const keyGiven = [SECRET_KEY_VARIABLE, SECRET_KEY_FILE_VARIABLE].some((name) => (env[name]?.trim() ?? '') !== '');
  return keyGiven ? readPusherConfig(env) : undefined;
}

/**
 * The all-in-one local run on the servers given in the environment (`npm start` gives the local
 * stack's when none are configured: scripts/stack/start.ts): the projector and the query service
 * in this process, the demo data set on an empty topic, a demo credential,
 * and copy-paste examples. The projector is `ossn projector`'s: it follows `ossn replay`'s switch
 * of the active read-model version and serves its metrics and probes (OSSN_METRICS_PORT) beside
 * the query service's (OPS_PORT). With a secret key given, the pusher of `ossn pusher` runs here
 * too once a push subscription exists (push-in-start.ts). Ctrl-C stops the services within
 * OSSN_STOP_TIMEOUT_MS whatever the servers do (then `npm start` stops the stack if it started it).
 */
export const startCommand: Command = {
  help: `usage: ossn start

  The all-in-one local run on the servers the environment names (KAFKA_BROKERS, MONGODB_URI; npm start
  brings up a local stack and sets them when none are given): publishes the demo data set to an empty
  topic, makes the demo credential, runs the projector and the query service in this process, and
  prints copy-paste examples. With OSSN_SECRET_KEY (or OSSN_SECRET_KEY_FILE) set it also runs the
  pusher (as ossn pusher, its metrics and probes on OSSN_PUSHER_METRICS_PORT) once a push
  subscription exists, looking for one every 5 s; without the key a subscription is left unpushed,
  with a warning. See docs/operations.md (Push subscriptions). Ctrl-C stops it within
  OSSN_STOP_TIMEOUT_MS.`,
  run: start,
};

async function start(argv: string[]): Promise<void> {
  parseCommandLine({ name: 'start', options: {} }, argv);
  const env = process.env;
  const projectorConfig = readProjectorConfig(env);
  const queryConfig = readQueryConfig(env);
  const pusherConfig = readKeyedPusherConfig(env);
  const clashes = portClashes(projectorConfig, queryConfig, pusherConfig);
  if (clashes.length > 0) throw new ConfigError(clashes);
  const logger = createLogger('ossn', env.LOG_LEVEL ? projectorConfig.logLevel : 'warn');

  // Listening from the start: Ctrl-C while starting (a server away, the demo data being
  // projected) stops what has started, as it does once everything runs.
  const stopRequested = untilSignal();
  const stopTimeoutMs = projectorConfig.stopTimeoutMs ?? defaultStopTimeoutMs;
  // What has started so far, in the order it stops.
  const running: Running = {};
  const stopAll = () =>
    stopWithinDeadline(stopTimeoutMs, logger, [
      ['closing the query service', async () => running.query?.close(), stopTimeoutMs * 0.2],
      // Sends in flight are cut off, and sent again by the next pusher.
      ['stopping the pusher', async () => running.push?.stop(), stopTimeoutMs * 0.2],
      ["closing the projector's metrics and probes port", async () => running.projectorOps?.close(), stopTimeoutMs * 0.2],
      ['stopping the projector', async () => running.projector?.stop()],
    ]);

  const starting = startEverything(projectorConfig, queryConfig, pusherConfig, logger, running);
  const first = await Promise.race([
    starting.then(
      (ready) => ({ ready }),
      (error: unknown) => ({ error }),
    ),
    stopRequested.then((signal) => ({ signal })),
  ]);
  if ('error' in first) {
    // The projector and the query service started so far would keep the process alive, serving.
    process.stderr.write(`ossn: ${first.error instanceof Error ? first.error.message : String(first.error)}\n`);
    process.stdout.write('stopping…\n');
    exitOnSecondSignal(logger);
    await stopAll();
    process.exit(1);
  }
  if ('ready' in first) {
    process.stdout.write(first.ready);
    await stopRequested;
  } else {
    // The start goes on while the stop runs; whatever it does after, the process exits.
    starting.catch(() => undefined);
  }
  process.stdout.write('stopping…\n');
  exitOnSecondSignal(logger);
  await stopAll();
  // An abandoned step, or a connection it left to a server that does not answer, would hold the process.
  process.exit();
}

/**
 * Publishes the demo data set to an empty topic, ensures the demo credential, starts the projector
 * and the query service (each put in `running` once started) and waits for the projector to catch
 * up; resolves with the examples to print.
 */
async function startEverything(
  projectorConfig: ProjectorConfig,
  queryConfig: QueryConfig,
  pusherConfig: PusherConfig | undefined,
  logger: Logger,
  running: Running,
): Promise<string> {
  // First, so that a port it cannot have ends the start before anything else is done.
  const metrics = createProjectorMetrics();
  const projectorOps = (running.projectorOps = await serveProjectorOps(projectorConfig, () => running.projector, metrics, logger));
  const kafka = createKafka(projectorConfig.kafkaBrokers, 'ossn-start', logger);
  await ensureTopics(kafka, projectorConfig.topic, projectorConfig.topicPartitions);
  // Leaders of topics created moments ago may not be known to every request yet: a few failures are expected.
  if ((await untilAnswered('Kafka', () => topicSize(kafka, projectorConfig.topic), logger, { initialDelayMs: 500, expectedFailures: 3 })) === 0n) {
    const events = generateDemoEvents({ clients: 3, orders: 40, seed: 1 });
    const producer = await connectProducer(kafka);
    await publishNdjson(events.map((e) => JSON.stringify(e)), producer, projectorConfig.topic).finally(() => producer.close());
    process.stdout.write(`published ${events.length} demo events to ${projectorConfig.topic}\n`);
  }

  const password = demoPassword();
  const mongo = await connectMongo(queryConfig.store.mongodbUri, 'ossn-start');
  await ensureDemoCredential(new CredentialStore(credentialsCollection(mongo.db(queryConfig.store.database))), password).finally(() => mongo.close());

  const projector = (running.projector = await startFollowingProjector(projectorConfig, logger, { metrics }));
  const query = (running.query = await startQueryService(queryConfig, logger));
  const push = (running.push = new PushInStart({
    store: queryConfig.store,
    storeTimeoutMs: queryConfig.storeTimeoutMs,
    pusher: pusherConfig,
    logger,
    say: (line, warning) => (warning ? process.stderr : process.stdout).write(`${line}\n`),
  }));
  await push.start();
  // The group of the version kept current: a replay may have switched to another one.
  await waitUntilCaughtUp(kafka, consumerGroupFor(projectorConfig, projector.version()), projectorConfig.topic, 300_000);
  return examples({
    baseUrl: queryConfig.publicBaseUrl,
    id: demoCredentialId,
    password,
    operators: { projector: projectorOps.url, query: query.opsUrl, ...(push.opsUrl === undefined ? {} : { pusher: push.opsUrl }) },
    push: { keyGiven: pusherConfig !== undefined, store: storeVariables(queryConfig) },
    now: new Date(),
  });
}

/** The variables `ossn push add` in another terminal needs to reach this store: the URI only when it holds no password. */
function storeVariables({ store }: QueryConfig): string {
  const uri = /^[a-z+]+:\/\/[^/]*@/i.test(store.mongodbUri) ? 'MONGODB_URI=<as for this start>' : `MONGODB_URI='${store.mongodbUri}'`;
  return `${uri}${store.database === 'ossn' ? '' : ` MONGODB_DATABASE=${store.database}`}`;
}
