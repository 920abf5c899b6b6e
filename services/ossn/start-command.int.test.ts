// `ossn start` (the all-in-one local run) against the test run's servers, given in the environment
// as an operator would: its projector is `ossn projector`'s, serving its metrics and probes beside
// the query service's, following `ossn replay`'s switch of the active read-model version; with a
// secret key, its pusher pushes to the receiver its banner says how to subscribe; and one Ctrl-C
// (SIGINT) stops it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MongoClient } from 'mongodb';
import { freePort } from '../../test/support/free-port.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { statusChanged } from '../../test/fixtures/sample-events.js';
import { eventKey } from '../../contracts/transport.js';
import { runOssn, startOssn, type OssnProcess } from '../../test/support/ossn-cli.js';
import { sample } from '../../test/support/metrics-scrape.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { createKafka } from '../adapters/kafka/client.js';
import { connectProducer } from '../adapters/kafka/producer.js';
import { createLogger } from '../plumbing/logging/logger.js';
import { connectMongo } from '../adapters/mongodb/connect.js';
import { readModelCollections } from '../adapters/mongodb/documents.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection } from '../adapters/mongodb/push-subscriptions.js';
import { decodeSecretKey, type SecretKey } from '../config/secret-key.js';
import { newPushSubscription } from '../domain/push/new-subscription.js';
import { startReceiver, type Receiver } from '../../scripts/receiver/receiver.js';
import { noKeyWarning } from './push-in-start.js';
import { trialReceiver } from './start-examples.js';

const env = testEnvironment();
const names = uniqueNames('start-command');
// `ossn start` keeps the demo password under .stack/ of its working directory.
const cwd = mkdtempSync(join(tmpdir(), 'ossn-start-'));
let mongo: MongoClient;
let ossn: OssnProcess | undefined;
let receiver: Receiver | undefined;
const secretKey = randomBytes(32).toString('base64');

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'start-command-test');
});

afterAll(async () => {
  ossn?.child.kill('SIGKILL');
  await receiver?.close();
  await mongo?.db(names.database).dropDatabase();
  await mongo?.close();
  rmSync(cwd, { recursive: true, force: true });
});

const variables = {
  KAFKA_BROKERS: env.kafkaBrokers.join(','),
  MONGODB_URI: env.mongodbUri,
  MONGODB_DATABASE: names.database,
  REDIS_URL: env.redisUrl,
  OSSN_TOPIC: names.topic,
  OSSN_TOPIC_PARTITIONS: '2',
  OSSN_CONSUMER_GROUP: `${names.group}-v1`,
  PORT: '0',
  OPS_PORT: '0',
  OSSN_METRICS_PORT: '0',
  OSSN_PUSHER_METRICS_PORT: '0',
};

