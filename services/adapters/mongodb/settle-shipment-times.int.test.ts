import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErpEvent } from '../../../contracts/erp-events.js';
import { asV2, locationRecorded, packageShipped, shipmentCompleted, statusChanged } from '../../../test/fixtures/sample-events.js';
import { readWhole } from '../../../contracts/lookups.js';
import { changeTimeOverlapMs } from './changed-since.js';
import { MongoOrderLookups } from './lookups.js';
import { evolveShipments } from '../../../projections/shipments.js';
import type { ShipmentsState } from '../../../projections/state.js';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { connectMongo } from './connect.js';
import { readModelCollections, shipmentsStateProjection, type ReadModelCollections, type ShipmentsDocument } from './documents.js';
import { writeEffects } from './writes.js';
import { settleShipmentTimes } from './settle-shipment-times.js';

const env = testEnvironment();
let mongo: MongoClient;

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'shipment-times-test');
});
afterAll(async () => {
  await mongo?.close();
});

const fold = (state: ShipmentsState | undefined, ...events: ErpEvent[]) => events.reduce(evolveShipments, state)!;
const other = (event: ErpEvent): ErpEvent => ({ ...event, salesOrderNumber: 'SO-2' });
const serverNow = async () => ((await mongo.db('admin').command({ hello: 1 })).localTime as Date).getTime();
const times = (doc: ShipmentsDocument) => ({
  so: doc.completeChangedAt?.getTime(),
  po: doc.purchaseOrderSetAt?.getTime(),
  news: doc.lastNewsAt?.getTime(),
  locations: doc.locations.map((l) => [l.completeChangedAt?.getTime(), l.packages.map((p) => p.visibleAt?.getTime())]),
});
const write = (c: ReadModelCollections, ...states: ShipmentsState[]) => writeEffects(c, { orderStatus: [], shipments: states.map((after) => ({ after })) });

