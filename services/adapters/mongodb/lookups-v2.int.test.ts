import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from '../../../contracts/erp-event-schema.js';
import type { CappedAnswer, ShipmentNotificationV2View } from '../../../contracts/lookup-answers-v2.js';
import { readWhole, type OrderStatusV2Query } from '../../../contracts/lookups.js';
import type { IssueState, LocationState, OrderStatusState, PackageState, ShipmentsState } from '../../../projections/state.js';
import type { ErpEvent } from '../../../contracts/erp-events.js';
import { evolveShipments } from '../../../projections/shipments.js';
import { asV2, locationRecorded, packageShipped, sampleShipFrom, sampleShipTo, statusChanged } from '../../../test/fixtures/sample-events.js';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { readShipmentsWhole } from '../../../test/support/read-shipments.js';
import { changeTimeOverlapMs } from './changed-since.js';
import { connectMongo } from './connect.js';
import { documentId, ensureIndexes, readModelCollections, type OrderStatusDocument, type ReadModelCollections } from './documents.js';
import { MongoOrderLookups } from './lookups.js';
import { maxPurchaseOrdersPerAnswer } from '../../../projections/lookups/purchase-order-groups.js';
import { writeEffects } from './writes.js';

// The 2.0.0 side of the read model against the real server (oss-osn-2.0.0.md §2, §4, §6, §7):
// states as the projections fold them (2.0.0 fields included), written with writeEffects, read
// by MongoOrderLookups' 2.0.0 lookups, and its 1.0.0 lookups shown blind to every 2.0.0 field.

const env = testEnvironment();
let mongo: MongoClient;

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'lookups-v2-test');
});
afterAll(async () => {
  await mongo?.close();
});

