import { readProjectorConfig } from '../../config/config.js';
import { CredentialExistsError, CredentialStore, credentialsCollection } from '../../adapters/mongodb/credential-store.js';
import { demoClientIds, demoCredentialId } from '../../domain/credentials/demo-credential.js';
import { generatePassword, hashPassword } from '../../domain/credentials/password-hash.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordProblem } from '../../domain/credentials/password-rule.js';
import { ConfigError } from '../../config/env.js';
import { createKafka } from '../../adapters/kafka/client.js';
import { ensureTopics, topicsReportLines } from '../../adapters/kafka/topics.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { ensureIndexes, readModelCollections } from '../../adapters/mongodb/documents.js';
import { MongoPushDeliveries } from '../../adapters/mongodb/push-deliveries.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection } from '../../adapters/mongodb/push-subscriptions.js';
import type { Command } from '../command.js';
import { parseCommandLine } from '../command-line.js';
import { askKafka, connectMongoFor, topicsWaitMs } from '../server-waits.js';

const usage = `usage: ossn setup [--demo]

  Creates the topics, the read-model indexes and the push indexes and delivery log (idempotent).
  With 3 Kafka brokers or more answering the topics get replication factor 3 and
  min.insync.replicas=2, the brokers' defaults otherwise (the line names the brokers that
  answered); existing topics are left as they are (a warning names one with fewer replicas than
  that).
  --demo   also creates the demo credential "${demoCredentialId}" (clients ${demoClientIds.join(', ')}) when it
           does not exist, with OSSN_DEMO_PASSWORD (16 to 64 characters, as every partner's password)
           or a generated password shown once; an existing credential of that id is never changed
           (nor re-enabled).`;

/** One-shot set-up for a deployment: topics, read-model indexes, and, when asked, a demo credential. */
export const setupCommand: Command = { help: usage, run: setup };

async function setup(argv: string[]): Promise<void> {
  const demo = parseCommandLine({ name: 'setup', options: { demo: { type: 'boolean' } } }, argv).values.demo === true;
  const config = readProjectorConfig();
  // Read before anything is made: a demo credential answers on the partner port like any other.
  const demoPassword = demo ? readDemoPassword() : undefined;
  // kafkajs's own lines (each retry of a broker away) are not for this reader: the one line that
  // names the server and its variable says it (as publish and dlq do).
  const logger = createLogger('ossn-setup', config.logLevel === 'info' ? 'fatal' : config.logLevel);
  const kafka = createKafka(config.kafkaBrokers, 'ossn-setup', logger);
  const topics = await askKafka(config.kafkaBrokers, () => ensureTopics(kafka, config.topic, config.topicPartitions), topicsWaitMs);
  const { said, warnings } = topicsReportLines(topics, config.topicPartitions);
  process.stdout.write(`${said}\n`);
  for (const warning of warnings) process.stderr.write(`${warning}\n`);
  const mongo = await connectMongoFor('setup', config.store.mongodbUri);
  try {
    const db = mongo.db(config.store.database);
    await ensureIndexes(readModelCollections(db, config.store.readModelVersion));
    // The pusher makes them too when it starts: here they are there before it (docs/operations.md, Push subscriptions).
    await new MongoPushSubscriptions(pushSubscriptionsCollection(db)).ensureIndexes();
    await MongoPushDeliveries.of(db).ensureIndexes();
    process.stdout.write('topics and indexes ready\n');
    if (demo) await createDemoCredential(new CredentialStore(credentialsCollection(db)), demoPassword);
  } finally {
    await mongo.close();
  }
}

/** OSSN_DEMO_PASSWORD when set, held to the rule of every partner's password (never shown in the refusal). */
function readDemoPassword(): string | undefined {
  const given = process.env.OSSN_DEMO_PASSWORD || undefined;
  if (given !== undefined && passwordProblem(given) !== undefined) {
    throw new ConfigError([
      `OSSN_DEMO_PASSWORD must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters without surrounding whitespace, as every partner's password (leave it unset and one is generated)`,
    ]);
  }
  return given;
}

async function createDemoCredential(store: CredentialStore, given: string | undefined): Promise<void> {
  const password = given || generatePassword();
  try {
    await store.add({ id: demoCredentialId, passwordHash: await hashPassword(password), scopes: ['order_status', 'osn'], clientIds: demoClientIds });
  } catch (error) {
    if (!(error instanceof CredentialExistsError)) throw error;
    process.stdout.write(`demo credential "${demoCredentialId}" exists already: left as it is\n`);
    return;
  }
  process.stdout.write(`demo credential "${demoCredentialId}" created\n`);
  if (!given) process.stdout.write(`demo password (shown once): ${password}\n`);
}