describe('settling a rebuild’s visible times against the live version at the switch', () => {
  it('carries over what the live version shows as it is, stamps at the switch what it does not show yet', async () => {
    const { database } = uniqueNames('shipment-times');
    const live = readModelCollections(mongo.db(database), 1);
    const rebuilt = readModelCollections(mongo.db(database), 2);
    const shown = fold(undefined, statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1), shipmentCompleted(4, 1));
    // SO-2: the live version shows it as the rebuild does. SO-9: the rebuild ran one package ahead.
    const same = fold(undefined, ...[statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1)].map(other));
    await write(live, shown, same);
    const ahead = fold(shown, packageShipped(5, 1, 2));
    // Written with no live version to carry from, as if the live one had not reached them then.
    await new Promise((resolve) => setTimeout(resolve, 15));
    await write(rebuilt, ahead, same);
    const before = await serverNow();

    expect(await settleShipmentTimes(rebuilt, live, { stamp: true })).toEqual({ carried: 1, stamped: 1 });

    const [liveShown, liveSame] = [(await live.shipments.findOne({ _id: 'C1:SO-9' }))!, (await live.shipments.findOne({ _id: 'C1:SO-2' }))!];
    const [settledAhead, settledSame] = [(await rebuilt.shipments.findOne({ _id: 'C1:SO-9' }))!, (await rebuilt.shipments.findOne({ _id: 'C1:SO-2' }))!];
    expect(times(settledSame)).toEqual(times(liveSame));
    const shownTimes = times(liveShown);
    const switched = settledAhead.locations[0]!.packages[1]!.visibleAt!.getTime();
    expect(switched).toBeGreaterThanOrEqual(before);
    expect(times(settledAhead)).toEqual({ ...shownTimes, news: switched, locations: [[shownTimes.locations[0]![0], [(shownTimes.locations[0]![1] as number[])[0], switched]]] });
    // The states are untouched.
    expect(await rebuilt.shipments.findOne({ _id: 'C1:SO-9' }, { projection: shipmentsStateProjection })).toEqual(ahead);

    await mongo.db(database).dropDatabase();
  });

  it('a references change (2.1.0): a rebuild keeps the live version’s time where it shows the same references, and stamps at the switch those it shows otherwise', async () => {
    const { database } = uniqueNames('shipment-times-references');
    const live = readModelCollections(mongo.db(database), 1);
    const rebuilt = readModelCollections(mongo.db(database), 2);
    const shippedWith = (sequence: number, shipReferences: string[]) => asV2(packageShipped(sequence, 1, 1, { shipReferences }));
    const start = [statusChanged(1), locationRecorded(2, 1), shippedWith(3, ['PO 4711'])];
    // SO-9: the live version shows the change. SO-2: the rebuild ran one change ahead of it.
    const [first, firstOther] = [fold(undefined, ...start), fold(undefined, ...start.map(other))];
    const [changed, changedOther] = [fold(first, shippedWith(4, ['PO 4712'])), fold(firstOther, other(shippedWith(4, ['PO 4712'])))];
    await write(live, first, firstOther);
    await new Promise((resolve) => setTimeout(resolve, 15));
    await writeEffects(live, { orderStatus: [], shipments: [{ before: first, after: changed }] });
    const liveChanged = (await live.shipments.findOne({ _id: 'C1:SO-9' }))!;
    const liveTime = liveChanged.locations[0]!.packages[0]!.referencesChangedAt!;
    expect(liveTime).toBeInstanceOf(Date);
    // The rebuild, event by event, as the replay's projector writes it: carried over from the live version where it can.
    await new Promise((resolve) => setTimeout(resolve, 15));
    for (const [before, after] of [[undefined, first], [first, changed]] as const) await writeEffects(rebuilt, { orderStatus: [], shipments: [{ before, after }] }, live);
    for (const [before, after] of [[undefined, firstOther], [firstOther, changedOther]] as const) await writeEffects(rebuilt, { orderStatus: [], shipments: [{ before, after }] }, live);
    const settleStarted = await serverNow();

    expect(await settleShipmentTimes(rebuilt, live, { stamp: true })).toEqual({ carried: 1, stamped: 1 });

    const settled = (await rebuilt.shipments.findOne({ _id: 'C1:SO-9' }))!;
    expect(settled.locations[0]!.packages[0]!.referencesChangedAt).toEqual(liveTime);
    expect(times(settled)).toEqual(times(liveChanged));
    const settledOther = (await rebuilt.shipments.findOne({ _id: 'C1:SO-2' }))!;
    expect(settledOther.locations[0]!.packages[0]!.referencesChangedAt!.getTime()).toBeGreaterThanOrEqual(settleStarted);
    expect(settledOther.lastNewsAt).toEqual(settledOther.locations[0]!.packages[0]!.referencesChangedAt);

    // A 2.1.0 poller of the live version after its change sees SO-2's alone after the switch; 2.0.0's sees neither.
    const lookups = new MongoOrderLookups(rebuilt);
    const polled = { queryType: 3, shipmentDateTimeStamp: new Date(liveTime.getTime() + changeTimeOverlapMs + 1) } as const;
    const v21 = await readWhole(await lookups.shipmentNotificationV21Batches(['C1'], polled));
    expect(v21.orders.flatMap((o) => o.salesOrders.map((so) => [so.salesOrderNumber, so.shipments.flatMap((l) => l.packages.map((p) => p.shipReferences))]))).toEqual([['SO-2', [['PO 4712']]]]);
    expect(await readWhole(await lookups.shipmentNotificationV2Batches(['C1'], polled))).toEqual({ orders: [], more: false });
    await mongo.db(database).dropDatabase();
  });

  it('keeps the time a flag went false in the live version: the partner who has not polled since still sees it change', async () => {
    const { database } = uniqueNames('shipment-times-false');
    const live = readModelCollections(mongo.db(database), 1);
    const rebuilt = readModelCollections(mongo.db(database), 2);
    const complete = fold(undefined, statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1), shipmentCompleted(4, 1));
    const reopened = fold(complete, locationRecorded(5, 2)); // a second location: the sales order is open again
    expect([complete.complete, reopened.complete]).toEqual([true, false]);
    await write(live, complete);
    await writeEffects(live, { orderStatus: [], shipments: [{ before: complete, after: reopened }] });
    const liveReopened = (await live.shipments.findOne({ _id: 'C1:SO-9' }))!;
    expect(liveReopened.completeChangedAt).toBeInstanceOf(Date);
    await write(rebuilt, reopened);

    await settleShipmentTimes(rebuilt, live, { stamp: true });

    const settled = (await rebuilt.shipments.findOne({ _id: 'C1:SO-9' }))!;
    expect(times(settled)).toEqual(times(liveReopened));
    await mongo.db(database).dropDatabase();
  });
});