it('serves the projector metrics and probes, pushes as its banner says, follows ossn replay to the new version, and stops on one Ctrl-C', { timeout: 300_000 }, async () => {
  // A port of its own (not 0), so that the printed examples' URLs reach it.
  ossn = startOssn(['start'], { ...variables, PORT: String(await freePort()), OSSN_SECRET_KEY: secretKey }, { cwd });
  const { child, output, exit } = ossn;

  // Ready once it prints its examples, which end with how to stop it.
  await expect.poll(output, { timeout: 240_000, interval: 200 }).toContain('Ctrl-C stops everything.');
  const operators = /projector +(http:\S+)\n +query service +(http:\S+)/.exec(output());
  expect(operators, output()).not.toBeNull();
  const [, projectorUrl, queryOpsUrl] = operators!;
  // Kafka's normal start-up transients on a new topic (its leaders being elected, the group's
  // coordinator loading) print no JSON log lines in the terminal: the examples are all there is.
  const beforeExamples = output().slice(0, output().indexOf('ossn is running at'));
  expect(beforeExamples.split('\n').filter((line) => line.startsWith('{')), beforeExamples).toEqual([]);
  expect(projectorUrl).not.toBe(queryOpsUrl);
  const scrape = async () => (await fetch(`${projectorUrl}/metrics`)).text();

  // Caught up with the demo data set it published: the projector's own metrics say so.
  expect((await fetch(`${projectorUrl}/healthz`)).status).toBe(200);
  await expect.poll(async () => (await fetch(`${projectorUrl}/readyz`)).status, { timeout: 30_000, interval: 200 }).toBe(200);
  const demo = await readModelCollections(mongo.db(names.database), 1).orderStatus.countDocuments();
  expect(demo).toBeGreaterThan(0);
  expect(sample(await scrape(), 'ossn_projector_events_applied_total')).toBeGreaterThan(0);
  expect(sample(await scrape(), 'ossn_projector_read_model_version')).toBe(1);
  expect(await (await fetch(`${queryOpsUrl}/metrics`)).text()).toContain('ossn_query_requests_total');

  // The printed OpenAPI links answer the descriptions of both JSON versions.
  const openapi = [...output().matchAll(/^ +(http:\S+\/openapi\.json)$/gm)].map((m) => m[1]!);
  expect(openapi.map((url) => new URL(url).pathname)).toEqual(['/api/partners/v1/openapi.json', '/api/partners/v2/openapi.json']);
  for (const url of openapi) expect((await (await fetch(url)).json()) as { openapi: string }).toMatchObject({ openapi: '3.1.0' });

  // The printed polling examples answer: queryType 3 of status and shipments since the start.
  const polls = [...output().matchAll(/curl -s -u '([^':]+):([^']+)' '([^']+queryType=3&[^']*)'/g)];
  expect(polls.map((m) => new URL(m[3]!).pathname), output()).toEqual(['/api/partners/v1/orders/status', '/api/partners/v1/orders/shipments']);
  for (const [, pollUser, pollPassword, pollUrl] of polls) {
    const answer = await fetch(pollUrl!, { headers: { authorization: `Basic ${Buffer.from(`${pollUser}:${pollPassword}`).toString('base64')}` } });
    expect(answer.status, await answer.clone().text()).toBe(200);
    expect(Object.keys((await answer.json()) as object)).toEqual([pollUrl!.includes('/shipments') ? 'shipments' : 'orders']);
  }

  // The printed 2.0.0 example shows a full answer: the demo data's issues, product lines and contacts.
  const v2Example = /curl -s -u '([^':]+):([^']+)' '([^']+\/v2\/orders\/status[^']*)'/.exec(output());
  expect(v2Example, output()).not.toBeNull();
  const [, user, password, v2Url] = v2Example!;
  const v2Answer = await fetch(v2Url!, { headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` } });
  const v2Body = await v2Answer.text();
  expect(v2Answer.status, v2Body).toBe(200);
  for (const part of ['"IssueArray"', '"ProductArray"', '"OrderContactArray"']) expect(v2Body).toContain(part);

  // The printed way to try push, run as printed but at this test's receiver (8090 may be taken
  // here): the pusher starts in this process once the subscription is there, and sends the demo's
  // shipments (--from as printed) to the receiver.
  receiver = await startReceiver({ login: { id: trialReceiver.id } });
  const printed = /^ {2}echo \| (.*) npx ossn (push add .*)$/m.exec(output());
  expect(printed, output()).not.toBeNull();
  expect(printed![1]).toBe(`MONGODB_URI='${env.mongodbUri}' MONGODB_DATABASE=${names.database}`);
  const args = printed![2]!.split(' ').map((arg) => (arg === trialReceiver.url ? receiver!.url : arg));
  expect(args).toContain(receiver.url);
  const added = await runOssn(args, { ...variables, OSSN_SECRET_KEY: secretKey, LOG_LEVEL: 'warn' }, { input: '\n' });
  expect(added.code, added.stdout + added.stderr).toBe(0);
  await expect.poll(output, { timeout: 30_000, interval: 200 }).toContain('a push subscription exists: the pusher runs in this process');
  await expect.poll(() => receiver!.accepted.length, { timeout: 60_000, interval: 200 }).toBeGreaterThan(0);
  const pusherUrl = /the pusher runs in this process \(metrics and probes at (http:\S+)\)/.exec(output())![1];
  expect(pusherUrl).not.toBe(projectorUrl);
  expect(await (await fetch(`${pusherUrl}/metrics`)).text()).toContain('ossn_pusher_attempts_total');

  // ossn replay rebuilds version 2 and switches to it: the projector follows.
  const replayed = await runOssn(['replay'], { ...variables, LOG_LEVEL: 'warn' }, { timeoutMs: 180_000 });
  expect(replayed.code, replayed.stdout + replayed.stderr).toBe(0);
  expect(replayed.stdout).toContain('version 2 is active since');
  await expect.poll(async () => sample(await scrape(), 'ossn_projector_read_model_version'), { timeout: 30_000, interval: 200 }).toBe(2);

  // An event published after the switch lands in version 2 only.
  const event = { ...statusChanged(1, { purchaseOrderNumber: 'PO-AFTER-SWITCH', statusId: 20 }), clientId: 'CLIENT-001', salesOrderNumber: 'SO-AFTER-SWITCH' };
  const producer = await connectProducer(createKafka(env.kafkaBrokers, 'start-command-test', createLogger('test', 'silent')));
  try {
    await producer.send(names.topic, [{ key: eventKey(event.clientId, event.salesOrderNumber), value: JSON.stringify(event) }]);
  } finally {
    await producer.close();
  }
  const id = eventKey(event.clientId, event.salesOrderNumber);
  const v2 = readModelCollections(mongo.db(names.database), 2);
  await expect.poll(() => v2.orderStatus.countDocuments({ _id: id }), { timeout: 30_000, interval: 200 }).toBe(1);
  expect(await readModelCollections(mongo.db(names.database), 1).orderStatus.countDocuments({ _id: id })).toBe(0);
  await expect.poll(async () => (await fetch(`${projectorUrl}/readyz`)).status, { timeout: 30_000, interval: 200 }).toBe(200);

  const sentAt = Date.now();
  child.kill('SIGINT');
  expect(await exit).toBe(0);
  expect(Date.now() - sentAt).toBeLessThan(15_000);
  expect(output()).toContain('stopping…');
});

it('without a secret key, leaves a push subscription unpushed with a warning, and serves; its banner says how to make a key', { timeout: 180_000 }, async () => {
  // On the data the test above published (caught up at once); a subscription of its own, to nowhere.
  const key = (decodeSecretKey(secretKey) as { key: SecretKey }).key;
  await new MongoPushSubscriptions(pushSubscriptionsCollection(mongo.db(names.database))).add(
    newPushSubscription({ credentialId: 'demo', url: 'http://127.0.0.1:1/nowhere', receiverId: 'ossn' }, { key, now: new Date() }),
  );
  ossn = startOssn(['start'], variables, { cwd });
  const { child, output, exit } = ossn;
  await expect.poll(output, { timeout: 120_000, interval: 200 }).toContain('Ctrl-C stops everything.');
  expect(output()).toContain(`${noKeyWarning}\n`);
  expect(output()).toContain('  export OSSN_SECRET_KEY="$(openssl rand -base64 32)"\n');
  expect(output()).not.toMatch(/^ {2}pusher /m);
  child.kill('SIGINT');
  expect(await exit).toBe(0);
});

it('refuses ports that clash before it starts anything', async () => {
  const clash = await runOssn(['start'], { ...variables, OPS_PORT: '19465', OSSN_METRICS_PORT: '19465' }, { timeoutMs: 60_000 });
  expect(clash.code).toBe(2);
  expect(clash.stderr).toContain('OPS_PORT (query service metrics and probes) and OSSN_METRICS_PORT (projector metrics and probes) are both 19465');
  // The pusher's port too, when it may run (a key given).
  const pusherClash = await runOssn(['start'], { ...variables, OSSN_SECRET_KEY: secretKey, OPS_PORT: '19466', OSSN_PUSHER_METRICS_PORT: '19466' }, { timeoutMs: 60_000 });
  expect(pusherClash.code).toBe(2);
  expect(pusherClash.stderr).toContain('OPS_PORT (query service metrics and probes) and OSSN_PUSHER_METRICS_PORT (pusher metrics and probes) are both 19466');
});

it('stops on Ctrl-C while it is still starting (Kafka away): "stopping…", and out within seconds', { timeout: 60_000 }, async () => {
  const starting = startOssn(['start'], { ...variables, KAFKA_BROKERS: `127.0.0.1:${await freePort()}` }, { cwd });
  // It waits on Kafka (kafkajs retries for half a minute before the start fails): Ctrl-C once it
  // says so, not after a fixed time that a loaded machine's start can outlast (the signal would
  // then come before the command listens for it).
  await expect.poll(() => starting.output(), { timeout: 30_000, interval: 100 }).toContain('ECONNREFUSED');
  const sentAt = Date.now();
  starting.child.kill('SIGINT');
  try {
    expect(await starting.exit).toBe(0);
  } finally {
    starting.child.kill('SIGKILL');
  }
  expect(Date.now() - sentAt).toBeLessThan(10_000);
  expect(starting.output()).toContain('stopping…');
});

it('stops what it started and exits 1 when its start fails after the projector started (the query port taken)', { timeout: 120_000 }, async () => {
  const own = uniqueNames('start-command-fails');
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, resolve));
  const port = (taken.address() as AddressInfo).port;
  try {
    const failing = startOssn(
      ['start'],
      {
        ...variables,
        MONGODB_DATABASE: own.database,
        OSSN_TOPIC: own.topic,
        OSSN_CONSUMER_GROUP: `${own.group}-v1`,
        PORT: String(port),
        OSSN_STOP_TIMEOUT_MS: '5000',
      },
      { cwd },
    );
    const ended = await Promise.race([failing.exit, new Promise((resolve) => setTimeout(() => resolve('still running'), 90_000))]);
    failing.child.kill('SIGKILL');
    expect(ended, failing.output()).toBe(1);
    expect(failing.output()).toContain('EADDRINUSE');
    expect(failing.output()).toContain('stopping…');
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});
