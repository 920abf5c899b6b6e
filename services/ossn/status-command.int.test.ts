// `ossn status` against the real servers: one screen naming what answers and what does not, the
// active version, the lag per partition, the dead letters and the credentials.
import { expect, it } from 'vitest';
import { statusChanged } from '../../test/fixtures/sample-events.js';
import { eventKey } from '../../contracts/transport.js';
import { runOssn } from '../../test/support/ossn-cli.js';
import { freshProjectorConfig, useConnections } from '../../test/support/projector-system.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { CredentialStore, credentialsCollection } from '../adapters/mongodb/credential-store.js';
import { waitUntilCaughtUp } from '../adapters/kafka/progress.js';
import { startFollowingProjector } from '../projector/follow-active-version.js';

const env = testEnvironment();
const connections = useConnections('status-test');
const { kafka, logger } = connections;

it('shows servers, versions, lag, dead letters and credentials on one screen', { timeout: 120_000 }, async () => {
  const { config, names } = await freshProjectorConfig(kafka, 'status-cli', 2);
  await connections.producer.send(config.topic, [
    { key: eventKey('C1', 'SO-9'), value: JSON.stringify(statusChanged(1)) },
    { key: eventKey('C1', 'SO-9'), value: 'not json' },
  ]);
  const credentials = new CredentialStore(credentialsCollection(connections.mongo.db(names.database)));
  for (const id of ['p1', 'p2', 'p3']) await credentials.add({ id, passwordHash: 'x', scopes: ['osn'], clientIds: ['C1'] });
  await credentials.setActive('p3', false);
  connections.running.push(await startFollowingProjector(config, logger));
  await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);

  const run = await runOssn(['status', '--probe', 'http://127.0.0.1:1'], {
    KAFKA_BROKERS: env.kafkaBrokers.join(','),
    MONGODB_URI: env.mongodbUri,
    MONGODB_DATABASE: names.database,
    REDIS_URL: env.redisUrl,
    OSSN_TOPIC: config.topic,
    OSSN_CONSUMER_GROUP: config.consumerGroup,
  });
  // The probe given does not answer: a server down is a failure of the check.
  expect(run.code).toBe(1);
  const screen = run.stdout;
  expect(screen).toMatch(/Kafka .* \(KAFKA_BROKERS\) +answers \(1 brokers\)/);
  expect(screen).toMatch(/MongoDB \S+ \(MONGODB_URI, database .*\) +answers/);
  expect(screen).toMatch(/Redis \S+ \(REDIS_URL\) +answers \(PONG\)/);
  expect(screen).toMatch(/http:\/\/127\.0\.0\.1:1 +DOES NOT ANSWER/);
  expect(screen).toContain('active version     1 (READ_MODEL_VERSION; no replay yet)');
  expect(screen).toContain('building           nothing');
  expect(screen).toContain(`group              ${config.consumerGroup}: ossn-projector on`);
  expect(screen).toMatch(/lag +0 events; by partition 0:0 1:0/);
  expect(screen).toContain('1 in the last hour, 1 in all');
  expect(screen).toContain('2 active, 1 disabled');
  expect(screen).toContain('push subscriptions\n  none (ossn push add)\n');
  expect(screen).not.toContain('NOT PROJECTED');
  expect(screen.split('\n').length).toBeLessThan(30);

  const json = await runOssn(['status', '--json'], {
    KAFKA_BROKERS: env.kafkaBrokers.join(','),
    MONGODB_URI: env.mongodbUri,
    MONGODB_DATABASE: names.database,
    OSSN_TOPIC: config.topic,
    OSSN_CONSUMER_GROUP: config.consumerGroup,
  });
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout)).toMatchObject({
    topic: config.topic,
    allServersAnswer: true,
    active: { ok: true, value: { version: 1 } },
    lag: { ok: true, value: { group: config.consumerGroup, partitions: [{ partition: 0, lag: 0 }, { partition: 1, lag: 0 }], unassigned: [], otherTopics: [] } },
    deadLetters: { ok: true, value: { all: 1 } },
    credentials: { ok: true, value: { active: 2, disabled: 1 } },
    push: { ok: true, value: [] },
  });
});

it('with Kafka away, shows the rest within its 5 s, names KAFKA_BROKERS, and exits 1', { timeout: 60_000 }, async () => {
  const { names } = await freshProjectorConfig(kafka, 'status-kafka-away', 1);
  const started = Date.now();
  const run = await runOssn(['status'], { KAFKA_BROKERS: '127.0.0.1:1', MONGODB_URI: env.mongodbUri, MONGODB_DATABASE: names.database, REDIS_URL: env.redisUrl, OSSN_TOPIC: names.topic });
  const took = Date.now() - started;
  expect(run.code).toBe(1);
  expect(run.stdout).toMatch(/Kafka 127\.0\.0\.1:1 \(KAFKA_BROKERS\) +DOES NOT ANSWER: .*ECONNREFUSED/);
  expect(run.stdout).toMatch(/MongoDB \S+ \(MONGODB_URI, database .*\) +answers/);
  expect(run.stdout).toContain('0 active, 0 disabled');
  // Before issue 29 it took some 30 s (kafkajs's retries held the process) and exited 0.
  expect(took).toBeLessThan(8_000);
});

it('flags partitions no member projects, and a member of the group that reads another topic', { timeout: 120_000 }, async () => {
  // The case: a trial projector of another topic in the live topic's group.
  const { config } = await freshProjectorConfig(kafka, 'status-foreign', 3);
  const other = await freshProjectorConfig(kafka, 'status-foreign-other', 1);
  const stranger = kafka.consumer({ groupId: config.consumerGroup, sessionTimeout: 10_000 });
  let joined = false;
  stranger.on(stranger.events.GROUP_JOIN, () => (joined = true));
  await stranger.connect();
  connections.running.push({ stop: () => stranger.disconnect() });
  await stranger.subscribe({ topic: other.config.topic });
  await stranger.run({ eachMessage: async () => undefined });
  await expect.poll(() => joined, { timeout: 30_000 }).toBe(true);

  const run = await runOssn(['status'], {
    KAFKA_BROKERS: env.kafkaBrokers.join(','),
    MONGODB_URI: env.mongodbUri,
    MONGODB_DATABASE: config.store.database,
    OSSN_TOPIC: config.topic,
    OSSN_CONSUMER_GROUP: config.consumerGroup,
  });
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(`NOT PROJECTED      partitions 0,1,2 are assigned to no member reading ${config.topic}`);
  expect(run.stdout).toMatch(new RegExp(`OTHER TOPIC +\\S+ on \\S+ reads ${other.config.topic.replace(/\./g, '\\.')}: a projector of another topic in this group`));
});

it('says so when the event topic or its dead-letter topic does not exist (a mistyped OSSN_TOPIC, no ossn setup yet)', { timeout: 60_000 }, async () => {
  const names = uniqueNames('status-no-topic');
  const run = await runOssn(['status'], {
    KAFKA_BROKERS: env.kafkaBrokers.join(','),
    MONGODB_URI: env.mongodbUri,
    MONGODB_DATABASE: names.database,
    OSSN_TOPIC: names.topic,
  });
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(`lag                unknown: the topic ${names.topic} (OSSN_TOPIC) does not exist; ossn setup creates it`);
  expect(run.stdout).toContain(`unknown: the dead-letter topic ${names.topic}.dlq does not exist; ossn setup creates it`);
});
