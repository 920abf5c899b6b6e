// Settled push deliveries are forgotten 30 days after they settle (docs/operations.md, the pusher),
// by mongod's own TTL monitor: a delivery settled 31 days ago goes; one settled today, one still
// pending and one that news made pending again stay. The monitor wakes every 60 s by default; the
// test asks the server for every second while it runs, and gives the old value back.
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { deliveryId, MongoPushDeliveries, type AttemptRecord, type PushDeliveryDocument } from './push-deliveries.js';

let mongo: MongoClient;
let db: Db;
let monitorSleepSecs: number | undefined;
beforeAll(async () => {
  mongo = await MongoClient.connect(testEnvironment().mongodbUri);
  db = mongo.db(uniqueNames('push-deliveries-ttl').database);
  const admin = mongo.db('admin');
  ({ ttlMonitorSleepSecs: monitorSleepSecs } = (await admin.command({ getParameter: 1, ttlMonitorSleepSecs: 1 })) as { ttlMonitorSleepSecs: number });
  await admin.command({ setParameter: 1, ttlMonitorSleepSecs: 1 });
});
afterAll(async () => {
  if (monitorSleepSecs !== undefined) await mongo?.db('admin').command({ setParameter: 1, ttlMonitorSleepSecs: monitorSleepSecs });
  await mongo?.close();
});

const DAY_MS = 86_400_000;

it('forgets a delivery 30 days after it settled, and keeps recent, pending and renewed ones', async () => {
  const deliveries = MongoPushDeliveries.of(db);
  await deliveries.ensureIndexes();
  const collection = db.collection<PushDeliveryDocument>('push_deliveries');
  const get = (po: string) => collection.findOne({ _id: deliveryId('ps-1', 'C1', po) });
  const now = Date.now();
  const longAgo = new Date(now - 31 * DAY_MS);
  const delivered = async (po: string, at: Date) => {
    const attempt: AttemptRecord = { at, outcome: 'acknowledged', news: 1, durationMs: 5 };
    await deliveries.attempted((await get(po))!, attempt, { done: 'delivered', digest: `d-${po}` });
  };
  await deliveries.recordNews('ps-1', 'C1', ['PO-OLD', 'PO-RECENT', 'PO-PENDING', 'PO-RENEWED'], longAgo);
  await delivered('PO-OLD', longAgo);
  await delivered('PO-RENEWED', longAgo);
  await delivered('PO-RECENT', new Date(now));
  await deliveries.recordNews('ps-1', 'C1', ['PO-RENEWED'], new Date(now)); // news again: pending, no longer settled

  // The new sleep takes effect once the monitor's current one (up to 60 s) is over.
  const deadline = Date.now() + 90_000;
  while ((await get('PO-OLD')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
  expect(await get('PO-OLD')).toBeNull();
  expect((await collection.find({}).toArray()).map((d) => [d.purchaseOrderNumber, d.state]).sort()).toEqual([
    ['PO-PENDING', 'pending'],
    ['PO-RECENT', 'delivered'],
    ['PO-RENEWED', 'pending'],
  ]);
}, 120_000);
