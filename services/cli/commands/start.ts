import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ensureStack, stackStatus, stopStack } from '../../../scripts/stack/stack.js';
import { generateDemoEvents } from '../../../contracts/demo-events.js';
import { readProjectorConfig, readQueryConfig } from '../../config/config.js';
import { CredentialStore, credentialsCollection } from '../../credentials/credential-store.js';
import { demoCredentialId, ensureDemoCredential } from '../../credentials/demo-credential.js';
import { generatePassword } from '../../credentials/password-hash.js';
import { createKafka } from '../../kafka/client.js';
import { connectSink } from '../../kafka/producer.js';
import { topicSize, waitUntilCaughtUp } from '../../kafka/progress.js';
import { ensureTopics } from '../../kafka/topics.js';
import { createLogger } from '../../logging/logger.js';
import { untilAnswered } from '../../lifecycle/until-answered.js';
import { startProjector } from '../../projector/run.js';
import { publishNdjson } from '../../publishing/publish-events.js';
import { connectMongo } from '../../read-model-store/connect.js';
import { startQueryService } from '../../query/server.js';
import { exitOnSecondSignal } from '../second-signal.js';
import { untilSignal } from '../signals.js';
import { examples } from '../start-examples.js';

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

/**
 * The all-in-one local run: the local stack when no servers are configured, then the projector
 * and the query service in this process, the demo data set on an empty topic, a demo credential,
 * and copy-paste examples. Ctrl-C stops the services, and the stack if this run started it.
 */
export async function startCommand(): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  let stackStartedHere = false;
  if (!env.KAFKA_BROKERS || !env.MONGODB_URI) {
    stackStartedHere = !(await stackStatus()).every((server) => server.answers);
    Object.assign(env, await ensureStack());
  }
  const projectorConfig = readProjectorConfig(env);
  const queryConfig = readQueryConfig(env);
  const logger = createLogger('ossn', env.LOG_LEVEL ? projectorConfig.logLevel : 'warn');

  const kafka = createKafka(projectorConfig.kafkaBrokers, 'ossn-start', logger);
  await ensureTopics(kafka, projectorConfig.topic, projectorConfig.topicPartitions);
  // Leaders of topics created moments ago may not be known to every request yet.
  if ((await untilAnswered('Kafka', () => topicSize(kafka, projectorConfig.topic), logger, { initialDelayMs: 500 })) === 0n) {
    const events = generateDemoEvents({ clients: 3, orders: 40, seed: 1 });
    const sink = await connectSink(kafka);
    await publishNdjson(events.map((e) => JSON.stringify(e)), sink, projectorConfig.topic).finally(() => sink.close());
    process.stdout.write(`published ${events.length} demo events to ${projectorConfig.topic}\n`);
  }

  const password = demoPassword();
  const mongo = await connectMongo(queryConfig.store.mongodbUri, 'ossn-start');
  await ensureDemoCredential(new CredentialStore(credentialsCollection(mongo.db(queryConfig.store.database))), password).finally(() => mongo.close());

  const projector = await startProjector(projectorConfig, logger);
  const query = await startQueryService(queryConfig, logger);
  await waitUntilCaughtUp(kafka, projectorConfig.consumerGroup, projectorConfig.topic, 300_000);

  process.stdout.write(examples({ baseUrl: queryConfig.publicBaseUrl, id: demoCredentialId, password }));
  await untilSignal();
  process.stdout.write('stopping…\n');
  exitOnSecondSignal(logger);
  await query.close();
  await projector.stop();
  if (stackStartedHere) await stopStack();
}
