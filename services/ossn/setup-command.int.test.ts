import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runOssn } from '../../test/support/ossn-cli.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { CachingAuthenticator } from '../domain/credentials/authenticator.js';
import { CredentialStore, credentialsCollection } from '../adapters/mongodb/credential-store.js';
import { connectMongo } from '../adapters/mongodb/connect.js';

// `ossn setup`, as docker-compose runs it on every `up`: the push indexes with the rest, the demo
// credential only when asked, and an existing one never changed (a disabled demo credential stays
// disabled).

const env = testEnvironment();
const names = uniqueNames('setup-command');
let mongo: MongoClient;
let store: CredentialStore;

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'setup-command-test');
  store = new CredentialStore(credentialsCollection(mongo.db(names.database)));
});
afterAll(async () => {
  await mongo.db(names.database).dropDatabase();
  await mongo.close();
});

function setup(args: string[], demoPassword?: string) {
  return runOssn(['setup', ...args], {
    KAFKA_BROKERS: env.kafkaBrokers.join(','),
    MONGODB_URI: env.mongodbUri,
    MONGODB_DATABASE: names.database,
    OSSN_TOPIC: names.topic,
    OSSN_TOPIC_PARTITIONS: '1',
    LOG_LEVEL: 'silent',
    OSSN_DEMO_PASSWORD: demoPassword ?? '',
  });
}

const verify = (password: string) => new CachingAuthenticator(store).verify('demo', password);

it('refuses a demo password shorter than partners\' passwords may be, before anything is made, naming the variable and not the password', async () => {
  const run = await setup(['--demo'], 'demo1234');
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain('OSSN_DEMO_PASSWORD');
  expect(run.stderr).toContain('16');
  expect(`${run.stdout}${run.stderr}`).not.toContain('demo1234');
  expect(await store.find('demo')).toBeNull();
});

it('creates the push indexes; no demo credential unless asked; with --demo creates it once and never changes it again', async () => {
  // One broker in the test stack: the brokers' defaults, said in one line with the broker that answered.
  expect(await setup([])).toEqual({
    code: 0,
    stdout: `created ${names.topic} and ${names.topic}.dlq with 1 partition and the brokers' default replication: only 1 broker answered (node 1 at ${env.kafkaBrokers[0]}), and 3 or more get replication factor 3; if the cluster has more, rerun ossn setup once all answer: it warns of a topic with fewer replicas than 3 (ossn does not reassign partitions)\ntopics and indexes ready\n`,
    stderr: '',
  });
  expect(await store.find('demo')).toBeNull();
  // The push indexes, and the delivery log capped, before any pusher has run.
  const db = mongo.db(names.database);
  expect((await db.collection('push_subscriptions').indexes()).map((index) => index.name)).toContain('one_per_credential_client_url');
  expect((await db.collection('push_deliveries').indexes()).map((index) => index.name)).toContain('due_by_subscription');
  expect(await db.collection('push_delivery_log').isCapped()).toBe(true);

  const first = await setup(['--demo'], 'first-demo-password');
  expect(first).toMatchObject({ code: 0, stderr: '' });
  expect(first.stdout).toContain('demo credential "demo" created');
  expect((await verify('first-demo-password'))?.clientIds).toEqual(['CLIENT-001', 'CLIENT-002']);

  // An operator disables it; the next `up` (setup --demo again, even with another password) leaves it so.
  await store.setActive('demo', false);
  const again = await setup(['--demo'], 'second-demo-password');
  expect(again.stdout).toContain('demo credential "demo" exists already: left as it is');
  expect(again.stdout).not.toContain('second-demo-password');
  expect(await verify('second-demo-password')).toBeUndefined();
  expect(await verify('first-demo-password')).toBeUndefined();
  expect((await store.find('demo'))?.active).toBe(false);
});

it('refuses an unknown argument in one line pointing at its help', async () => {
  const run = await setup(['--demo-please']);
  expect(run).toMatchObject({ code: 2, stdout: '', stderr: 'ossn setup: unknown option --demo-please (see ossn setup --help)\n' });
  expect((await setup(['--help'])).stdout).toContain('usage: ossn setup [--demo]');
});
