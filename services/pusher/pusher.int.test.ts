// The pusher against real servers (Kafka, MongoDB) and the trial receiver built from the official
// 2.1.0 WSDL: each purchase order with news is sent as its whole picture, newer news is sent after,
// a receiver that fails is retried until it heals (at its back-off, not the next poll), a second
// pusher on the same database works no subscription twice, a quiet round reads little (the
// credentials once a poll interval for all), a credential made inactive stops the pushing, and no
// log line at any level holds the receiver's password.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { CredentialStore, credentialsCollection } from '../adapters/mongodb/credential-store.js';
import { forgetPushSubscription } from '../adapters/mongodb/forget-push-subscription.js';
import { pushCursorsCollection } from '../adapters/mongodb/push-cursors.js';
import { MongoPushDeliveries, pushDeliveriesCollectionName } from '../adapters/mongodb/push-deliveries.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection } from '../adapters/mongodb/push-subscriptions.js';
import type { PusherConfig } from '../config/config.js';
import { SecretKey } from '../config/secret-key.js';
import { newPushSubscription } from '../domain/push/new-subscription.js';
import { ReceiverPassword } from '../domain/push/receiver-password.js';
import { createLogger } from '../plumbing/logging/logger.js';
import { startReceiver, type Behaviour, type Receiver } from '../../scripts/receiver/receiver.js';
import { locationRecorded, packageShipped, statusChanged } from '../../test/fixtures/sample-events.js';
import { logLines } from '../../test/support/log-lines.js';
import { freshProjectorConfig, projectUntilCaughtUp, publishEvents, useConnections } from '../../test/support/projector-system.js';
import { startPusher, type RunningPusher } from './start-pusher.js';

const connections = useConnections('pusher');
const RECEIVER_PASSWORD = 'pw-Rc7-never-logged';

const so = (salesOrderNumber: string, event: ErpEvent): ErpEvent => ({ ...event, salesOrderNumber, eventId: `${event.eventId.slice(0, 24)}${salesOrderNumber.replace(/\D/g, '').padStart(4, '0')}${event.eventId.slice(28)}` });

const orderWithPackage = (salesOrderNumber: string, purchaseOrderNumber: string): ErpEvent[] => [
  so(salesOrderNumber, statusChanged(1, { purchaseOrderNumber, statusId: 60 })),
  so(salesOrderNumber, locationRecorded(2, 1)),
  so(salesOrderNumber, packageShipped(3, 1, 1)),
];

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.close();
});

async function setUp(behaviour: (n: number) => Behaviour = () => 'accept', level: 'debug' | 'trace' = 'debug', url?: string, overrides: Partial<PusherConfig> = {}) {
  const { config } = await freshProjectorConfig(connections.kafka, 'pusher');
  const db = connections.mongo.db(config.store.database);
  await new CredentialStore(credentialsCollection(db)).add({ id: 'partner', passwordHash: 'x', scopes: ['osn'], clientIds: ['C1'] });
  const receiver: Receiver = await startReceiver({ login: { id: 'ossn-supplier', password: RECEIVER_PASSWORD }, behaviour, slowMs: 200 });
  running.push(receiver);
  const key = new SecretKey(randomBytes(32));
  const subscription = newPushSubscription(
    { credentialId: 'partner', url: url ?? receiver.url, receiverId: 'ossn-supplier', cursorStart: new Date(Date.now() - 60_000) },
    { key, now: new Date(), password: new ReceiverPassword(RECEIVER_PASSWORD) },
  );
  await new MongoPushSubscriptions(pushSubscriptionsCollection(db)).add(subscription);
  const pusherConfig: PusherConfig = {
    logLevel: level,
    store: config.store,
    secretKey: key,
    pollIntervalMs: 200,
    leaseTtlMs: 6_000,
    sendTimeoutMs: 2_000,
    maxAgeMs: 3_600_000,
    retryBaseMs: 50,
    circuitCoolDownMs: 300,
    requestsPerReceiver: 4,
    storeTimeoutMs: 5_000,
    metricsHost: '127.0.0.1',
    metricsPort: 0,
    stopTimeoutMs: 5_000,
    ...overrides,
  };
  const logs = logLines();
  const logger = createLogger('pusher-test', level, logs);
  const publish = async (events: ErpEvent[]) => {
    await publishEvents(connections.producer, config.topic, events);
    await projectUntilCaughtUp(connections, config);
  };
  const start = async (): Promise<RunningPusher> => {
    const pusher = await startPusher(pusherConfig, logger);
    running.push(pusher);
    return pusher;
  };
  return { db, key, receiver, subscription, publish, start, logs, deliveries: MongoPushDeliveries.of(db) };
}

