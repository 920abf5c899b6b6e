import { readProjectorConfig } from '../../config/config.js';
import { CredentialStore, credentialsCollection } from '../../credentials/credential-store.js';
import { demoCredentialId, ensureDemoCredential } from '../../credentials/demo-credential.js';
import { generatePassword } from '../../credentials/password-hash.js';
import { createKafka } from '../../kafka/client.js';
import { ensureTopics } from '../../kafka/topics.js';
import { createLogger } from '../../logging/logger.js';
import { connectMongo } from '../../read-model-store/connect.js';
import { ensureIndexes, readModelCollections } from '../../read-model-store/documents.js';

/** One-shot set-up for a deployment: topics, read-model indexes, and a demo credential. Idempotent. */
export async function setupCommand(): Promise<void> {
  const config = readProjectorConfig();
  const logger = createLogger('ossn-setup', config.logLevel);
  await ensureTopics(createKafka(config.kafkaBrokers, 'ossn-setup', logger), config.topic, config.topicPartitions);
  const mongo = await connectMongo(config.store.mongodbUri, 'ossn-setup');
  try {
    const db = mongo.db(config.store.database);
    await ensureIndexes(readModelCollections(db, config.store.readModelVersion));
    const given = process.env.OSSN_DEMO_PASSWORD;
    const password = given || generatePassword();
    await ensureDemoCredential(new CredentialStore(credentialsCollection(db)), password);
    process.stdout.write(`topics and indexes ready; demo credential "${demoCredentialId}" ready\n`);
    if (!given) process.stdout.write(`demo password (shown once): ${password}\n`);
  } finally {
    await mongo.close();
  }
}
