// The push deliveries against a real MongoDB: news makes a delivery pending (a parked one stays
// parked, a back-off is kept), a delivery done while newer news came stays pending, settled ones
// carry the time they are forgotten by, and the operator's redeliver makes parked ones due.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, type Db } from 'mongodb';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { deliveryId, MongoPushDeliveries, type AttemptRecord } from './push-deliveries.js';

let mongo: MongoClient;
let db: Db;
beforeAll(async () => {
  mongo = await MongoClient.connect(testEnvironment().mongodbUri);
  db = mongo.db(uniqueNames('push-deliveries').database);
});
afterAll(async () => mongo?.close());

const t0 = new Date('2026-12-01T10:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const attempt = (news: number, outcome: AttemptRecord['outcome'], seconds = 1): AttemptRecord => ({ at: at(seconds), outcome, news, durationMs: 5 });

let n = 0;
async function fresh() {
  const deliveries = new MongoPushDeliveries(db.collection(`deliveries_${++n}`), db.collection(`log_${n}`));
  await deliveries.ensureIndexes();
  const get = async (po = 'PO-1') => (await db.collection(`deliveries_${n}`).findOne({ _id: deliveryId('ps-1', 'C1', po) as never })) as unknown as Awaited<ReturnType<MongoPushDeliveries['due']>>[number];
  return { deliveries, get };
}

describe('push deliveries', () => {
  it('records news once per purchase order, pending and due at once, its news waiting since then', async () => {
    const { deliveries, get } = await fresh();
    await deliveries.recordNews('ps-1', 'C1', ['PO-1', 'PO-1', 'PO-2'], t0);
    expect(await get()).toMatchObject({ state: 'pending', news: 1, dueAt: t0, newsSince: t0, attempts: 0 });
    expect((await deliveries.due('ps-1', t0, 10)).map((d) => d.purchaseOrderNumber).sort()).toEqual(['PO-1', 'PO-2']);
  });

  it('keeps a pending delivery\'s back-off and its oldest news when more news comes', async () => {
    const { deliveries, get } = await fresh();
    await deliveries.recordNews('ps-1', 'C1', ['PO-1'], t0);
    await deliveries.attempted(await get(), attempt(1, 'transient'), { retryAt: at(60) });
    await deliveries.recordNews('ps-1', 'C1', ['PO-1'], at(5));
    expect(await get()).toMatchObject({ state: 'pending', news: 2, dueAt: at(60), newsSince: t0, attempts: 1, firstAttemptAt: at(1) });
  });

  it('leaves a parked delivery parked when news comes, its news counted, until it is redelivered', async () => {
    const { deliveries, get } = await fresh();
    await deliveries.recordNews('ps-1', 'C1', ['PO-1'], t0);
    await deliveries.attempted(await get(), attempt(1, 'refused'), { park: 'refused 3 times' });
    await deliveries.recordNews('ps-1', 'C1', ['PO-1'], at(5));
    expect(await get()).toMatchObject({ state: 'parked', news: 2, parkedReason: 'refused 3 times' });
    expect((await deliveries.parked('ps-1')).map((d) => d.purchaseOrderNumber)).toEqual(['PO-1']);
    expect(await deliveries.redeliver('ps-1')).toBe(1);
    const redelivered = await get();
    expect(redelivered).toMatchObject({ state: 'pending', attempts: 0, refusals: 0 });
    expect(redelivered).not.toHaveProperty('parkedReason');
  });

  it('settles a delivery whose picture was read at the latest news, and keeps one pending when newer news came during the send', async () => {
    const { deliveries, get } = await fresh();
    await deliveries.recordNews('ps-1', 'C1', ['PO-1'], t0);
    const read = await get();
    await deliveries.recordNews('ps-1', 'C1', ['PO-1'], at(2)); // while the request is in flight
    await deliveries.attempted(read, attempt(1, 'acknowledged', 3), { done: 'delivered', digest: 'd1' });
    const pending = await get();
    expect(pending).toMatchObject({ state: 'pending', dueAt: at(3), newsSince: at(2), sentDigest: 'd1' });
    expect(pending).not.toHaveProperty('settledAt');
    await deliveries.attempted(pending, attempt(2, 'acknowledged', 4), { done: 'delivered', digest: 'd2' });
    const settled = await get();
    expect(settled).toMatchObject({ state: 'delivered', sentDigest: 'd2', settledAt: at(4), deliveredAt: at(4) });
    expect(settled).not.toHaveProperty('newsSince');
    // News again: pending, no longer forgotten by its settled time.
    await deliveries.recordNews('ps-1', 'C1', ['PO-1'], at(9));
    expect(await get()).not.toHaveProperty('settledAt');
    expect((await deliveries.attemptsOf('ps-1', 'PO-1')).map((a) => a.news)).toEqual([1, 2]);
  });

  it('settles an unchanged picture without logging an attempt, unless newer news came', async () => {
    const { deliveries, get } = await fresh();
    await deliveries.recordNews('ps-1', 'C1', ['PO-1'], t0);
    const read = await get();
    await deliveries.unchanged(read, at(1));
    expect(await get()).toMatchObject({ state: 'delivered', settledAt: at(1) });
    await deliveries.recordNews('ps-1', 'C1', ['PO-1'], at(2));
    const again = await get();
    await deliveries.recordNews('ps-1', 'C1', ['PO-1'], at(3));
    await deliveries.unchanged(again, at(4));
    expect(await get()).toMatchObject({ state: 'pending', dueAt: at(4) });
    expect(await deliveries.attemptsOf('ps-1', 'PO-1')).toEqual([]);
  });

  it('sums up each subscription: pending, parked, delivered and its oldest waiting news', async () => {
    const { deliveries, get } = await fresh();
    await deliveries.recordNews('ps-1', 'C1', ['PO-1', 'PO-2', 'PO-3'], t0);
    await deliveries.attempted(await get('PO-2'), attempt(1, 'acknowledged'), { done: 'delivered', digest: 'd' });
    await deliveries.attempted(await get('PO-3'), attempt(1, 'refused'), { park: 'no' });
    expect(await deliveries.summaries()).toEqual([{ subscriptionId: 'ps-1', pending: 1, parked: 1, delivered: 1, oldestWaitingNews: t0 }]);
  });

  it('counts the waiting deliveries for the gauges from an index, reading none of the settled ones', async () => {
    const { deliveries, get } = await fresh();
    const settled = Array.from({ length: 300 }, (_, i) => `PO-S${i}`);
    await deliveries.recordNews('ps-1', 'C1', [...settled, 'PO-1', 'PO-2'], t0);
    await deliveries.recordNews('ps-2', 'C1', ['PO-9'], at(3));
    await db.collection(`deliveries_${n}`).updateMany({ purchaseOrderNumber: { $in: settled } }, { $set: { state: 'delivered', settledAt: t0 }, $unset: { newsSince: '' } });
    await deliveries.attempted(await get('PO-2'), attempt(1, 'refused'), { park: 'no' });
    await db.command({ profile: 2 });
    try {
      const waiting = await deliveries.waiting();
      expect(waiting.sort((a, b) => a.subscriptionId.localeCompare(b.subscriptionId))).toEqual([
        { subscriptionId: 'ps-1', pending: 1, parked: 1, oldestWaitingNews: t0 },
        { subscriptionId: 'ps-2', pending: 1, parked: 0, oldestWaitingNews: at(3) },
      ]);
    } finally {
      await db.command({ profile: 0 });
    }
    const [read] = await db.collection('system.profile').find({ ns: `${db.databaseName}.deliveries_${n}`, op: 'command', 'command.aggregate': `deliveries_${n}` }).toArray();
    // Three waiting deliveries, 300 settled: only the waiting ones' index keys are read.
    expect(read?.['planSummary']).toContain('IXSCAN { state: 1, subscriptionId: 1');
    expect(read?.['docsExamined']).toBeLessThanOrEqual(3);
    expect(read?.['keysExamined']).toBeLessThanOrEqual(10);
  });

  it('reads the due deliveries and when the next of the others falls due in one read', async () => {
    const { deliveries, get } = await fresh();
    await deliveries.recordNews('ps-1', 'C1', ['PO-1', 'PO-2', 'PO-3', 'PO-4'], t0);
    await deliveries.attempted(await get('PO-3'), attempt(1, 'transient'), { retryAt: at(40) });
    await deliveries.attempted(await get('PO-4'), attempt(1, 'transient'), { retryAt: at(20) });
    const round = await deliveries.dueAndNext('ps-1', at(1), 10);
    expect(round.due.map((d) => d.purchaseOrderNumber).sort()).toEqual(['PO-1', 'PO-2']);
    expect(round.nextDueAt).toEqual(at(20));
    // More due than the limit: the next is due already.
    const capped = await deliveries.dueAndNext('ps-1', at(1), 1);
    expect(capped.due).toHaveLength(1);
    expect(capped.nextDueAt).toEqual(t0);
    // Nothing else pending: no next.
    const all = await deliveries.dueAndNext('ps-1', at(50), 10);
    expect(all.due).toHaveLength(4);
    expect(all).not.toHaveProperty('nextDueAt');
  });
});