const stores: ReadModelCollections[] = [];
async function freshStore(label: string): Promise<ReadModelCollections> {
  const collections = readModelCollections(mongo.db(uniqueNames(label).database), 1);
  await ensureIndexes(collections);
  stores.push(collections);
  return collections;
}
afterAll(async () => {
  for (const store of stores) await mongo.db(store.orderStatus.dbName).dropDatabase();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const serverNow = async () => ((await mongo.db('admin').command({ hello: 1 })) as { localTime: Date }).localTime;

const validTimestamp = new Date('2026-11-01T10:00:00Z');

function status(salesOrderNumber: string, extra: Partial<OrderStatusState> = {}, clientId = 'C1'): OrderStatusState {
  return { clientId, salesOrderNumber, sequence: 1, statusSequence: 1, purchaseOrderNumber: 'PO-1', statusId: 20, open: true, validTimestamp, lastOccurredAt: validTimestamp, ...extra };
}

function issue(issueId: string, extra: Partial<IssueState> = {}): IssueState {
  return { issueId, issueStatus: 'Open', issueCategory: 'artHold', urgentResponseRequired: false, source: 'erp', firstSequence: 2, ...extra };
}

const insert = (store: ReadModelCollections, ...states: OrderStatusState[]) => writeEffects(store, { orderStatus: states.map((after) => ({ after })), shipments: [] });
const update = (store: ReadModelCollections, before: OrderStatusState, after: OrderStatusState) => writeEffects(store, { orderStatus: [{ before, after }], shipments: [] });
const stored = async (store: ReadModelCollections, so: string, clientId = 'C1') => (await store.orderStatus.findOne({ _id: documentId(clientId, so) })) as OrderStatusDocument;

const query = (q: Partial<OrderStatusV2Query> & Pick<OrderStatusV2Query, 'queryType'>): OrderStatusV2Query => ({ returnIssueDetailType: 'noIssues', returnProductDetail: false, ...q });

describe('order-status documents: 2.0.0 store fields and change times', () => {
  it('stamps changedAt only when the status sequence moves, updatedAt on every write, and keeps issueIds and openIssue', async () => {
    const store = await freshStore('v2-writes');
    const first = status('SO-1');
    await insert(store, first);
    const a = await stored(store, 'SO-1');
    expect(a.changedAt).toBeInstanceOf(Date);
    expect(a.updatedAt).toBeInstanceOf(Date);
    expect([a.issueIds, a.openIssue]).toEqual([[], false]);

    await sleep(20);
    // An IssueRecorded: sequence moves, the status sequence does not.
    const second = { ...first, sequence: 2, issues: [issue('I-1')] };
    await update(store, first, second);
    const b = await stored(store, 'SO-1');
    expect(b.changedAt).toEqual(a.changedAt);
    expect(b.updatedAt!.getTime()).toBeGreaterThan(a.updatedAt!.getTime());
    expect([b.issueIds, b.openIssue]).toEqual([['I-1'], true]);

    await sleep(20);
    const third = { ...second, sequence: 3, statusSequence: 3, statusId: 60 as const, issues: [issue('I-1', { issueStatus: 'Closed', closedSequence: 3 })] };
    await update(store, second, third);
    const c = await stored(store, 'SO-1');
    expect(c.changedAt!.getTime()).toBeGreaterThan(a.changedAt!.getTime());
    expect(c.updatedAt!.getTime()).toBeGreaterThan(b.updatedAt!.getTime());
    expect([c.issueIds, c.openIssue]).toEqual([['I-1'], false]);
  });

  it('gives no 1.0.0 change time to a document that has no status yet, and removes 2.0.0 fields a later state lacks', async () => {
    const store = await freshStore('v2-nostatus');
    const contactsOnly: OrderStatusState = { clientId: 'C1', salesOrderNumber: 'SO-1', sequence: 1, contacts: [{ contactType: 'Art', email: 'a@example.com' }] };
    await insert(store, contactsOnly);
    const a = await stored(store, 'SO-1');
    expect(a.changedAt).toBeUndefined();
    expect(a.updatedAt).toBeInstanceOf(Date);
    const withStatus = status('SO-1', { sequence: 2, statusSequence: 2, statusV2: 'shipped', contacts: contactsOnly.contacts });
    await update(store, contactsOnly, withStatus);
    expect((await stored(store, 'SO-1')).changedAt).toBeInstanceOf(Date);
    const { statusV2: _, ...plain } = { ...withStatus, sequence: 3, statusSequence: 3 };
    await update(store, withStatus, plain);
    expect((await stored(store, 'SO-1')).statusV2).toBeUndefined();
  });
});

describe('1.0.0 lookups see no 2.0.0 field', () => {
  const shipFromV2 = { ...sampleShipFrom, attentionTo: 'Dock 4', companyName: 'ACME', email: 'dock@example.com', phone: '555-0100', regionV2: 'TX' } as Address;
  const pkg = (v2: boolean): PackageState =>
    ({
      packageId: 1,
      trackingNumber: 'TRK-1',
      shipmentDate: new Date('2026-11-02T08:00:00Z'),
      carrier: 'UPS',
      ...(v2 ? { carrierService: 'Ground', preProductionProof: 'Yes' } : {}),
      items: [{ supplierProductId: 'P-1', quantity: 3, ...(v2 ? { uom: 'BX' } : {}) }],
    }) as PackageState;
  const shipments = (v2: boolean): ShipmentsState => ({
    clientId: 'C1',
    salesOrderNumber: 'SO-1',
    sequence: 5,
    purchaseOrderNumber: 'PO-1',
    completedAsWhole: false,
    complete: false,
    locations: [{ locationId: 1, complete: false, ...(v2 ? { customerPickup: true } : {}), shipFrom: v2 ? shipFromV2 : sampleShipFrom, shipTo: sampleShipTo, packages: [pkg(v2)] }],
  });
  const statuses = (v2: boolean): OrderStatusState =>
    v2
      ? status('SO-1', {
          sequence: 7,
          statusSequence: 3,
          statusId: 42,
          progressStatusId: 60,
          statusV2: 'inProduction',
          expectedShipDay: '2026-11-20',
          additionalExplanation: 'waiting on art',
          issues: [issue('I-1')],
          contacts: [{ contactType: 'Art' }],
          lines: [{ salesOrderLineNumber: '1', productId: 'P-1', quantityOrdered: { value: 3, uom: 'EA' } }],
        })
      : status('SO-1', { sequence: 3, statusSequence: 3, statusId: 42 });

  it('answers every 1.0.0 queryType over documents with 2.0.0 fields exactly as over the same without them', async () => {
    const [plain, extended] = [await freshStore('v1-plain'), await freshStore('v1-extended')];
    for (const [store, v2] of [[plain, false], [extended, true]] as const) {
      await writeEffects(store, { orderStatus: [{ after: statuses(v2) }], shipments: [{ after: shipments(v2) }] });
    }
    const [a, b] = [new MongoOrderLookups(plain), new MongoOrderLookups(extended)];
    const statusQueries = [{ queryType: 1, referenceNumber: 'PO-1' }, { queryType: 2, referenceNumber: 'SO-1' }, { queryType: 3, statusTimeStamp: new Date(0) }, { queryType: 4 }];
    for (const q of statusQueries) {
      const answer = await b.orderStatus(['C1'], q);
      expect(answer.length, JSON.stringify(q)).toBe(1);
      expect(answer, JSON.stringify(q)).toStrictEqual(await a.orderStatus(['C1'], q));
    }
    for (const q of [{ queryType: 1, referenceNumber: 'PO-1' }, { queryType: 2, referenceNumber: 'SO-1' }, { queryType: 3, shipmentDateTimeStamp: new Date(0) }]) {
      const answer = await readShipmentsWhole(b, ['C1'], q);
      expect(answer.length, JSON.stringify(q)).toBe(1);
      expect(answer, JSON.stringify(q)).toStrictEqual(await readShipmentsWhole(a, ['C1'], q));
    }
  });
});

describe('OSS 2.0.0 lookups', () => {
  let store: ReadModelCollections;
  let lookups: MongoOrderLookups;
  const hold = (extra: Partial<IssueState> = {}) => issue('ossn-hold-aaaa', { source: 'hold', issueCategory: 'artHold', issueName: 'Art Hold', firstSequence: 1, ...extra });

  beforeAll(async () => {
    store = await freshStore('v2-status');
    lookups = new MongoOrderLookups(store);
    await insert(
      store,
      // PO-1: a hold after production began, its derived issue hidden by an open ERP issue of its category.
      status('SO-1', {
        statusId: 43,
        progressStatusId: 60,
        expectedShipDay: '2026-11-20',
        expectedDeliveryDay: '2026-11-23',
        additionalExplanation: 'art missing',
        qualityProofURL: 'https://proof.example.com/1',
        contacts: [{ contactType: 'Art', email: 'art@example.com' }, { contactType: 'Bill', accountNumber: 'A-7' }],
        lines: [
          { salesOrderLineNumber: '1', productId: 'P-1', quantityOrdered: { value: 10, uom: 'EA' } },
          { salesOrderLineNumber: '2', productId: 'P-2', partId: 'P-2-RED', quantityOrdered: { value: 5, uom: 'BX' }, status: 'shipped', issueCategory: 'backOrderHold' },
        ],
        issues: [
          hold(),
          issue('I-OLD', { issueCategory: 'creditHold', issueStatus: 'Closed', firstSequence: 2, closedSequence: 3 }),
          issue('I-ART', { issueCategory: 'artHold', issueStatus: 'Pending', firstSequence: 4, issueDescription: 'logo too small' }),
        ],
      }),
      // PO-1: a hold before any progress; its derived issue open and shown.
      status('SO-2', { statusId: 11, issues: [hold({ issueId: 'ossn-hold-bbbb', issueCategory: 'orderEntryHold', issueName: 'Order Entry Hold' })] }),
      // PO-2: the ERP's word, a closed derived hold.
      status('SO-3', { purchaseOrderNumber: 'PO-2', statusId: 60, statusV2: 'shipped', issues: [hold({ issueId: 'ossn-hold-cccc', issueStatus: 'Closed', closedSequence: 2 })] }),
      // PO-0: complete, no issues.
      status('SO-4', { purchaseOrderNumber: 'PO-0', statusId: 80, open: false }),
      // No purchase order: never answered, its issue not found.
      { clientId: 'C1', salesOrderNumber: 'SO-5', sequence: 1, issues: [issue('I-NOPO')] },
      // Another client, same numbers and issue id.
      status('SO-1', { issues: [issue('I-ART')] }, 'C2'),
    );
  });

  it('poSearch: maps status, issue category, dates, texts, contacts and validTimestamp; no issues or products unless asked', async () => {
    const answer = await lookups.orderStatusV2(['C1'], query({ queryType: 'poSearch', referenceNumber: 'PO-1' }));
    expect(answer.more).toBe(false);
    expect(answer.orders).toEqual([
      {
        purchaseOrderNumber: 'PO-1',
        details: [
          {
            salesOrderNumber: 'SO-1',
            status: 'inProduction',
            issueCategory: 'artHold',
            expectedShipDate: '2026-11-20',
            expectedDeliveryDate: '2026-11-23',
            additionalExplanation: 'art missing',
            qualityProofURL: 'https://proof.example.com/1',
            contacts: [{ contactType: 'Art', email: 'art@example.com' }, { contactType: 'Bill', accountNumber: 'A-7' }],
            issues: [],
            validTimestamp,
          },
          { salesOrderNumber: 'SO-2', status: 'received', issueCategory: 'orderEntryHold', contacts: [], issues: [], validTimestamp },
        ],
      },
    ]);
  });

  it('returnIssueDetailType: open ones or all, an open derived hold hidden behind an open ERP issue of its category, closed ones listed under all', async () => {
    const ids = async (returnIssueDetailType: OrderStatusV2Query['returnIssueDetailType'], referenceNumber = 'PO-1') =>
      (await lookups.orderStatusV2(['C1'], query({ queryType: 'poSearch', referenceNumber, returnIssueDetailType }))).orders[0]!.details.map((d) => d.issues.map((i) => i.issueId));
    expect(await ids('openIssues')).toEqual([['I-ART'], ['ossn-hold-bbbb']]);
    expect(await ids('allIssues')).toEqual([['I-OLD', 'I-ART'], ['ossn-hold-bbbb']]);
    expect(await ids('allIssues', 'PO-2')).toEqual([['ossn-hold-cccc']]);
    expect(await ids('openIssues', 'PO-2')).toEqual([[]]);
    const [detail] = (await lookups.orderStatusV2(['C1'], query({ queryType: 'soSearch', referenceNumber: 'SO-1', returnIssueDetailType: 'allIssues' }))).orders[0]!.details;
    // As answered: the read model's bookkeeping (source, sequences) left out.
    expect(detail!.issues[1]).toEqual({ issueId: 'I-ART', issueStatus: 'Pending', issueCategory: 'artHold', urgentResponseRequired: false, issueDescription: 'logo too small' });
  });

  it('returnProductDetail: the lines, each with its own status or else the detail’s', async () => {
    const answer = await lookups.orderStatusV2(['C1'], query({ queryType: 'soSearch', referenceNumber: 'SO-1', returnProductDetail: true }));
    expect(answer.orders[0]!.details[0]!.products).toEqual([
      { salesOrderLineNumber: '1', productId: 'P-1', quantityOrdered: { value: 10, uom: 'EA' }, status: 'inProduction' },
      { salesOrderLineNumber: '2', productId: 'P-2', partId: 'P-2-RED', quantityOrdered: { value: 5, uom: 'BX' }, status: 'shipped', issueCategory: 'backOrderHold' },
    ]);
    const second = await lookups.orderStatusV2(['C1'], query({ queryType: 'soSearch', referenceNumber: 'SO-2', returnProductDetail: true }));
    expect(second.orders[0]!.details[0]!.products).toEqual([]);
  });

  it('statusV2 overrides the mapped word (the only source of shipped)', async () => {
    const answer = await lookups.orderStatusV2(['C1'], query({ queryType: 'poSearch', referenceNumber: 'PO-2' }));
    expect(answer.orders[0]!.details[0]!.status).toBe('shipped');
  });

  it('allOpen and allOpenIssues: by purchase order then sales order, of the credential’s clients', async () => {
    const outline = async (q: OrderStatusV2Query, clients = ['C1']) => (await lookups.orderStatusV2(clients, q)).orders.map((o) => [o.purchaseOrderNumber, o.details.map((d) => d.salesOrderNumber)]);
    expect(await outline(query({ queryType: 'allOpen' }))).toEqual([['PO-1', ['SO-1', 'SO-2']], ['PO-2', ['SO-3']]]);
    expect(await outline(query({ queryType: 'allOpenIssues', returnIssueDetailType: 'openIssues' }))).toEqual([['PO-1', ['SO-1', 'SO-2']]]);
    expect(await outline(query({ queryType: 'allOpenIssues' }), ['C2'])).toEqual([['PO-1', ['SO-1']]]);
    expect(await outline(query({ queryType: 'allOpenIssues' }), [])).toEqual([]);
  });

  it('getIssue: every stored issue of that id on an answerable sales order of the clients, derived and hidden ones included', async () => {
    expect(await lookups.issues(['C1'], 'I-ART')).toEqual([{ issueId: 'I-ART', issueStatus: 'Pending', issueCategory: 'artHold', urgentResponseRequired: false, issueDescription: 'logo too small' }]);
    expect((await lookups.issues(['C1'], 'ossn-hold-aaaa')).map((i) => [i.issueId, i.issueStatus])).toEqual([['ossn-hold-aaaa', 'Open']]);
    expect((await lookups.issues(['C1', 'C2'], 'I-ART')).length).toBe(2);
    expect(await lookups.issues(['C2'], 'I-OLD')).toEqual([]);
    expect(await lookups.issues(['C1'], 'I-NOPO')).toEqual([]);
    expect(await lookups.issues(['C1'], 'I-UNKNOWN')).toEqual([]);
  });

  it('lastUpdate: sales orders written after the timestamp less the overlap, 2.0.0-only changes included; 1.0.0 queryType 3 shows those not', async () => {
    const since = new Date((await serverNow()).getTime() + changeTimeOverlapMs + 1);
    await sleep(changeTimeOverlapMs + 50);
    const before = await stored(store, 'SO-2');
    const { changedAt: _c, updatedAt: _u, issueIds: _i, openIssue: _o, _id, ...state } = before;
    await update(store, state, { ...state, sequence: 9, contacts: [{ contactType: 'Sold' }] });
    const lastUpdate = await lookups.orderStatusV2(['C1'], query({ queryType: 'lastUpdate', statusTimeStamp: since }));
    expect(lastUpdate.orders.map((o) => [o.purchaseOrderNumber, o.details.map((d) => d.salesOrderNumber)])).toEqual([['PO-1', ['SO-2']]]);
    expect(await lookups.orderStatus(['C1'], { queryType: 3, statusTimeStamp: since })).toEqual([]);
  });
});

describe('the 5,000 purchase-order cap (2.0.0 says when more matched)', () => {
  it('answers 5,000 with more when 5,001 matched, and without when exactly 5,000 did', async () => {
    const store = await freshStore('v2-cap');
    const lookups = new MongoOrderLookups(store);
    const at = new Date();
    const docs = Array.from({ length: maxPurchaseOrdersPerAnswer + 1 }, (_, i) => {
      const so = `SO-${String(i).padStart(5, '0')}`;
      return { _id: documentId('C1', so), ...status(so, { purchaseOrderNumber: `PO-${String(i).padStart(5, '0')}` }), changedAt: at, updatedAt: new Date(at.getTime() + i), issueIds: [], openIssue: false };
    });
    await store.orderStatus.insertMany(docs);
    const all = await lookups.orderStatusV2(['C1'], query({ queryType: 'allOpen' }));
    expect([all.orders.length, all.more, all.orders.at(-1)!.purchaseOrderNumber]).toEqual([maxPurchaseOrdersPerAnswer, true, 'PO-04999']);
    const polled = await lookups.orderStatusV2(['C1'], query({ queryType: 'lastUpdate', statusTimeStamp: new Date(0) }));
    expect([polled.orders.length, polled.more, polled.orders.at(-1)!.purchaseOrderNumber]).toEqual([maxPurchaseOrdersPerAnswer, true, 'PO-04999']);
    await store.orderStatus.deleteOne({ _id: documentId('C1', 'SO-05000') });
    expect((await lookups.orderStatusV2(['C1'], query({ queryType: 'allOpen' }))).more).toBe(false);
    expect((await lookups.orderStatusV2(['C1'], query({ queryType: 'lastUpdate', statusTimeStamp: new Date(0) }))).more).toBe(false);
  });

  it('OSN queryTypes 1 and 3: 5,000 purchase orders with more when 5,001 matched, and without when exactly 5,000 did', async () => {
    const store = await freshStore('v2-osn-cap');
    const lookups = new MongoOrderLookups(store);
    // One purchase order number under 5,001 clients (a credential may hold them all): 5,001 purchase orders for queryType 1 too.
    const clientIds = Array.from({ length: maxPurchaseOrdersPerAnswer + 1 }, (_, i) => `C${String(i).padStart(5, '0')}`);
    const pkg = { packageId: 1, trackingNumber: 'TRK-1', shipmentDate: new Date('2026-11-02T08:00:00Z') };
    const states = clientIds.map(
      (clientId): ShipmentsState => ({
        clientId,
        salesOrderNumber: 'SO-1',
        sequence: 1,
        purchaseOrderNumber: 'PO-1',
        completedAsWhole: false,
        complete: false,
        locations: [{ locationId: 1, complete: false, shipFrom: sampleShipFrom, shipTo: sampleShipTo, packages: [pkg] }],
      }),
    );
    await writeEffects(store, { orderStatus: [], shipments: states.map((after) => ({ after })) });
    const outline = (answer: CappedAnswer<ShipmentNotificationV2View>) => [answer.orders.length, answer.more];
    const byNumber = async () => readWhole(await lookups.shipmentNotificationV2Batches(clientIds, { queryType: 1, referenceNumber: 'PO-1' }));
    const polled = async () => readWhole(await lookups.shipmentNotificationV2Batches(clientIds, { queryType: 3, shipmentDateTimeStamp: new Date(0) }));
    expect(outline(await byNumber())).toEqual([maxPurchaseOrdersPerAnswer, true]);
    expect(outline(await polled())).toEqual([maxPurchaseOrdersPerAnswer, true]);
    await store.shipments.deleteOne({ _id: documentId('C05000', 'SO-1') });
    expect(outline(await byNumber())).toEqual([maxPurchaseOrdersPerAnswer, false]);
    expect(outline(await polled())).toEqual([maxPurchaseOrdersPerAnswer, false]);
  }, 60_000);

  it('OSN queryType 3: purchase orders whose news holds no package (2.0.0 answers none of it) leave their places to those that have one', async () => {
    const store = await freshStore('v2-osn-cap-packageless');
    const lookups = new MongoOrderLookups(store);
    const withoutPackages = 3;
    const clientIds = Array.from({ length: maxPurchaseOrdersPerAnswer + withoutPackages }, (_, i) => `C${String(i).padStart(5, '0')}`);
    const pkg = { packageId: 1, trackingNumber: 'TRK-1', shipmentDate: new Date('2026-11-02T08:00:00Z') };
    // The first clients' purchase orders hold only a completed location without packages: news for 1.0.0, keyed at the
    // timestamp (before every package), so chosen first; nothing for 2.0.0.
    const states = clientIds.map(
      (clientId, i): ShipmentsState => ({
        clientId,
        salesOrderNumber: 'SO-1',
        sequence: 1,
        purchaseOrderNumber: 'PO-1',
        completedAsWhole: false,
        complete: i < withoutPackages,
        locations: [{ locationId: 1, complete: i < withoutPackages, shipFrom: sampleShipFrom, shipTo: sampleShipTo, packages: i < withoutPackages ? [] : [pkg] }],
      }),
    );
    await writeEffects(store, { orderStatus: [], shipments: states.map((after) => ({ after })) });
    const polled = { queryType: 3, shipmentDateTimeStamp: new Date(0) } as const;
    expect((await readShipmentsWhole(lookups, clientIds, polled)).slice(0, withoutPackages).map((o) => o.salesOrders[0]!.locations[0]!.packages)).toEqual([[], [], []]);
    const answer = await readWhole(await lookups.shipmentNotificationV2Batches(clientIds, polled));
    expect([answer.orders.length, answer.more]).toEqual([maxPurchaseOrdersPerAnswer, false]);
    expect(answer.orders.every((o) => o.salesOrders[0]!.shipments[0]!.packages.length === 1)).toBe(true);
  }, 60_000);
});

describe('OSN 2.0.0 lookups', () => {
  let store: ReadModelCollections;
  let lookups: MongoOrderLookups;
  const shipped = (packageId: number, shipmentDate: string, extra: object = {}): PackageState =>
    ({ packageId, trackingNumber: `TRK-${packageId}`, shipmentDate: new Date(shipmentDate), ...extra }) as PackageState;
  const location = (locationId: number, packages: PackageState[], extra: Partial<LocationState> = {}): LocationState => ({
    locationId,
    complete: false,
    shipFrom: sampleShipFrom,
    shipTo: sampleShipTo,
    packages,
    ...extra,
  });
  const shipments = (salesOrderNumber: string, purchaseOrderNumber: string, locations: LocationState[]): ShipmentsState => ({
    clientId: 'C1',
    salesOrderNumber,
    sequence: 1,
    purchaseOrderNumber,
    completedAsWhole: false,
    complete: locations.length > 0 && locations.every((l) => l.complete),
    locations,
  });
  let afterFirstWrites: Date;

  beforeAll(async () => {
    store = await freshStore('v2-shipments');
    lookups = new MongoOrderLookups(store);
    const states = [
      shipments('SO-1', 'PO-1', [
        location(1, [shipped(1, '2026-11-02T08:00:00Z', { carrier: 'UPS', carrierService: 'Ground', preProductionProof: 'No', items: [{ supplierProductId: 'P-1', quantity: 2, uom: 'BX' }] })], {
          customerPickup: true,
          shipFrom: { ...sampleShipFrom, attentionTo: 'Dock 4', regionV2: 'TX' } as Address,
        }),
        location(2, []),
      ]),
      // A sales order with locations but no package: not answered in 2.0.0.
      shipments('SO-2', 'PO-1', [location(3, [])]),
      shipments('SO-3', 'PO-2', [location(1, [])]),
    ];
    await writeEffects(store, { orderStatus: [], shipments: states.map((after) => ({ after })) });
    afterFirstWrites = new Date((await serverNow()).getTime() + changeTimeOverlapMs + 1);
  });

  it('queryType 1 and 2: only locations with a package, their 2.0.0 fields as stored; a sales order without packages left out', async () => {
    const answer = await readWhole(await lookups.shipmentNotificationV2Batches(['C1'], { queryType: 1, referenceNumber: 'PO-1' }));
    expect(answer).toEqual({
      orders: [
        {
          purchaseOrderNumber: 'PO-1',
          complete: false,
          salesOrders: [
            {
              salesOrderNumber: 'SO-1',
              complete: false,
              shipments: [
                {
                  id: 1,
                  complete: false,
                  customerPickup: true,
                  shipFromAddress: { ...sampleShipFrom, attentionTo: 'Dock 4', regionV2: 'TX' },
                  shipToAddress: sampleShipTo,
                  packages: [{ id: 1, trackingNumber: 'TRK-1', shipmentDate: new Date('2026-11-02T08:00:00Z'), carrier: 'UPS', carrierService: 'Ground', preProductionProof: 'No', items: [{ supplierProductId: 'P-1', quantity: 2, uom: 'BX' }] }],
                },
              ],
            },
          ],
        },
      ],
      more: false,
    });
    expect(await readWhole(await lookups.shipmentNotificationV2Batches(['C1'], { queryType: 2, referenceNumber: 'SO-2' }))).toEqual({ orders: [], more: false });
    expect(await readWhole(await lookups.shipmentNotificationV2Batches(['C1'], { queryType: 1, referenceNumber: 'PO-2' }))).toEqual({ orders: [], more: false });
    expect(await readWhole(await lookups.shipmentNotificationV2Batches(['C2'], { queryType: 1, referenceNumber: 'PO-1' }))).toEqual({ orders: [], more: false });
  });

  it('queryType 3: a location with a new package is answered with its new packages alone, as 1.0.0; a location whose news holds no package is left out', async () => {
    await sleep(changeTimeOverlapMs + 50);
    const [before] = await store.shipments.find({ _id: documentId('C1', 'SO-1') }, { projection: { _id: 0, completeChangedAt: 0, purchaseOrderSetAt: 0, lastNewsAt: 0, 'locations.completeChangedAt': 0, 'locations.packages.visibleAt': 0 } }).toArray();
    const state = before as unknown as ShipmentsState;
    // A second package at location 1, shipped long before the poll (posted late): news; location 2 completes without packages.
    const after: ShipmentsState = {
      ...state,
      sequence: 2,
      locations: [{ ...state.locations[0]!, packages: [...state.locations[0]!.packages, shipped(2, '2026-10-01T08:00:00Z')] }, { ...state.locations[1]!, complete: true }],
    };
    await writeEffects(store, { orderStatus: [], shipments: [{ before: state, after }] });
    const answer = await readWhole(await lookups.shipmentNotificationV2Batches(['C1'], { queryType: 3, shipmentDateTimeStamp: afterFirstWrites }));
    expect(answer.more).toBe(false);
    expect(answer.orders.map((o) => [o.purchaseOrderNumber, o.salesOrders.map((s) => [s.salesOrderNumber, s.shipments.map((l) => [l.id, l.packages.map((p) => p.id)])])])).toEqual([
      ['PO-1', [['SO-1', [[1, [2]]]]]],
    ]);
    // 1.0.0 answers the same poll with the new package alone, and the completed location without packages.
    const v1 = await readShipmentsWhole(lookups, ['C1'], { queryType: 3, shipmentDateTimeStamp: afterFirstWrites });
    expect(v1.map((o) => o.salesOrders.map((s) => s.locations.map((l) => [l.id, l.packages.map((p) => p.id)])))).toEqual([[[[1, [2]], [2, []]]]]);
  });

  it('queryType 3 orders purchase orders by what 2.0.0 answers: a location without packages, which it leaves out, does not put its purchase order first', async () => {
    const ordered = await freshStore('v2-news-order');
    const orderedLookups = new MongoOrderLookups(ordered);
    const flagAndPackage = shipments('SO-A', 'PO-A', [location(1, [], { complete: true }), location(2, [shipped(1, '2026-11-03T08:00:00Z')])]);
    const packageOnly = shipments('SO-B', 'PO-B', [location(1, [shipped(2, '2026-11-02T08:00:00Z')])]);
    await writeEffects(ordered, { orderStatus: [], shipments: [flagAndPackage, packageOnly].map((after) => ({ after })) });
    const polled = { queryType: 3, shipmentDateTimeStamp: new Date(0) } as const;
    // 1.0.0 answers PO-A's completed location without packages, keyed at the timestamp: PO-A first.
    const v1 = await readShipmentsWhole(orderedLookups, ['C1'], polled);
    expect(v1.map((o) => [o.purchaseOrderNumber, o.salesOrders.flatMap((so) => so.locations.map((l) => l.packages.length))])).toEqual([['PO-A', [0, 1]], ['PO-B', [1]]]);
    // 2.0.0 answers PO-A with its 3 November package alone: it comes after PO-B's of 2 November, as a partner reading it expects.
    const v2 = await readWhole(await orderedLookups.shipmentNotificationV2Batches(['C1'], polled));
    expect(v2.orders.map((o) => [o.purchaseOrderNumber, o.salesOrders.flatMap((so) => so.shipments.flatMap((l) => l.packages.map((p) => p.shipmentDate.toISOString())))])).toEqual([
      ['PO-B', ['2026-11-02T08:00:00.000Z']],
      ['PO-A', ['2026-11-03T08:00:00.000Z']],
    ]);
  });
});

describe('OSN 2.1.0 lookups: shipReferences (docs/design/queries.md)', () => {
  const fold = (state: ShipmentsState | undefined, ...events: ErpEvent[]) => events.reduce(evolveShipments, state)!;
  const referencesOf = (answer: CappedAnswer<ShipmentNotificationV2View>) =>
    answer.orders.map((o) => [o.purchaseOrderNumber, o.salesOrders.map((s) => [s.salesOrderNumber, s.shipments.map((l) => [l.id, l.packages.map((p) => [p.id, p.shipReferences])])])]);
  const ofPurchaseOrder = statusChanged(1, { purchaseOrderNumber: 'PO-R', statusId: 20 });
  const other = (event: ErpEvent): ErpEvent => ({ ...event, salesOrderNumber: 'SO-OTHER' });

  it('queryType 3: a package sent again with only its shipReferences changed is news to 2.1.0, not to 1.0.0 or 2.0.0; queryType 1 as 2.0.0 with them', async () => {
    const refs = await freshStore('v21-references');
    const refsLookups = new MongoOrderLookups(refs);
    const first = fold(undefined, ofPurchaseOrder, locationRecorded(2, 1), asV2(packageShipped(3, 1, 1, { shipReferences: ['PO 4711', 'Dept 12'] })));
    // Another sales order of the purchase order, left as it is: not answered by a news-only poll.
    const untouched = fold(undefined, ...[ofPurchaseOrder, locationRecorded(2, 1), packageShipped(3, 1, 7)].map(other));
    await writeEffects(refs, { orderStatus: [], shipments: [first, untouched].map((after) => ({ after })) });
    // A poll after the first writes, less the overlap: they are no news to it; the package shipped in 2025.
    const polled = { queryType: 3, shipmentDateTimeStamp: new Date((await serverNow()).getTime() + changeTimeOverlapMs + 1) } as const;
    await sleep(20);
    const nothingNew = { orders: [], more: false };
    // The same references sent again: no news to anyone.
    const again = fold(first, asV2(packageShipped(4, 1, 1, { shipReferences: ['PO 4711', 'Dept 12'] })));
    await writeEffects(refs, { orderStatus: [], shipments: [{ before: first, after: again }] });
    expect(await readWhole(await refsLookups.shipmentNotificationV21Batches(['C1'], polled))).toEqual(nothingNew);

    const changed = fold(again, asV2(packageShipped(5, 1, 1, { shipReferences: ['PO 4712'] })));
    await writeEffects(refs, { orderStatus: [], shipments: [{ before: again, after: changed }] });
    const v21 = await readWhole(await refsLookups.shipmentNotificationV21Batches(['C1'], polled));
    expect(v21.more).toBe(false);
    expect(referencesOf(v21)).toEqual([['PO-R', [['SO-9', [[1, [[1, ['PO 4712']]]]]]]]]);
    expect(await readWhole(await refsLookups.shipmentNotificationV2Batches(['C1'], polled))).toEqual(nothingNew);
    expect(await readShipmentsWhole(refsLookups, ['C1'], polled)).toEqual([]);
    // The same poll from another client sees nothing of it.
    expect(await readWhole(await refsLookups.shipmentNotificationV21Batches(['C2'], polled))).toEqual(nothingNew);

    // Cleared: news to 2.1.0 again, the package answered without them.
    await sleep(20);
    const later = { queryType: 3, shipmentDateTimeStamp: new Date((await serverNow()).getTime() + changeTimeOverlapMs + 1) } as const;
    await sleep(20);
    const cleared = fold(changed, packageShipped(6, 1, 1));
    await writeEffects(refs, { orderStatus: [], shipments: [{ before: changed, after: cleared }] });
    expect(referencesOf(await readWhole(await refsLookups.shipmentNotificationV21Batches(['C1'], later)))).toEqual([['PO-R', [['SO-9', [[1, [[1, undefined]]]]]]]]);
    expect(await readWhole(await refsLookups.shipmentNotificationV2Batches(['C1'], later))).toEqual(nothingNew);

    // queryType 1 and 2: 2.1.0's answer is 2.0.0's; both views hold the references (2.0.0's renderers leave them out).
    const byNumber = { queryType: 1, referenceNumber: 'PO-R' } as const;
    const v21ByNumber = await readWhole(await refsLookups.shipmentNotificationV21Batches(['C1'], byNumber));
    expect(v21ByNumber).toEqual(await readWhole(await refsLookups.shipmentNotificationV2Batches(['C1'], byNumber)));
    expect(referencesOf(v21ByNumber)).toEqual([['PO-R', [['SO-9', [[1, [[1, undefined]]]]], ['SO-OTHER', [[1, [[7, undefined]]]]]]]]);
    await writeEffects(refs, { orderStatus: [], shipments: [{ before: cleared, after: fold(cleared, asV2(packageShipped(7, 1, 1, { shipReferences: ['A', 'B', 'C', 'D'] }))) }] });
    const bySalesOrder = { queryType: 2, referenceNumber: 'SO-9' } as const;
    expect(referencesOf(await readWhole(await refsLookups.shipmentNotificationV21Batches(['C1'], bySalesOrder)))).toEqual([['PO-R', [['SO-9', [[1, [[1, ['A', 'B', 'C', 'D']]]]]]]]]);
    // The store's time stays out of the views.
    expect(JSON.stringify(await readWhole(await refsLookups.shipmentNotificationV21Batches(['C1'], { queryType: 3, shipmentDateTimeStamp: new Date(0) })))).not.toMatch(/referencesChangedAt|visibleAt/);
  });
});