/** The packages each accepted notification of `po` carried, in the order accepted. */
const packagesOf = (receiver: Receiver, po: string) =>
  receiver.accepted.filter((a) => a.notification['purchaseOrderNumber'] === po).map((a) => JSON.stringify(a.notification).match(/"trackingNumber":"[^"]+"/g)?.length ?? 0);

async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000, logs?: { raw: string[] }): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${logs ? `; the pusher's last log lines:\n${logs.raw.slice(-6).map((line) => line.slice(0, 400)).join('\n')}` : ''}`);
    await sleep(100);
  }
}

/** `count` more subscriptions to the same receiver, each of its own credential linked to C1; their ids. */
async function moreSubscriptions(t: Awaited<ReturnType<typeof setUp>>, count: number): Promise<string[]> {
  const store = new MongoPushSubscriptions(pushSubscriptionsCollection(t.db));
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    await new CredentialStore(credentialsCollection(t.db)).add({ id: `partner-${i}`, passwordHash: 'x', scopes: ['osn'], clientIds: ['C1'] });
    const subscription = newPushSubscription(
      { credentialId: `partner-${i}`, url: t.receiver.url, receiverId: 'ossn-supplier', cursorStart: new Date() },
      { key: t.key, now: new Date(), password: new ReceiverPassword(RECEIVER_PASSWORD) },
    );
    await store.add(subscription);
    ids.push(subscription.id);
  }
  return ids;
}

/** The server's counts of finds and updates on these collections of `db` (the top command), summed since it started. */
async function operationCounts(db: Db, collections: string[]): Promise<Record<string, { finds: number; updates: number }>> {
  const top = (await db.admin().command({ top: 1 })) as { totals: Record<string, { queries?: { count: number }; update?: { count: number } }> };
  return Object.fromEntries(
    collections.map((name) => {
      const totals = top.totals[`${db.databaseName}.${name}`];
      return [name, { finds: totals?.queries?.count ?? 0, updates: totals?.update?.count ?? 0 }];
    }),
  );
}

describe('ossn pusher', () => {
  it('sends each purchase order with news as its whole picture, and the newer picture after more news', async () => {
    const t = await setUp();
    await t.publish([...orderWithPackage('SO-1', 'PO-A'), ...orderWithPackage('SO-2', 'PO-B')]);
    await t.start();
    await until('both purchase orders', () => packagesOf(t.receiver, 'PO-A').length > 0 && packagesOf(t.receiver, 'PO-B').length > 0, 30_000, t.logs);
    expect(packagesOf(t.receiver, 'PO-A')).toEqual([1]);

    await t.publish([so('SO-1', packageShipped(4, 1, 2))]);
    await until('the newer picture of PO-A', () => packagesOf(t.receiver, 'PO-A').at(-1) === 2);
    // Sent once per news: no older picture after it, and PO-B not sent again for PO-A's news.
    await sleep(1_000);
    expect(packagesOf(t.receiver, 'PO-A')).toEqual([1, 2]);
    expect(packagesOf(t.receiver, 'PO-B')).toEqual([1]);
    // The delivery log keeps the transactionId the receiver answered.
    const log = await t.deliveries.attemptsOf(t.subscription.id, 'PO-A');
    expect(log.filter((a) => a.outcome === 'acknowledged').map((a) => a.transactionId)).toEqual(
      t.receiver.accepted.filter((a) => a.notification['purchaseOrderNumber'] === 'PO-A').map((a) => a.transactionId),
    );
  });

  it('retries a receiver that answers 503, with an Error or not at all, until it accepts', async () => {
    const failing: Behaviour[] = ['unavailable', 'error-message', 'no-answer'];
    const t = await setUp((n) => failing[n - 1] ?? 'accept');
    await t.publish(orderWithPackage('SO-1', 'PO-A'));
    await t.start();
    await until('PO-A accepted after the failures', () => packagesOf(t.receiver, 'PO-A').length > 0, 60_000);
    let outcomes: string[] = [];
    await until('the acknowledgement logged', async () => {
      outcomes = (await t.deliveries.attemptsOf(t.subscription.id, 'PO-A')).map((a) => a.outcome);
      return outcomes.includes('acknowledged');
    });
    expect(outcomes).toEqual(['transient', 'refused', 'transient', 'acknowledged']);
  });

  it('retries a delivery when its back-off ends, long before the next poll', async () => {
    const t = await setUp((n) => (n === 1 ? 'unavailable' : 'accept'), 'debug', undefined, { pollIntervalMs: 10_000 });
    await t.publish(orderWithPackage('SO-1', 'PO-A'));
    await t.start();
    await until('the first request', () => t.receiver.requests > 0, 30_000, t.logs);
    const firstAt = Date.now();
    await until('PO-A accepted', () => packagesOf(t.receiver, 'PO-A').length > 0, 30_000, t.logs);
    // The back-off is at most 100 ms here (OSSN_PUSH_RETRY_BASE_MS 50); the next poll is 10 s on.
    expect(Date.now() - firstAt).toBeLessThan(5_000);
  });

  it('parks a delivery the receiver keeps failing once the maximum age has passed, and sends it no more', async () => {
    const t = await setUp(() => 'unavailable', 'debug', undefined, { maxAgeMs: 3_000 });
    await t.publish(orderWithPackage('SO-1', 'PO-A'));
    await t.start();
    const parked = await until('PO-A parked', async () => (await t.deliveries.parked(t.subscription.id)).find((d) => d.purchaseOrderNumber === 'PO-A'), 30_000, t.logs);
    expect(parked.parkedReason).toMatch(/^not delivered: .*maximum age/);
    const firstRequest = t.receiver.requestedAt[0]!.getTime();
    expect(t.receiver.requestedAt.at(-1)!.getTime() - firstRequest).toBeLessThanOrEqual(3_000 + 1_000); // none after the age, but one a Retry-After's second before it
    const sent = t.receiver.requests;
    await sleep(2_000);
    expect(t.receiver.requests).toBe(sent);
    expect(t.receiver.accepted).toEqual([]);
  });

  it('stops sending to a receiver after 5 failures in a row, probes it after the cool-down, and doubles the cool-down when the probe fails', async () => {
    // One request at a time, so that each failure is counted before the next request goes.
    const t = await setUp((n) => (n <= 6 ? 'unavailable' : 'accept'), 'debug', undefined, { circuitCoolDownMs: 3_000, requestsPerReceiver: 1 });
    const orders = ['PO-A', 'PO-B', 'PO-C', 'PO-D', 'PO-E', 'PO-F', 'PO-G', 'PO-H'];
    await t.publish(orders.flatMap((po, i) => orderWithPackage(`SO-${i + 1}`, po)));
    await t.start();
    await until('every purchase order accepted', () => orders.every((po) => packagesOf(t.receiver, po).length > 0), 60_000, t.logs);
    const at = t.receiver.requestedAt.map((date) => date.getTime());
    // Without the circuit, the other purchase orders' deliveries (due at once) would follow each failure at once.
    expect(at[5]! - at[4]!).toBeGreaterThanOrEqual(3_000 - 20); // open after the 5th failure: the cool-down
    expect(at[6]! - at[5]!).toBeGreaterThanOrEqual(6_000 - 20); // the probe failed: twice the cool-down
    // The second probe was accepted and closed it: every purchase order after it went at its first try.
    expect(at.length).toBe(6 + orders.length);
  });

  it('leaves nothing of a subscription removed while it was worked (push remove), news of a poll under way included', async () => {
    const t = await setUp();
    const orders = ['PO-A', 'PO-B', 'PO-C'];
    await t.publish(orders.flatMap((po, i) => orderWithPackage(`SO-${i + 1}`, po)));
    const { pusher } = await t.start();
    await until('every purchase order accepted', () => orders.every((po) => packagesOf(t.receiver, po).length > 0), 30_000, t.logs);
    // What `ossn push remove` does, while the pusher polls every 200 ms (each poll finds the news of the last 5 s again).
    await new MongoPushSubscriptions(pushSubscriptionsCollection(t.db)).remove(t.subscription.id);
    await forgetPushSubscription(t.db, t.subscription.id);
    await until('the subscription no longer worked', () => pusher.worked.length === 0, 30_000, t.logs);
    const left = async () =>
      (await t.db.collection(pushDeliveriesCollectionName).countDocuments({ subscriptionId: t.subscription.id })) +
      (await t.db.collection(pushCursorsCollection(t.db).collectionName).countDocuments({ _id: t.subscription.id as never }));
    await until('nothing left of it', async () => (await left()) === 0, 10_000, t.logs);
    await sleep(1_000); // polls would have come meanwhile
    expect(await left()).toBe(0);
  });

  it('works a subscription in one pusher only when two run on the same database', async () => {
    const t = await setUp((n) => (n === 1 ? 'slow' : 'accept'));
    await t.publish(orderWithPackage('SO-1', 'PO-A'));
    const [first, second] = await Promise.all([t.start(), t.start()]);
    await until('PO-A accepted', () => packagesOf(t.receiver, 'PO-A').length > 0);
    await sleep(1_000);
    expect(first.pusher.worked.length + second.pusher.worked.length).toBe(1);
    expect(t.receiver.requests).toBe(1);
  });

  it('shares 40 subscriptions between two pushers started at once, each worked by exactly one of them', async () => {
    const t = await setUp();
    const ids = [t.subscription.id, ...(await moreSubscriptions(t, 39))];
    const [first, second] = await Promise.all([t.start(), t.start()]);
    const worked = () => [...first.pusher.worked, ...second.pusher.worked];
    await until('every subscription worked', () => worked().length >= 40, 30_000, t.logs);
    for (let i = 0; i < 5; i++) {
      expect(worked().sort()).toEqual([...ids].sort());
      await sleep(300);
    }
  });

  it('reads the deliveries once a round and the credentials once a poll interval for all its subscriptions', async () => {
    const t = await setUp();
    await moreSubscriptions(t, 19);
    const { pusher } = await t.start();
    await until('every subscription worked', () => pusher.worked.length === 20, 30_000, t.logs);
    await sleep(1_000);
    const names = ['credentials', 'push_deliveries', 'push_cursors'];
    const before = await operationCounts(t.db, names);
    await sleep(4_000);
    const after = await operationCounts(t.db, names);
    const delta = (name: string, kind: 'finds' | 'updates') => (after[name]?.[kind] ?? 0) - (before[name]?.[kind] ?? 0);
    // Each round moves its cursor (an update; a lease renewal, every 2 s, is one too): more
    // updates than rounds. Quiet rounds: no news, nothing due.
    const rounds = delta('push_cursors', 'updates');
    expect(rounds).toBeGreaterThan(40);
    expect(delta('push_deliveries', 'finds')).toBeLessThanOrEqual(rounds);
    // 20 subscriptions, a 200 ms poll interval, 4 s: about 20 reads, not one a round.
    expect(delta('credentials', 'finds')).toBeLessThanOrEqual(rounds / 4);
  });

  it('stops pushing for a credential made inactive within about a poll interval', async () => {
    const t = await setUp();
    await t.publish(orderWithPackage('SO-1', 'PO-A'));
    await t.start();
    await until('PO-A accepted', () => packagesOf(t.receiver, 'PO-A').length > 0, 30_000, t.logs);
    await new CredentialStore(credentialsCollection(t.db)).setActive('partner', false);
    await sleep(1_000); // five poll intervals
    await t.publish(orderWithPackage('SO-2', 'PO-B'));
    await sleep(3_000);
    expect(packagesOf(t.receiver, 'PO-B')).toEqual([]);
  });

  it('parks, sending nothing, a subscription whose URL the policy refuses now (stored plain http to another machine)', async () => {
    const t = await setUp(() => 'accept', 'debug', 'http://192.0.2.1/osn/2.1.0');
    await t.publish(orderWithPackage('SO-1', 'PO-A'));
    await t.start();
    const parked = await until('the delivery parked', async () => (await t.deliveries.parked(t.subscription.id))[0], 30_000, t.logs);
    expect(parked.parkedReason).toContain('must be https');
    expect(await t.deliveries.attemptsOf(t.subscription.id, 'PO-A')).toHaveLength(1);
  });

  it('writes no log line holding the receiver password, at trace level, whatever the receiver answers', async () => {
    const behaviours: Behaviour[] = ['error-message', 'unavailable', 'accept'];
    const t = await setUp((n) => behaviours[n - 1] ?? 'accept', 'trace');
    await t.publish(orderWithPackage('SO-1', 'PO-A'));
    await t.start();
    await until('PO-A accepted', () => packagesOf(t.receiver, 'PO-A').length > 0, 60_000);
    expect(t.logs.lines.some((line) => line.level === 10)).toBe(true);
    expect(t.logs.raw.join('')).not.toContain(RECEIVER_PASSWORD);
  });
});
