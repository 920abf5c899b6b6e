// `ossn status` against the real servers: one screen naming what answers and what does not, the
// active version, the lag per partition, the dead letters and the credentials.
import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { statusChanged } from '../../contracts/sample-events.js';
import { eventKey } from '../../contracts/transport.js';
import { runOssn } from '../../test/support/ossn-cli.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { defaultStateCacheSize, type ProjectorConfig } from '../config/config.js';
import { CredentialStore, credentialsCollection } from '../credentials/credential-store.js';
import { createKafka } from '../kafka/client.js';
import { connectSink, type MessageSink } from '../kafka/producer.js';
import { waitUntilCaughtUp } from '../kafka/progress.js';
import { ensureTopics } from '../kafka/topics.js';
import { createLogger } from '../logging/logger.js';
import { startFollowingProjector, type FollowingProjector } from '../projector/follow-active-version.js';
import { connectMongo } from '../read-model-store/connect.js';

const env = testEnvironment();
const logger = createLogger('status-test', 'silent');
const kafka = createKafka(env.kafkaBrokers, 'status-test', logger);
let sink: MessageSink;
let mongo: MongoClient;
let projector: FollowingProjector | undefined;

beforeAll(async () => {
  sink = await connectSink(kafka);
  mongo = await connectMongo(env.mongodbUri, 'status-test');
});
afterAll(async () => {
  await projector?.stop();
  await sink?.close();
  await mongo?.close();
});

it('shows servers, versions, lag, dead letters and credentials on one screen', { timeout: 120_000 }, async () => {
  const names = uniqueNames('status-cli');
  const config: ProjectorConfig = {
    logLevel: 'silent',
    store: { mongodbUri: env.mongodbUri, database: names.database, readModelVersion: 1 },
    kafkaBrokers: env.kafkaBrokers,
    topic: names.topic,
    topicPartitions: 2,
    consumerGroup: `${names.group}-v1`,
    stateCacheSize: defaultStateCacheSize,
  };
  await ensureTopics(kafka, config.topic, 2);
  await sink.send(config.topic, [
    { key: eventKey('C1', 'SO-9'), value: JSON.stringify(statusChanged(1)) },
    { key: eventKey('C1', 'SO-9'), value: 'not json' },
  ]);
  const credentials = new CredentialStore(credentialsCollection(mongo.db(names.database)));
  for (const id of ['p1', 'p2', 'p3']) await credentials.add({ id, passwordHash: 'x', scopes: ['osn'], clientIds: ['C1'] });
  await credentials.setActive('p3', false);
  projector = await startFollowingProjector(config, logger);
  await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);

  const run = await runOssn(['status', '--probe', 'http://127.0.0.1:1'], {
    KAFKA_BROKERS: env.kafkaBrokers.join(','),
    MONGODB_URI: env.mongodbUri,
    MONGODB_DATABASE: names.database,
    REDIS_URL: env.redisUrl,
    OSSN_TOPIC: config.topic,
    OSSN_CONSUMER_GROUP: config.consumerGroup,
  });
  expect(run.code).toBe(0);
  const screen = run.stdout;
  expect(screen).toMatch(/Kafka .* answers \(1 brokers\)/);
  expect(screen).toMatch(/MongoDB \(database .*\) +answers/);
  expect(screen).toMatch(/Redis +answers \(PONG\)/);
  expect(screen).toMatch(/http:\/\/127\.0\.0\.1:1 +DOES NOT ANSWER/);
  expect(screen).toContain('active version     1 (READ_MODEL_VERSION; no replay yet)');
  expect(screen).toContain('building           nothing');
  expect(screen).toContain(`group              ${config.consumerGroup}: ossn-projector on`);
  expect(screen).toMatch(/lag +0 events; by partition 0:0 1:0/);
  expect(screen).toContain('1 in the last hour, 1 in all');
  expect(screen).toContain('2 active, 1 disabled');
  expect(screen.split('\n').length).toBeLessThan(30);
});
