// `ossn status` against the real servers: one screen naming what answers and what does not, the
// active version, the lag per partition, the dead letters and the credentials.
import { expect, it } from 'vitest';
import { statusChanged } from '../../test/fixtures/sample-events.js';
import { eventKey } from '../../contracts/transport.js';
import { runOssn } from '../../test/support/ossn-cli.js';
import { freshProjectorConfig, useConnections } from '../../test/support/projector-system.js';
import { testEnvironment } from '../../test/support/servers.js';
import { CredentialStore, credentialsCollection } from '../domain/credentials/credential-store.js';
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
