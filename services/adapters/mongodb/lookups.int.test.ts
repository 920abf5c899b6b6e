import type { Document, MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErpEvent, ErpEventOf } from '../../../contracts/erp-events.js';
import { sampleEvent, sampleShipFrom, sampleShipTo } from '../../../test/fixtures/sample-events.js';
import type { StatusId } from '../../../contracts/status-types.js';
import type { OrderStatusState, ShipmentsState } from '../../../projections/state.js';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { readShipmentsWhole } from '../../../test/support/read-shipments.js';
import { projectBatch } from '../../projector/project-batch.js';
import type { OrderStatusView, ShipmentNotificationView } from '../../../contracts/lookup-answers.js';
import { readWhole } from '../../../contracts/lookups.js';
import { connectMongo, createMongoClient } from './connect.js';
import { documentId, ensureIndexes, readModelCollections, type OrderStatusDocument, type ReadModelCollections, type ShipmentsDocument } from './documents.js';
import { changeTimeOverlapMs } from './changed-since.js';
import { MongoOrderLookups } from './lookups.js';
import { maxPurchaseOrdersPerAnswer } from '../../../projections/lookups/purchase-order-groups.js';
import { loadStates, writeEffects } from './writes.js';

// MongoOrderLookups against queries.md, over read models written the way the projector writes
// them: events folded by the projections (projectBatch) and stored with writeEffects.

const env = testEnvironment();
let mongo: MongoClient;

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'lookups-test');
});
afterAll(async () => {
  await mongo?.close();
});

async function freshStore(label: string, version = 1): Promise<ReadModelCollections> {
  const collections = readModelCollections(mongo.db(uniqueNames(label).database), version);
  await ensureIndexes(collections);
  return collections;
}

/** One projector batch: load the stored states, fold the events onto them, write what changed. */
async function project(collections: ReadModelCollections, events: ErpEvent[], previous?: ReadModelCollections): Promise<void> {
  const keys = [...new Set(events.map((e) => documentId(e.clientId, e.salesOrderNumber)))];
  const batch = projectBatch(
    await loadStates(collections, keys),
    events.map((event) => ({ event, source: event })),
  );
  expect(batch.rejected).toEqual([]);
  await writeEffects(collections, batch.effects, previous);
}

let sequence = 0;

/** Events about one sales order of one client; sequences increase across the whole file. */
function salesOrder(clientId: string, salesOrderNumber: string) {
  const envelope = (occurredAt?: string) => ({ clientId, salesOrderNumber, ...(occurredAt ? { occurredAt } : {}) });
  return {
    status: (statusId: StatusId, purchaseOrderNumber?: string, extra: Partial<ErpEventOf<'SalesOrderStatusChanged'>['data']> = {}, occurredAt?: string) =>
      sampleEvent('SalesOrderStatusChanged', ++sequence, { statusId, ...(purchaseOrderNumber ? { purchaseOrderNumber } : {}), ...extra }, envelope(occurredAt)),
    location: (locationId: number) =>
      sampleEvent('ShipmentLocationRecorded', ++sequence, { locationId, shipFrom: sampleShipFrom, shipTo: sampleShipTo }, envelope()),
    shipped: (locationId: number, packageId: number, shipmentDate: string, extra: Partial<ErpEventOf<'PackageShipped'>['data']> = {}) =>
      sampleEvent('PackageShipped', ++sequence, { locationId, packageId, trackingNumber: `TRK-${clientId}-${salesOrderNumber}-${packageId}`, shipmentDate, ...extra }, envelope()),
    voided: (locationId: number, packageId: number) => sampleEvent('PackageVoided', ++sequence, { locationId, packageId }, envelope()),
    completed: (locationId?: number) => sampleEvent('ShipmentCompleted', ++sequence, locationId === undefined ? {} : { locationId }, envelope()),
  };
}

/**
 * A sales order of C1 with one location and one package, as the write path stores it: the package
 * made visible at `visibleAt`, when it came under its purchase order too.
 */
function shippedDocument(salesOrderNumber: string, purchaseOrderNumber: string, shipmentDate: Date, visibleAt: Date): ShipmentsDocument {
  const state: ShipmentsState = {
    clientId: 'C1',
    salesOrderNumber,
    sequence: 2,
    purchaseOrderNumber,
    completedAsWhole: false,
    complete: false,
    locations: [{ locationId: 1, complete: false, shipFrom: sampleShipFrom, shipTo: sampleShipTo, packages: [{ packageId: 1, trackingNumber: `T-${salesOrderNumber}`, shipmentDate }] }],
  };
  const locations = state.locations.map((l) => ({ ...l, packages: l.packages.map((p) => ({ ...p, visibleAt })) }));
  const lastNewsAt = new Date(Math.max(shipmentDate.getTime(), visibleAt.getTime()));
  return { _id: documentId('C1', salesOrderNumber), ...state, locations, purchaseOrderSetAt: visibleAt, lastNewsAt };
}

