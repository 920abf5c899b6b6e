import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErpEvent } from '../../../contracts/erp-events.js';
import { locationRecorded, packageShipped, shipmentCompleted, statusChanged } from '../../../test/fixtures/sample-events.js';
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
