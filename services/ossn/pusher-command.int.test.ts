// `ossn pusher` as it is deployed: ready once the store answers, stopped by the first SIGTERM with
// its leases let go (another pusher takes its subscriptions at once), also while MongoDB is away;
// a port already taken and a missing key end it with a clear line and its exit code.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOssn, type OssnProcess } from '../../test/support/ossn-cli.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection } from '../adapters/mongodb/push-subscriptions.js';
import { pushCursorsCollection } from '../adapters/mongodb/push-cursors.js';
import { SecretKey } from '../config/secret-key.js';
import { newPushSubscription } from '../domain/push/new-subscription.js';

const env = testEnvironment();
const keyBytes = randomBytes(32);
const names = uniqueNames('pusher-command');
let mongo: MongoClient;

beforeAll(async () => {
  mongo = await MongoClient.connect(env.mongodbUri);
  const subscription = newPushSubscription({ credentialId: 'partner', url: 'http://127.0.0.1:9/osn', receiverId: 'ossn' }, { key: new SecretKey(keyBytes), now: new Date() });
  await new MongoPushSubscriptions(pushSubscriptionsCollection(mongo.db(names.database))).add(subscription);
});
afterAll(async () => mongo?.close());

const pusherEnv = (overrides: Record<string, string> = {}) => ({
  MONGODB_URI: env.mongodbUri,
  MONGODB_DATABASE: names.database,
  OSSN_SECRET_KEY: keyBytes.toString('base64'),
  OSSN_PUSHER_METRICS_PORT: '0',
  OSSN_PUSH_LEASE_TTL_MS: '60000',
  LOG_LEVEL: 'info',
  ...overrides,
});

const opsUrl = (pusher: OssnProcess) => /"url":"(http:\/\/[^"]+)".*pusher metrics and probes listening/.exec(pusher.output())?.[1];

it('is ready once the store answers, works the subscription, and on SIGTERM exits 0 having let its lease go', { timeout: 60_000 }, async () => {
  const pusher = startOssn(['pusher'], pusherEnv());
  try {
    await expect.poll(() => opsUrl(pusher), { timeout: 30_000, interval: 100 }).toBeDefined();
    await expect.poll(async () => (await fetch(`${opsUrl(pusher)}/readyz`)).status, { timeout: 30_000, interval: 200 }).toBe(200);
    await expect.poll(pusher.output, { timeout: 30_000, interval: 100 }).toContain('working push subscription');
    const cursors = pushCursorsCollection(mongo.db(names.database));
    expect((await cursors.findOne({}))?.owner).toBeDefined();
    pusher.child.kill('SIGTERM');
    expect(await pusher.exit).toBe(0);
    expect((await cursors.findOne({}))?.owner).toBeUndefined();
  } finally {
    pusher.child.kill('SIGKILL');
  }
});

it('stops on SIGTERM with exit code 0 while MongoDB does not answer', { timeout: 60_000 }, async () => {
  const pusher = startOssn(['pusher'], pusherEnv({ MONGODB_URI: 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=500' }));
  try {
    await expect.poll(pusher.output, { timeout: 30_000, interval: 100 }).toContain('pusher metrics and probes listening');
    expect((await fetch(`${opsUrl(pusher)}/readyz`)).status).toBe(503);
    const stoppedAt = Date.now();
    pusher.child.kill('SIGTERM');
    expect(await pusher.exit).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
  } finally {
    pusher.child.kill('SIGKILL');
  }
});

it('ends with exit code 1 naming the variable when its metrics port is taken', { timeout: 60_000 }, async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as { port: number }).port;
  try {
    const pusher = startOssn(['pusher'], pusherEnv({ OSSN_PUSHER_METRICS_PORT: String(port) }));
    expect(await pusher.exit).toBe(1);
    expect(pusher.output()).toContain(`OSSN_PUSHER_METRICS_PORT=${port}`);
  } finally {
    taken.close();
  }
});

it('refuses to start without the secret key, with exit code 2', { timeout: 30_000 }, async () => {
  const pusher = startOssn(['pusher'], { ...pusherEnv(), OSSN_SECRET_KEY: '' });
  expect(await pusher.exit).toBe(2);
  expect(pusher.output()).toContain('OSSN_SECRET_KEY is required');
});