/** What a partner reads first: purchase order numbers and, under each, its sales order numbers. */
const statusOutline = (answer: OrderStatusView[]) => answer.map((o) => [o.purchaseOrderNumber, o.details.map((d) => d.factoryOrderNumber)]);
const shipmentOutline = (answer: ShipmentNotificationView[]) => answer.map((o) => [o.purchaseOrderNumber, o.salesOrders.map((s) => s.salesOrderNumber)]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('order status lookups (queryType 1, 2, 4 and others)', () => {
  let lookups: MongoOrderLookups;

  beforeAll(async () => {
    const store = await freshStore('lookups-status');
    lookups = new MongoOrderLookups(store);
    await project(store, [
      // Client C1. Sales orders arrive out of number order; PO-A has three, one of them complete.
      salesOrder('C1', 'SO-101').status(20, 'PO-A', { expectedShipDate: '2025-06-01T00:00:00Z', expectedDeliveryDate: '2025-06-05T17:00:00Z', responseRequired: true }, '2025-05-01T09:00:00Z'),
      salesOrder('C1', 'SO-102').status(80, 'PO-A'),
      salesOrder('C1', 'SO-100').status(10, 'PO-A'),
      salesOrder('C1', 'SO-103').status(60, 'PO-B'),
      salesOrder('C1', 'SO-106').status(99, 'PO-B'),
      salesOrder('C1', 'SO-107').status(40, 'PO-0'),
      // No purchase order number, ever; and one that had one and lost it.
      salesOrder('C1', 'SO-104').status(10),
      salesOrder('C1', 'SO-105').status(20, 'PO-C'),
      salesOrder('C1', 'SO-105').status(40),
      // An order that was complete and opened again, and one that went from open to canceled.
      salesOrder('C1', 'SO-108').status(80, 'PO-D'),
      salesOrder('C1', 'SO-108').status(60, 'PO-D'),
      salesOrder('C1', 'SO-109').status(20, 'PO-D'),
      salesOrder('C1', 'SO-109').status(99, 'PO-D'),
      // Client C2 uses the same PO and sales order numbers; C3 the same PO number.
      salesOrder('C2', 'SO-101').status(40, 'PO-A'),
      salesOrder('C2', 'SO-201').status(10, 'PO-Z'),
      salesOrder('C3', 'SO-301').status(10, 'PO-A'),
    ]);
  });

  it('queryType 1: every sales order of the purchase order, of the linked client only, ascending by sales order', async () => {
    expect(statusOutline(await lookups.orderStatus(['C1'], { queryType: 1, referenceNumber: 'PO-A' }))).toEqual([['PO-A', ['SO-100', 'SO-101', 'SO-102']]]);
    expect(statusOutline(await lookups.orderStatus(['C2'], { queryType: 1, referenceNumber: 'PO-A' }))).toEqual([['PO-A', ['SO-101']]]);
    expect(await lookups.orderStatus(['C1'], { queryType: 1, referenceNumber: 'PO-Z' })).toEqual([]);
    // A number the sales order no longer carries is not found under it.
    expect(await lookups.orderStatus(['C1'], { queryType: 1, referenceNumber: 'PO-C' })).toEqual([]);
  });

  it('answers every field of a status detail from the ERP event; validTimestamp is occurredAt', async () => {
    const [order] = await lookups.orderStatus(['C1'], { queryType: 2, referenceNumber: 'SO-101' });
    expect(order).toEqual({
      purchaseOrderNumber: 'PO-A',
      details: [
        {
          factoryOrderNumber: 'SO-101',
          statusID: 20,
          statusName: 'Order Confirmed',
          expectedShipDate: new Date('2025-06-01T00:00:00Z'),
          expectedDeliveryDate: new Date('2025-06-05T17:00:00Z'),
          responseRequired: true,
          validTimestamp: new Date('2025-05-01T09:00:00Z'),
        },
      ],
    });
    // Absent optional fields stay absent: never null.
    const [minimal] = await lookups.orderStatus(['C1'], { queryType: 2, referenceNumber: 'SO-100' });
    expect(minimal!.details[0]).toEqual({ factoryOrderNumber: 'SO-100', statusID: 10, statusName: 'Order Received', validTimestamp: expect.any(Date) });
    expect(Object.values(minimal!.details[0]!)).not.toContain(null);
  });

  it('queryType 2: the sales order of the linked client only; none without a purchase order number', async () => {
    expect(await lookups.orderStatus(['C2'], { queryType: 2, referenceNumber: 'SO-101' })).toMatchObject([
      { purchaseOrderNumber: 'PO-A', details: [{ factoryOrderNumber: 'SO-101', statusID: 40 }] },
    ]);
    expect(await lookups.orderStatus(['C1'], { queryType: 2, referenceNumber: 'SO-201' })).toEqual([]);
    expect(await lookups.orderStatus(['C1'], { queryType: 2, referenceNumber: 'SO-104' })).toEqual([]);
    expect(await lookups.orderStatus(['C1'], { queryType: 2, referenceNumber: 'SO-105' })).toEqual([]);
  });

  it('queryType 4: only open sales orders (not 80, not 99), ascending by purchase order then sales order', async () => {
    expect(statusOutline(await lookups.orderStatus(['C1'], { queryType: 4 }))).toEqual([
      ['PO-0', ['SO-107']],
      ['PO-A', ['SO-100', 'SO-101']],
      ['PO-B', ['SO-103']],
      ['PO-D', ['SO-108']],
    ]);
  });

  it('one element per (client, purchase order): the same number under two linked clients gives two elements', async () => {
    const answer = await lookups.orderStatus(['C2', 'C1'], { queryType: 1, referenceNumber: 'PO-A' });
    expect(statusOutline(answer)).toEqual([
      ['PO-A', ['SO-100', 'SO-101', 'SO-102']],
      ['PO-A', ['SO-101']],
    ]);
    expect(answer.map((o) => o.details.map((d) => d.statusID))).toEqual([[10, 20, 80], [40]]);
    // queryType 2 too: SO-101 exists under both clients.
    expect(statusOutline(await lookups.orderStatus(['C1', 'C2'], { queryType: 2, referenceNumber: 'SO-101' }))).toEqual([
      ['PO-A', ['SO-101']],
      ['PO-A', ['SO-101']],
    ]);
    expect(statusOutline(await lookups.orderStatus(['C1', 'C2', 'C3'], { queryType: 4 }))).toEqual([
      ['PO-0', ['SO-107']],
      ['PO-A', ['SO-100', 'SO-101']],
      ['PO-A', ['SO-101']],
      ['PO-A', ['SO-301']],
      ['PO-B', ['SO-103']],
      ['PO-D', ['SO-108']],
      ['PO-Z', ['SO-201']],
    ]);
  });

  it('any other queryType, no linked client, or an unknown client: an empty answer', async () => {
    for (const queryType of [0, 5, -1, 99, 1.5]) {
      expect(await lookups.orderStatus(['C1'], { queryType, referenceNumber: 'PO-A', statusTimeStamp: new Date(0) })).toEqual([]);
    }
    expect(await lookups.orderStatus([], { queryType: 4 })).toEqual([]);
    expect(await lookups.orderStatus(['C9'], { queryType: 4 })).toEqual([]);
    expect(await lookups.orderStatus(['C9'], { queryType: 3, statusTimeStamp: new Date(0) })).toEqual([]);
  });
});

describe('order status queryType 3 (changes since statusTimeStamp)', () => {
  let live: ReadModelCollections;
  let lookups: MongoOrderLookups;
  const changedAt = async (store: ReadModelCollections, clientId: string, so: string) =>
    (await store.orderStatus.findOne({ _id: documentId(clientId, so) }))!.changedAt!.getTime();
  const since = (ms: number) => ({ queryType: 3, statusTimeStamp: new Date(ms) });
  /** Every event projected into the live version, in order. */
  const stream: ErpEvent[] = [];
  const projectLive = async (events: ErpEvent[]) => {
    stream.push(...events);
    await project(live, events);
  };
  let t1: number, t2: number, t3: number;

  beforeAll(async () => {
    live = await freshStore('lookups-changes');
    lookups = new MongoOrderLookups(live);
    // Three batches, a little apart. The ERP's occurredAt runs the other way round: SO-1's is far
    // in the future, SO-2's long past (an old event the projector only now reaches).
    const first = [salesOrder('C1', 'SO-1').status(20, 'PO-Q', {}, '2099-01-01T00:00:00Z'), salesOrder('C2', 'SO-9').status(20, 'PO-Q')];
    const second = [salesOrder('C1', 'SO-2').status(10, 'PO-P', {}, '2020-01-01T00:00:00Z'), salesOrder('C1', 'SO-4').status(10)];
    const third = [salesOrder('C1', 'SO-3').status(60, 'PO-Q', {}, '2021-01-01T00:00:00Z')];
    await projectLive(first);
    await sleep(30);
    await projectLive(second);
    await sleep(30);
    await projectLive(third);
    [t1, t2, t3] = [await changedAt(live, 'C1', 'SO-1'), await changedAt(live, 'C1', 'SO-2'), await changedAt(live, 'C1', 'SO-3')];
  });

  it('the change time is stamped by the server when the change is written', () => {
    expect(t1).toBeLessThan(t2);
    expect(t2).toBeLessThan(t3);
    expect(Math.abs(t3 - Date.now())).toBeLessThan(60_000);
  });

  it('answers ascending by change time, a purchase order whole at its first change, never by occurredAt or PO number', async () => {
    const answer = await lookups.orderStatus(['C1'], since(t1 - 60_000));
    expect(statusOutline(answer)).toEqual([
      ['PO-Q', ['SO-1', 'SO-3']],
      ['PO-P', ['SO-2']],
    ]);
    // validTimestamp is still the ERP's occurredAt.
    expect(answer[0]!.details.map((d) => d.validTimestamp)).toEqual([new Date('2099-01-01T00:00:00Z'), new Date('2021-01-01T00:00:00Z')]);
  });

  it('filters on the change time, not on occurredAt', async () => {
    // Every occurredAt except SO-1's is before 2022: an occurredAt filter would leave SO-2 and SO-3 out.
    expect(statusOutline(await lookups.orderStatus(['C1'], since(Date.parse('2022-01-01T00:00:00Z'))))).toEqual([
      ['PO-Q', ['SO-1', 'SO-3']],
      ['PO-P', ['SO-2']],
    ]);
    // ...and an occurredAt filter would answer SO-1 (2099) to a poll from a later clock reading.
    expect(await lookups.orderStatus(['C1'], since(t3 + changeTimeOverlapMs + 1_000))).toEqual([]);
    // A poll made (allowing for the overlap) after the first batch, long after SO-2's occurredAt, sees SO-2.
    expect(statusOutline(await lookups.orderStatus(['C1'], since(t1 + changeTimeOverlapMs)))).toEqual([
      ['PO-P', ['SO-2']],
      ['PO-Q', ['SO-3']],
    ]);
  });

  it('includes changes within the overlap before statusTimeStamp, and nothing older', async () => {
    // A partner whose clock runs ahead of the database's still gets the latest change.
    expect(statusOutline(await lookups.orderStatus(['C1'], since(t3 + changeTimeOverlapMs - 1)))).toEqual([['PO-Q', ['SO-3']]]);
    expect(statusOutline(await lookups.orderStatus(['C1'], since(t2 + changeTimeOverlapMs - 1)))).toEqual([
      ['PO-P', ['SO-2']],
      ['PO-Q', ['SO-3']],
    ]);
    expect(statusOutline(await lookups.orderStatus(['C1'], since(t2 + changeTimeOverlapMs)))).toEqual([['PO-Q', ['SO-3']]]);
  });

  it('only the linked clients, only with a purchase order number', async () => {
    expect(statusOutline(await lookups.orderStatus(['C2'], since(0)))).toEqual([['PO-Q', ['SO-9']]]);
    // SO-4 changed too but carries no purchase order number.
    expect(statusOutline(await lookups.orderStatus(['C1'], since(0))).flatMap(([, sos]) => sos)).not.toContain('SO-4');
  });

  it('a redelivered event is no news; a new status of the same sales order is, once', async () => {
    await project(live, [...stream]);
    expect(await changedAt(live, 'C1', 'SO-1')).toBe(t1);
    expect(await lookups.orderStatus(['C1'], since(t3 + changeTimeOverlapMs))).toEqual([]);
    // Shipment events do not touch the status read model, so they are no status news either.
    await projectLive([salesOrder('C1', 'SO-1').location(1)]);
    expect(await lookups.orderStatus(['C1'], since(t3 + changeTimeOverlapMs))).toEqual([]);

    const before = Date.now();
    await projectLive([salesOrder('C1', 'SO-1').status(80, 'PO-Q')]);
    const t4 = await changedAt(live, 'C1', 'SO-1');
    expect(t4).toBeGreaterThan(t3);
    const answer = await lookups.orderStatus(['C1'], since(Math.max(before, t3 + changeTimeOverlapMs)));
    expect(statusOutline(answer)).toEqual([['PO-Q', ['SO-1']]]);
    expect(answer[0]!.details[0]!.statusID).toBe(80);
  });

  it('a rebuild into a new version keeps the change times already shown: old changes do not look new', async () => {
    const rebuilt = await freshStore('lookups-rebuild', 2);
    await project(rebuilt, stream, live);
    const latest = (await live.orderStatus.find({}).sort({ changedAt: -1 }).limit(1).next())!.changedAt!.getTime();
    const rebuiltLookups = new MongoOrderLookups(rebuilt);
    // The poll after the latest shown change finds nothing new in the rebuilt version...
    expect(await rebuiltLookups.orderStatus(['C1'], since(latest + changeTimeOverlapMs))).toEqual([]);
    // ...and any older poll sees the same changes in the same order as in the live version.
    for (const at of [0, t2 - 1, t3 - 1]) {
      expect(await rebuiltLookups.orderStatus(['C1', 'C2'], since(at))).toEqual(await lookups.orderStatus(['C1', 'C2'], since(at)));
    }
    expect(await changedAt(rebuilt, 'C1', 'SO-2')).toBe(t2);
  });
});

describe('shipment notification lookups', () => {
  let lookups: MongoOrderLookups;
  let store: ReadModelCollections;
  const since = (iso: string) => ({ queryType: 3, shipmentDateTimeStamp: new Date(iso) });

  beforeAll(async () => {
    store = await freshStore('lookups-shipments');
    lookups = new MongoOrderLookups(store);
    const so11 = salesOrder('C1', 'SO-11');
    const so12 = salesOrder('C1', 'SO-12');
    const so13 = salesOrder('C1', 'SO-13');
    const so21 = salesOrder('C1', 'SO-21');
    const so31 = salesOrder('C1', 'SO-31');
    const so32 = salesOrder('C1', 'SO-32');
    const so41 = salesOrder('C1', 'SO-41');
    const so42 = salesOrder('C1', 'SO-42');
    const so51 = salesOrder('C1', 'SO-51');
    const so61 = salesOrder('C1', 'SO-61');
    const c2so11 = salesOrder('C2', 'SO-11');
    await project(store, [
      // PO-S1: SO-11 two locations (1 complete), SO-12 no location at all, SO-13 complete as a whole.
      so11.status(60, 'PO-S1'),
      so11.location(1),
      so11.shipped(1, 1, '2025-05-02T15:30:00Z', { carrier: 'UPS', shipmentMethod: 'Ground', weight: 2.5, weightUOM: 'Pounds', items: [{ supplierProductId: 'P-1', quantity: 3 }] }),
      so11.shipped(1, 4, '2025-04-25T00:00:00Z'),
      so11.completed(1),
      so11.location(2),
      so11.shipped(2, 2, '2025-05-10T00:00:00Z'),
      so11.shipped(2, 3, '2025-04-20T00:00:00Z'),
      so12.status(20, 'PO-S1'),
      so13.status(80, 'PO-S1'),
      so13.location(1),
      so13.shipped(1, 1, '2025-05-01T00:00:00Z'),
      so13.completed(),
      // PO-S2: one sales order, complete.
      so21.status(80, 'PO-S2'),
      so21.location(1),
      so21.shipped(1, 1, '2025-05-05T00:00:00Z'),
      so21.completed(),
      // PO-S3: both sales orders complete; SO-32 shipped long ago.
      so31.status(80, 'PO-S3'),
      so31.location(1),
      so31.shipped(1, 1, '2025-05-03T00:00:00Z'),
      so31.location(2),
      so31.shipped(2, 2, '2025-05-20T00:00:00Z'),
      so31.completed(1),
      so31.completed(2),
      so32.status(80, 'PO-S3'),
      so32.location(1),
      so32.shipped(1, 1, '2025-04-01T00:00:00Z'),
      so32.completed(1),
      // PO-S4: SO-41 complete and recent; SO-42 shipped long ago and not complete.
      so41.status(80, 'PO-S4'),
      so41.location(1),
      so41.shipped(1, 1, '2025-05-06T00:00:00Z'),
      so41.completed(),
      so42.status(60, 'PO-S4'),
      so42.location(1),
      so42.shipped(1, 1, '2025-04-01T00:00:00Z'),
      // SO-51 shipped but never received a status, so has no purchase order number.
      so51.location(1),
      so51.shipped(1, 1, '2025-05-07T00:00:00Z'),
      // PO-S6: its only package voided, the location stays.
      so61.status(60, 'PO-S6'),
      so61.location(1),
      so61.shipped(1, 1, '2025-05-08T00:00:00Z'),
      so61.voided(1, 1),
      // Client C2, same numbers, complete.
      c2so11.status(80, 'PO-S1'),
      c2so11.location(1),
      c2so11.shipped(1, 1, '2025-05-04T00:00:00Z'),
      c2so11.completed(),
    ]);
  });

  it('queryType 1: sales orders with a location, ascending; complete flags over all of the purchase order', async () => {
    const answer = await readShipmentsWhole(lookups, ['C1'], { queryType: 1, referenceNumber: 'PO-S1' });
    expect(answer).toEqual([
      {
        purchaseOrderNumber: 'PO-S1',
        complete: false,
        salesOrders: [
          {
            salesOrderNumber: 'SO-11',
            complete: false,
            locations: [
              {
                id: 1,
                complete: true,
                shipFromAddress: sampleShipFrom,
                shipToAddress: sampleShipTo,
                packages: [
                  {
                    id: 1,
                    trackingNumber: 'TRK-C1-SO-11-1',
                    shipmentDate: new Date('2025-05-02T15:30:00Z'),
                    carrier: 'UPS',
                    shipmentMethod: 'Ground',
                    weight: 2.5,
                    weightUOM: 'Pounds',
                    items: [{ supplierProductId: 'P-1', quantity: 3 }],
                  },
                  { id: 4, trackingNumber: 'TRK-C1-SO-11-4', shipmentDate: new Date('2025-04-25T00:00:00Z') },
                ],
              },
              {
                id: 2,
                complete: false,
                shipFromAddress: sampleShipFrom,
                shipToAddress: sampleShipTo,
                packages: [
                  { id: 2, trackingNumber: 'TRK-C1-SO-11-2', shipmentDate: new Date('2025-05-10T00:00:00Z') },
                  { id: 3, trackingNumber: 'TRK-C1-SO-11-3', shipmentDate: new Date('2025-04-20T00:00:00Z') },
                ],
              },
            ],
          },
          {
            salesOrderNumber: 'SO-13',
            complete: true,
            locations: [
              {
                id: 1,
                complete: true,
                shipFromAddress: sampleShipFrom,
                shipToAddress: sampleShipTo,
                packages: [{ id: 1, trackingNumber: 'TRK-C1-SO-13-1', shipmentDate: new Date('2025-05-01T00:00:00Z') }],
              },
            ],
          },
        ],
      },
    ]);
  });

  it('the purchase order is complete only when every one of its sales orders is', async () => {
    const complete = async (po: string) => (await readShipmentsWhole(lookups, ['C1'], { queryType: 1, referenceNumber: po })).map((o) => o.complete);
    expect(await complete('PO-S2')).toEqual([true]);
    expect(await complete('PO-S3')).toEqual([true]);
    expect(await complete('PO-S4')).toEqual([false]);
    // A location whose only package was voided is still shown, with no packages.
    expect(await readShipmentsWhole(lookups, ['C1'], { queryType: 1, referenceNumber: 'PO-S6' })).toMatchObject([
      { purchaseOrderNumber: 'PO-S6', complete: false, salesOrders: [{ salesOrderNumber: 'SO-61', complete: false, locations: [{ id: 1, packages: [] }] }] },
    ]);
  });

  it('queryType 2: the one sales order, under its purchase order with the purchase order’s complete flag', async () => {
    const answer = await readShipmentsWhole(lookups, ['C1'], { queryType: 2, referenceNumber: 'SO-13' });
    expect(shipmentOutline(answer)).toEqual([['PO-S1', ['SO-13']]]);
    // SO-13 is complete, but its purchase order is not (SO-11 is not, SO-12 has not shipped).
    expect(answer[0]).toMatchObject({ complete: false, salesOrders: [{ complete: true }] });
    expect(shipmentOutline(await readShipmentsWhole(lookups, ['C1'], { queryType: 2, referenceNumber: 'SO-41' }))).toEqual([['PO-S4', ['SO-41']]]);
    expect((await readShipmentsWhole(lookups, ['C1'], { queryType: 2, referenceNumber: 'SO-41' }))[0]!.complete).toBe(false);
    // No location recorded, or no purchase order number: not answered.
    expect(await readShipmentsWhole(lookups, ['C1'], { queryType: 2, referenceNumber: 'SO-12' })).toEqual([]);
    expect(await readShipmentsWhole(lookups, ['C1'], { queryType: 2, referenceNumber: 'SO-51' })).toEqual([]);
  });

  it('only the linked clients; the same purchase order under two clients is two elements, each with its own flags', async () => {
    expect(await readShipmentsWhole(lookups, ['C2'], { queryType: 1, referenceNumber: 'PO-S2' })).toEqual([]);
    const both = await readShipmentsWhole(lookups, ['C2', 'C1'], { queryType: 1, referenceNumber: 'PO-S1' });
    expect(shipmentOutline(both)).toEqual([
      ['PO-S1', ['SO-11', 'SO-13']],
      ['PO-S1', ['SO-11']],
    ]);
    expect(both.map((o) => o.complete)).toEqual([false, true]);
    expect(both[1]!.salesOrders[0]!.locations[0]!.packages.map((p) => p.trackingNumber)).toEqual(['TRK-C2-SO-11-1']);
    const c2 = await readShipmentsWhole(lookups, ['C2'], { queryType: 2, referenceNumber: 'SO-11' });
    expect(c2).toMatchObject([{ purchaseOrderNumber: 'PO-S1', complete: true, salesOrders: [{ salesOrderNumber: 'SO-11', complete: true }] }]);
    expect(await readShipmentsWhole(lookups, [], { queryType: 1, referenceNumber: 'PO-S1' })).toEqual([]);
  });

  it('queryType 3 from before anything was made visible (a first poll): every package, ascending by each purchase order’s earliest, flags over the whole purchase order', async () => {
    const answer = await readShipmentsWhole(lookups, ['C1'], since('2025-01-01T00:00:00Z'));
    const packages = (o: ShipmentNotificationView) =>
      o.salesOrders.map((s) => [s.salesOrderNumber, s.complete, s.locations.map((l) => [l.id, l.complete, l.packages.map((p) => p.id)])]);
    expect(answer.map((o) => [o.purchaseOrderNumber, o.complete, packages(o)])).toEqual([
      // PO-S3 and PO-S4 both start 04-01 (SO-32, SO-42): then by purchase order number.
      ['PO-S3', true, [['SO-32', true, [[1, true, [1]]]], ['SO-31', true, [[1, true, [1]], [2, true, [2]]]]]],
      ['PO-S4', false, [['SO-42', false, [[1, false, [1]]]], ['SO-41', true, [[1, true, [1]]]]]],
      // SO-12 has no location; SO-61's location has no package left and no flag that changed.
      ['PO-S1', false, [['SO-11', false, [[1, true, [1, 4]], [2, false, [2, 3]]]], ['SO-13', true, [[1, true, [1]]]]]],
      ['PO-S2', true, [['SO-21', true, [[1, true, [1]]]]]],
    ]);
  });

  it('queryType 3 from after everything was made visible: only packages shipped at or after the timestamp', async () => {
    const latest = (await store.shipments.find({}).sort({ lastNewsAt: -1 }).limit(1).next())!.lastNewsAt!.getTime();
    const afterAll = new Date(latest + changeTimeOverlapMs + 1);
    expect(await readShipmentsWhole(lookups, ['C1'], { queryType: 3, shipmentDateTimeStamp: afterAll })).toEqual([]);
    expect(await readShipmentsWhole(lookups, ['C2'], { queryType: 3, shipmentDateTimeStamp: afterAll })).toEqual([]);
  });

  it('queryType 4 and any other value: an empty answer', async () => {
    for (const queryType of [4, 0, 5, -1]) {
      expect(await readShipmentsWhole(lookups, ['C1'], { queryType, referenceNumber: 'PO-S1', shipmentDateTimeStamp: new Date(0) })).toEqual([]);
    }
  });
});

describe('shipment queryType 3 polled with the time of the previous poll (queries.md, the polling promise)', () => {
  let store: ReadModelCollections;
  let lookups: MongoOrderLookups;
  let t0: number;
  const serverNow = async () => ((await mongo.db('admin').command({ hello: 1 })).localTime as Date).getTime();
  /**
   * The time of a partner's poll made now, as a partner whose clock runs the overlap ahead of the
   * store's sends it next: the latest timestamp under which what becomes visible after the poll
   * must still be answered, and nothing made visible before it is answered again.
   */
  const pollTime = async () => new Date((await serverNow()) + changeTimeOverlapMs);
  const poll = (timestamp: Date, clientIds = ['C1']) => readShipmentsWhole(lookups, clientIds, { queryType: 3, shipmentDateTimeStamp: timestamp });
  /** An ERP shipmentDate `n` minutes from the start of the test: packages shipped before the polls. */
  const minutes = (n: number) => new Date(t0 + n * 60_000).toISOString();
  const detail = (answer: ShipmentNotificationView[]) =>
    answer.map((o) => [o.purchaseOrderNumber, o.complete, o.salesOrders.map((s) => [s.salesOrderNumber, s.complete, s.locations.map((l) => [l.id, l.complete, l.packages.map((p) => p.id)])])]);

  beforeAll(async () => {
    store = await freshStore('lookups-news');
    lookups = new MongoOrderLookups(store);
    t0 = await serverNow();
  });

  it('a package shipped before the previous poll but made visible after it is answered, from any partition, and nothing of before again', async () => {
    const [a, b, c] = [salesOrder('C1', 'SO-A'), salesOrder('C1', 'SO-B'), salesOrder('C1', 'SO-C')];
    // Partition 1: SO-A shipped at "10:00". The partner's first poll finds it.
    await project(store, [a.status(60, 'PO-A'), a.location(1), a.shipped(1, 1, minutes(-60))]);
    expect(shipmentOutline(await poll(new Date(t0 - 3_600_000 * 2)))).toEqual([['PO-A', ['SO-A']]]);
    const previous = await pollTime();
    // Partitions 2 and 3, behind: SO-B shipped at "09:50" and SO-C (PO-A too) at "09:55", both
    // posted after the poll, projected at once as two consumers do.
    await Promise.all([
      project(store, [b.status(60, 'PO-B'), b.location(1), b.shipped(1, 1, minutes(-70))]),
      project(store, [c.status(60, 'PO-A'), c.location(1), c.shipped(1, 1, minutes(-65))]),
    ]);
    // Polling with the time of its previous poll, the partner gets both, in order of shipment;
    // PO-A carries only what is new in it.
    expect(detail(await poll(previous))).toEqual([
      ['PO-B', false, [['SO-B', false, [[1, false, [1]]]]]],
      ['PO-A', false, [['SO-C', false, [[1, false, [1]]]]]],
    ]);
    expect(await poll(await pollTime())).toEqual([]);
  });

  it('a package shipped at or after the timestamp is answered though it was made visible long before (a label dated ahead)', async () => {
    // Client C3 alone: the other tests' polls come before that date.
    const d = salesOrder('C3', 'SO-D');
    await project(store, [d.status(60, 'PO-D'), d.location(1), d.shipped(1, 1, minutes(120))]);
    expect(shipmentOutline(await poll(new Date(minutes(120)), ['C3']))).toEqual([['PO-D', ['SO-D']]]);
    expect(await poll(new Date(Date.parse(minutes(120)) + 1), ['C3'])).toEqual([]);
  });

  it('what was made visible within the overlap before the timestamp is answered, and nothing older', async () => {
    const e = salesOrder('C1', 'SO-E');
    await project(store, [e.status(60, 'PO-E'), e.location(1), e.shipped(1, 1, minutes(-300))]);
    const visible = (await store.shipments.findOne({ _id: documentId('C1', 'SO-E') }))!.lastNewsAt!.getTime();
    expect(shipmentOutline(await poll(new Date(visible + changeTimeOverlapMs)))).toEqual([['PO-E', ['SO-E']]]);
    expect(await poll(new Date(visible + changeTimeOverlapMs + 1))).toEqual([]);
  });

  it('a ShipmentCompleted after the last package is answered: the location with no package, and every flag as it is now', async () => {
    const f = salesOrder('C1', 'SO-F');
    await project(store, [f.status(60, 'PO-F'), f.location(1), f.shipped(1, 1, minutes(-50)), f.location(2), f.shipped(2, 2, minutes(-40))]);
    const previous = await pollTime();
    await project(store, [f.completed(1)]);
    const first = await poll(previous);
    expect(detail(first)).toEqual([['PO-F', false, [['SO-F', false, [[1, true, []]]]]]]);
    // The SOAP and JSON schemas allow a location without packages.
    expect(first[0]!.salesOrders[0]!.locations[0]).toMatchObject({ shipFromAddress: sampleShipFrom, shipToAddress: sampleShipTo, packages: [] });

    const next = await pollTime();
    await project(store, [f.completed()]);
    // Location 2 completed; so did the sales order and its purchase order, whose change brings
    // every location of it.
    expect(detail(await poll(next))).toEqual([['PO-F', true, [['SO-F', true, [[1, true, []], [2, true, []]]]]]]);
    expect(await poll(await pollTime())).toEqual([]);
  });

  it('a purchase order whose complete flag changed brings every location of its sales orders; one whose flag did not, only what changed', async () => {
    const [g1, g2, h1, h2] = [salesOrder('C1', 'SO-G1'), salesOrder('C1', 'SO-G2'), salesOrder('C1', 'SO-H1'), salesOrder('C1', 'SO-H2')];
    await project(store, [
      // PO-G: SO-G1 complete long since, SO-G2 shipping. PO-H: neither complete.
      g1.status(80, 'PO-G'), g1.location(1), g1.shipped(1, 1, minutes(-90)), g1.completed(),
      g2.status(60, 'PO-G'), g2.location(1), g2.shipped(1, 1, minutes(-80)),
      h1.status(60, 'PO-H'), h1.location(1), h1.shipped(1, 1, minutes(-90)),
      h2.status(60, 'PO-H'), h2.location(1), h2.shipped(1, 1, minutes(-80)),
    ]);
    const previous = await pollTime();
    await Promise.all([project(store, [g2.completed()]), project(store, [h2.completed()])]);
    expect(detail(await poll(previous))).toEqual([
      // Neither location holds a package: both are ordered at the timestamp, then by number.
      ['PO-G', true, [['SO-G1', true, [[1, true, []]]], ['SO-G2', true, [[1, true, []]]]]],
      ['PO-H', false, [['SO-H2', true, [[1, true, []]]]]],
    ]);
    // A sales order coming under the complete PO-G, not complete, makes it incomplete again: with
    // its first package, the purchase order comes with every location of it.
    const next = await pollTime();
    const g3 = salesOrder('C1', 'SO-G3');
    await project(store, [g3.status(20, 'PO-G'), g3.location(1), g3.shipped(1, 1, minutes(-85))]);
    expect(detail(await poll(next))).toEqual([['PO-G', false, [['SO-G3', false, [[1, false, [1]]]], ['SO-G1', true, [[1, true, []]]], ['SO-G2', true, [[1, true, []]]]]]]);
  });

  it('a purchase order whose flag is changed by a sales order with no package news (a location without packages) is answered', async () => {
    const [j1, j2] = [salesOrder('C1', 'SO-J1'), salesOrder('C1', 'SO-J2')];
    await project(store, [j1.status(80, 'PO-J'), j1.location(1), j1.shipped(1, 1, minutes(-90)), j1.completed()]);
    const previous = await pollTime();
    // SO-J2 comes under the complete PO-J with a location and no package yet: PO-J is open again.
    await project(store, [j2.status(20, 'PO-J'), j2.location(1)]);
    expect(detail(await poll(previous))).toEqual([['PO-J', false, [['SO-J1', true, [[1, true, []]]], ['SO-J2', false, [[1, false, []]]]]]]);
  });

  it('a sales order leaving a purchase order (moved, or its number dropped) brings that purchase order, whole, with its flag now, in 1.0.0 and 2.0.0', async () => {
    const [m1, m2, p1, p2] = [salesOrder('C1', 'SO-M1'), salesOrder('C1', 'SO-M2'), salesOrder('C1', 'SO-P1'), salesOrder('C1', 'SO-P2')];
    await project(store, [
      m1.status(80, 'PO-M'), m1.location(1), m1.shipped(1, 1, minutes(-90)), m1.completed(),
      m2.status(60, 'PO-M'), m2.location(1), m2.shipped(1, 1, minutes(-80)),
      p1.status(80, 'PO-P'), p1.location(1), p1.shipped(1, 1, minutes(-90)), p1.completed(),
      p2.status(60, 'PO-P'), p2.location(1), p2.shipped(1, 1, minutes(-80)),
    ]);
    const previous = await pollTime();
    expect(detail(await poll(previous))).toEqual([]);
    // SO-M2 moves to PO-N; SO-P2 loses its number: PO-M and PO-P are complete now.
    await project(store, [m2.status(60, 'PO-N'), p2.status(60)]);
    // PO-N by its package's shipmentDate (before the timestamp), then the two left at the timestamp.
    expect(detail(await poll(previous))).toEqual([
      ['PO-N', false, [['SO-M2', false, [[1, false, [1]]]]]],
      ['PO-M', true, [['SO-M1', true, [[1, true, []]]]]],
      ['PO-P', true, [['SO-P1', true, [[1, true, []]]]]],
    ]);
    const v2 = await readWhole(await lookups.shipmentNotificationV2Batches(['C1'], { queryType: 3, shipmentDateTimeStamp: previous }));
    expect(v2.orders.map((o) => [o.purchaseOrderNumber, o.complete, o.salesOrders.map((so) => [so.salesOrderNumber, so.shipments.map((l) => [l.id, l.packages.map((pkg) => pkg.id)])])])).toEqual(
      expect.arrayContaining([
        ['PO-M', true, [['SO-M1', [[1, [1]]]]]],
        ['PO-P', true, [['SO-P1', [[1, [1]]]]]],
      ]),
    );
    // Once told, a poll from after that is not told again.
    expect(detail(await poll(await pollTime()))).toEqual([]);
  });

  it('a sales order whose own flag went from complete to incomplete brings every location of it, its purchase order’s flag unchanged', async () => {
    const [q1, q2] = [salesOrder('C1', 'SO-Q1'), salesOrder('C1', 'SO-Q2')];
    await project(store, [q1.status(60, 'PO-Q'), q1.location(1), q1.shipped(1, 1, minutes(-90)), q2.status(60, 'PO-Q'), q2.location(1), q2.shipped(1, 1, minutes(-90)), q2.completed(1)]);
    const previous = await pollTime();
    await project(store, [q2.location(2)]);
    expect(detail(await poll(previous))).toEqual([['PO-Q', false, [['SO-Q2', false, [[1, true, []], [2, false, []]]]]]]);
  });

  it('recording a location again, or a redelivered or identical package, makes nothing new; a package posted late beside them is answered alone', async () => {
    const k = salesOrder('C1', 'SO-K');
    const recorded = [k.status(60, 'PO-K'), k.location(1)];
    const shipped = k.shipped(1, 1, minutes(-45));
    await project(store, [...recorded, shipped, k.shipped(1, 2, minutes(-44))]);
    const previous = await pollTime();
    await project(store, [k.location(1), k.status(60, 'PO-K')]);
    await project(store, [shipped]);
    await project(store, [{ ...shipped, sequence: ++sequence, eventId: `00000000-0000-4000-9000-${String(sequence).padStart(12, '0')}` }]);
    expect(await poll(previous)).toEqual([]);
    await project(store, [k.shipped(1, 3, minutes(-46))]);
    expect(detail(await poll(previous))).toEqual([['PO-K', false, [['SO-K', false, [[1, false, [3]]]]]]]);
  });

  it('only the linked clients, only sales orders with a purchase order number', async () => {
    const previous = await pollTime();
    const [other, unnumbered] = [salesOrder('C2', 'SO-L'), salesOrder('C1', 'SO-M')];
    await project(store, [other.status(60, 'PO-L'), other.location(1), other.shipped(1, 1, minutes(-30)), unnumbered.location(1), unnumbered.shipped(1, 1, minutes(-30))]);
    expect(await poll(previous)).toEqual([]);
    expect(shipmentOutline(await poll(previous, ['C2']))).toEqual([['PO-L', ['SO-L']]]);
  });
});

describe('at most 5,000 purchase orders per answer, none cut in half', () => {
  // 5,003 purchase orders of C1, stored directly (insertMany), shaped as the write path stores
  // them, to keep the set-up short. PO-05000, the last one that fits, has three sales orders; PO-00001
  // has a second sales order whose status changed and whose package shipped after everything else.
  // Each package was made visible when it shipped; they are 10 s apart, more than the overlap.
  const total = maxPurchaseOrdersPerAnswer + 3;
  const po = (n: number) => `PO-${String(n).padStart(5, '0')}`;
  const base = Date.parse('2025-01-01T00:00:00Z');
  const apart = 10_000;
  let lookups: MongoOrderLookups;
  let store: ReadModelCollections;

  const members: { po: number; so: string; at: number }[] = [];
  for (let n = 1; n <= total; n++) members.push({ po: n, so: `SO-${n}-a`, at: base + n * apart });
  members.push({ po: maxPurchaseOrdersPerAnswer, so: `SO-${maxPurchaseOrdersPerAnswer}-b`, at: base + maxPurchaseOrdersPerAnswer * apart + 1 });
  members.push({ po: maxPurchaseOrdersPerAnswer, so: `SO-${maxPurchaseOrdersPerAnswer}-c`, at: base + maxPurchaseOrdersPerAnswer * apart + 2 });
  members.push({ po: 1, so: 'SO-1-z', at: base + (total + 10) * apart });

  beforeAll(async () => {
    store = await freshStore('lookups-cap');
    lookups = new MongoOrderLookups(store);
    const statuses: OrderStatusDocument[] = members.map((m) => {
      const state: OrderStatusState = { clientId: 'C1', salesOrderNumber: m.so, sequence: 1, purchaseOrderNumber: po(m.po), statusId: 20, open: true, validTimestamp: new Date(m.at) };
      return { _id: documentId('C1', m.so), ...state, changedAt: new Date(m.at) };
    });
    const shipments: ShipmentsDocument[] = members.map((m) => shippedDocument(m.so, po(m.po), new Date(m.at), new Date(m.at)));
    await Promise.all([store.orderStatus.insertMany(statuses), store.shipments.insertMany(shipments)]);
  });

  const expectCap = (outline: [string, string[]][], first: [string, string[]]) => {
    expect(outline).toHaveLength(maxPurchaseOrdersPerAnswer);
    expect(outline[0]).toEqual(first);
    expect(outline.at(-1)).toEqual([po(maxPurchaseOrdersPerAnswer), ['SO-5000-a', 'SO-5000-b', 'SO-5000-c']]);
    expect(outline.map(([p]) => p)).not.toContain(po(maxPurchaseOrdersPerAnswer + 1));
  };

  it('status queryType 4: the first 5,000 purchase orders in order, the last one whole', async () => {
    const outline = statusOutline(await lookups.orderStatus(['C1'], { queryType: 4 })) as [string, string[]][];
    expectCap(outline, [po(1), ['SO-1-a', 'SO-1-z']]);
    expect(outline.map(([p]) => p)).toEqual(Array.from({ length: maxPurchaseOrdersPerAnswer }, (_, i) => po(i + 1)));
  });

  const poOf = (so: string) => members.find((m) => m.so === so)!.po;
  /** Every purchase order of the answer carries all of its sales orders (all of them changed since the timestamp). */
  const expectWhole = (outline: [string, string[]][]) => {
    for (const [p, sos] of outline) expect(sos.length, p).toBe(members.filter((m) => po(m.po) === p).length);
  };

  it('status queryType 3: the 5,000 purchase orders whose earliest change comes first, each with every sales order changed since', async () => {
    const outline = statusOutline(await lookups.orderStatus(['C1'], { queryType: 3, statusTimeStamp: new Date(0) })) as [string, string[]][];
    // PO-00001's SO-1-z changed after PO-05001..05003 (left out): it comes with PO-00001 all the same.
    expectCap(outline, [po(1), ['SO-1-a', 'SO-1-z']]);
    expect(outline.map(([p]) => p)).toEqual(Array.from({ length: maxPurchaseOrdersPerAnswer }, (_, i) => po(i + 1)));
    expectWhole(outline);
  });

  it('status queryType 3: a partner polling from the time of its previous poll gets what changed since, whole, and nothing twice', async () => {
    const firstPoll = new Date();
    expect(await lookups.orderStatus(['C1'], { queryType: 3, statusTimeStamp: new Date(0) })).toHaveLength(maxPurchaseOrdersPerAnswer);
    await sleep(changeTimeOverlapMs / 50);
    // After that poll: a status change of a purchase order the full answer left out, a change and
    // a new sales order of one it held. The store stamps the change time as the projector's writes do.
    const changed = async (so: string, purchaseOrder = poOf(so)) =>
      store.orderStatus.updateOne(
        { _id: documentId('C1', so) },
        { $set: { statusId: 60, purchaseOrderNumber: po(purchaseOrder) }, $setOnInsert: { clientId: 'C1', salesOrderNumber: so, sequence: 1, open: true, validTimestamp: new Date() }, $currentDate: { changedAt: true } },
        { upsert: true },
      );
    await changed('SO-5002-a');
    await changed('SO-2-a');
    await changed('SO-2-new', 2);
    const secondPoll = new Date(Date.now() + changeTimeOverlapMs); // after the overlap, nothing of before comes back
    await sleep(changeTimeOverlapMs + 50);
    const next = await lookups.orderStatus(['C1'], { queryType: 3, statusTimeStamp: firstPoll });
    expect(statusOutline(next)).toEqual([
      [po(5002), ['SO-5002-a']],
      [po(2), ['SO-2-a', 'SO-2-new']],
    ]);
    expect(next.flatMap((o) => o.details.map((d) => d.statusID))).toEqual([60, 60, 60]);
    expect(await lookups.orderStatus(['C1'], { queryType: 3, statusTimeStamp: secondPoll })).toEqual([]);
  });

  it('shipment queryType 3: the 5,000 purchase orders whose earliest shipment comes first, whole; moving to the earliest shipment of the last one misses nothing', async () => {
    const answer = await readShipmentsWhole(lookups, ['C1'], { queryType: 3, shipmentDateTimeStamp: new Date(base) });
    const outline = shipmentOutline(answer) as [string, string[]][];
    expectCap(outline, [po(1), ['SO-1-a', 'SO-1-z']]);
    expectWhole(outline);
    const last = answer.at(-1)!;
    const resume = new Date(Math.min(...last.salesOrders.flatMap((s) => s.locations.flatMap((l) => l.packages.map((p) => p.shipmentDate.getTime())))));
    const next = shipmentOutline(await readShipmentsWhole(lookups, ['C1'], { queryType: 3, shipmentDateTimeStamp: resume })) as [string, string[]][];
    expect(next.map(([p]) => p)).toEqual([po(maxPurchaseOrdersPerAnswer), po(maxPurchaseOrdersPerAnswer + 1), po(maxPurchaseOrdersPerAnswer + 2), po(maxPurchaseOrdersPerAnswer + 3), po(1)]);
    expect(next.at(-1)?.[1]).toEqual(['SO-1-z']);
  });
  it('shipment queryType 3: a package posted late comes first; resuming from the earliest shipmentDate of the last purchase order still misses nothing', async () => {
    // Shipped an hour before the timestamp, made visible after it (within what the first poll covers).
    await store.shipments.insertOne(shippedDocument('SO-LATE', 'PO-LATE', new Date(base - 3_600_000), new Date(base + 50 * apart + 5)));
    try {
      const answer = await readShipmentsWhole(lookups, ['C1'], { queryType: 3, shipmentDateTimeStamp: new Date(base) });
      const outline = shipmentOutline(answer) as [string, string[]][];
      expect(outline).toHaveLength(maxPurchaseOrdersPerAnswer);
      expect(outline.slice(0, 2)).toEqual([
        ['PO-LATE', ['SO-LATE']],
        [po(1), ['SO-1-a', 'SO-1-z']],
      ]);
      expect(outline.at(-1)).toEqual([po(maxPurchaseOrdersPerAnswer - 1), [`SO-${maxPurchaseOrdersPerAnswer - 1}-a`]]);
      expectWhole(outline.slice(1));
      const last = answer.at(-1)!;
      const resume = new Date(Math.min(...last.salesOrders.flatMap((s) => s.locations.flatMap((l) => l.packages.map((p) => p.shipmentDate.getTime())))));
      const next = shipmentOutline(await readShipmentsWhole(lookups, ['C1'], { queryType: 3, shipmentDateTimeStamp: resume })) as [string, string[]][];
      expect(next.map(([p]) => p)).toEqual([maxPurchaseOrdersPerAnswer - 1, maxPurchaseOrdersPerAnswer, maxPurchaseOrdersPerAnswer + 1, maxPurchaseOrdersPerAnswer + 2, maxPurchaseOrdersPerAnswer + 3, 1].map(po));
    } finally {
      await store.shipments.deleteOne({ _id: documentId('C1', 'SO-LATE') });
    }
  });
});

describe('a capped shipment queryType 3 answer holds exactly 5,000 purchase orders, whole', () => {
  // 5,003 purchase orders with a package each, and before them 80 whose only news has nothing to
  // answer (a sales order completed as a whole with no location: its flag changed, nothing shows).
  const total = maxPurchaseOrdersPerAnswer + 3;
  const po = (n: number) => `PO-${String(n).padStart(5, '0')}`;
  const base = Date.parse('2025-01-01T00:00:00Z');
  let lookups: MongoOrderLookups;

  beforeAll(async () => {
    const store = await freshStore('lookups-cap-refill');
    lookups = new MongoOrderLookups(store);
    const shipped = Array.from({ length: total }, (_, i) => shippedDocument(`SO-${i + 1}`, po(i + 1), new Date(base + (i + 1) * 10_000), new Date(base + (i + 1) * 10_000)));
    const silent: ShipmentsDocument[] = Array.from({ length: 80 }, (_, i) => ({
      _id: documentId('C1', `SO-E${i}`),
      clientId: 'C1',
      salesOrderNumber: `SO-E${i}`,
      sequence: 2,
      // Keyed at the timestamp as every other one here (each came under its purchase order since): first by number.
      purchaseOrderNumber: `PO-0000-E${String(i).padStart(2, '0')}`,
      completedAsWhole: true,
      complete: true,
      locations: [],
      completeChangedAt: new Date(base + 1),
      purchaseOrderSetAt: new Date(base - 86_400_000),
      lastNewsAt: new Date(base + 1),
    }));
    await store.shipments.insertMany([...shipped, ...silent]);
  });

  it('a chosen purchase order with nothing to answer makes room for the next one (1.0.0 and 2.0.0)', async () => {
    const v1 = await readShipmentsWhole(lookups, ['C1'], { queryType: 3, shipmentDateTimeStamp: new Date(base) });
    expect(v1.map((o) => o.purchaseOrderNumber)).toEqual(Array.from({ length: maxPurchaseOrdersPerAnswer }, (_, i) => po(i + 1)));
    const v2 = await readWhole(await lookups.shipmentNotificationV2Batches(['C1'], { queryType: 3, shipmentDateTimeStamp: new Date(base) }));
    expect(v2.more).toBe(true);
    expect(v2.orders.map((o) => o.purchaseOrderNumber)).toEqual(Array.from({ length: maxPurchaseOrdersPerAnswer }, (_, i) => po(i + 1)));
  });
});

describe('status queryType 3: purchase orders that first changed at the same time as the last one that fits', () => {
  // 4,997 purchase orders of C1 changed one after another, then eight of C1 and C2 at the same
  // instant (stored in an order other than their numbers'), then a later change of two of them:
  // the answer keeps the first three of the eight by client and number, with their later changes.
  const po = (n: number) => `PO-${String(n).padStart(5, '0')}`;
  const base = Date.parse('2025-01-01T00:00:00Z');
  const tiedAt = base + maxPurchaseOrdersPerAnswer * 1_000;
  const tied: [string, number][] = [['C2', 4_998], ['C1', 5_002], ['C1', 5_000], ['C2', 4_997], ['C1', 4_999], ['C1', 4_998], ['C2', 5_001], ['C1', 5_001]];

  it('keeps them by client and number, each whole', async () => {
    const store = await freshStore('lookups-ties');
    const status = (clientId: string, so: string, n: number, at: number): OrderStatusDocument => ({
      _id: documentId(clientId, so),
      clientId,
      salesOrderNumber: so,
      sequence: 1,
      purchaseOrderNumber: po(n),
      statusId: 20,
      open: true,
      validTimestamp: new Date(at),
      changedAt: new Date(at),
    });
    const documents = [
      ...Array.from({ length: maxPurchaseOrdersPerAnswer - 3 }, (_, i) => status('C1', `SO-${i + 1}`, i + 1, base + (i + 1) * 1_000)),
      ...tied.map(([clientId, n]) => status(clientId, `SO-${n}-tied`, n, tiedAt)),
      status('C1', 'SO-4999-later', 4_999, tiedAt + 1_000),
      status('C1', 'SO-5001-later', 5_001, tiedAt + 1_000),
    ];
    for (let i = 0; i < documents.length; i += 2_000) await store.orderStatus.insertMany(documents.slice(i, i + 2_000));
    const answer = await new MongoOrderLookups(store).orderStatus(['C1', 'C2'], { queryType: 3, statusTimeStamp: new Date(0) });
    expect(answer).toHaveLength(maxPurchaseOrdersPerAnswer);
    // C1's tied purchase orders come before C2's, by number; PO-04999 with its later change.
    expect(statusOutline(answer.slice(-4))).toEqual([
      [po(4_997), ['SO-4997']],
      [po(4_998), ['SO-4998-tied']],
      [po(4_999), ['SO-4999-tied', 'SO-4999-later']],
      [po(5_000), ['SO-5000-tied']],
    ]);
  });
});

describe('shipment queryType 3 from an old timestamp reads as far as it answers', () => {
  // 12,000 purchase orders of C1 with one shipped sales order each, 200 a day over 60 days: a poll
  // from before the first finds 12,000 matching and answers the first 5,000 (25 days).
  const total = 12_000;
  const perDay = 200;
  const day = 24 * 3_600_000;
  const base = Date.parse('2025-03-01T00:00:00Z');
  const shippedAt = (n: number) => new Date(base + Math.floor(n / perDay) * day + (n % perDay) * 1_000);
  let watched: MongoClient;
  let store: ReadModelCollections;
  /** Documents the server sent for reads of the shipments collection not confined to chosen purchase orders. */
  let wholeSalesOrdersSent = 0;

  beforeAll(async () => {
    const names = uniqueNames('lookups-stream');
    store = await freshStore('lookups-stream');
    const shipments: ShipmentsDocument[] = Array.from({ length: total }, (_, n) => shippedDocument(`SO-${n}`, `PO-${String(n).padStart(5, '0')}`, shippedAt(n), shippedAt(n)));
    for (let i = 0; i < shipments.length; i += 2_000) await store.shipments.insertMany(shipments.slice(i, i + 2_000));

    // The same database through a client that counts the whole sales orders (documents carrying
    // their locations' addresses: the plan of an answer read in batches reads only their times)
    // the server sends for the shipments collection, whatever the command.
    watched = createMongoClient(env.mongodbUri, `lookups-stream-${names.suffix}`, { monitorCommands: true });
    watched.on('commandSucceeded', (event) => {
      const cursor = (event.reply as { cursor?: { ns?: string; firstBatch?: Document[]; nextBatch?: Document[] } }).cursor;
      if (!cursor?.ns?.endsWith(`.${store.shipments.collectionName}`)) return;
      wholeSalesOrdersSent += (cursor.firstBatch ?? cursor.nextBatch ?? []).filter((doc) => (doc['locations'] as { shipFrom?: unknown }[] | undefined)?.[0]?.shipFrom !== undefined).length;
    });
    await watched.connect();
  });
  afterAll(async () => {
    await watched?.close();
  });

  it('answers the first 5,000 purchase orders having read only their sales orders of the 12,000 that match', async () => {
    const lookups = new MongoOrderLookups(readModelCollections(watched.db(store.shipments.dbName), 1));
    wholeSalesOrdersSent = 0;
    const answer = await readShipmentsWhole(lookups, ['C1'], { queryType: 3, shipmentDateTimeStamp: new Date(base - day) });
    expect(answer.map((o) => o.purchaseOrderNumber)).toEqual(Array.from({ length: maxPurchaseOrdersPerAnswer }, (_, n) => `PO-${String(n).padStart(5, '0')}`));
    // The server chooses the purchase orders from the dates alone; only the answered sales orders are sent whole.
    expect(wholeSalesOrdersSent).toBe(maxPurchaseOrdersPerAnswer);
  });
});
