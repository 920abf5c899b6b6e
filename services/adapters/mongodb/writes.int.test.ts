import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoEvents } from '../../ossn/demo-events/demo-events.js';
import type { ErpEvent } from '../../../contracts/erp-events.js';
import { asV2, halfWrittenBatch, issueRecorded, locationRecorded, packageShipped, packageVoided, partitionZero, shipmentCompleted, statusChanged } from '../../../test/fixtures/sample-events.js';
import { evolveShipments } from '../../../projections/shipments.js';
import type { OrderStatusState, ShipmentsState } from '../../../projections/state.js';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { connectMongo } from './connect.js';
import { readModels, reference } from '../../../test/support/read-models.js';
import { ensureIndexes, readModelCollections, type ReadModelCollections, type ShipmentsDocument } from './documents.js';
import { projectBatch } from '../../projector/project-batch.js';
import { insertPipeline, plainInsert, plainUpdate, updatePipeline } from './shipments-update.js';
import { visibleTimes } from '../../../projections/polling/change-times.js';
import { loadStates, WriteConflictError, writeEffects } from './writes.js';
import type { LoadedStates, StateChange } from '../../../projections/batch.js';

const env = testEnvironment();
let mongo: MongoClient;

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'writes-test');
});
afterAll(async () => {
  await mongo?.close();
});

const status = (sequence: number, statusId: OrderStatusState['statusId'], extra: Partial<OrderStatusState> = {}): OrderStatusState => ({
  clientId: 'C1',
  salesOrderNumber: 'SO-1',
  sequence,
  statusId,
  open: statusId !== 80 && statusId !== 99,
  validTimestamp: new Date('2026-11-01T10:00:00Z'),
  ...extra,
});

const fresh = () => readModelCollections(mongo.db(uniqueNames('writes').database), 1);

describe('read-model writes against the real server', () => {
  it('creates the lookup indexes, and creating them again changes nothing', async () => {
    const collections = fresh();
    await ensureIndexes(collections);
    await ensureIndexes(collections);
    const names = (await collections.orderStatus.indexes()).map((i) => i.name).sort();
    expect(names).toEqual(['_id_', 'by_change_time', 'by_issue_id', 'by_purchase_order', 'by_sales_order', 'by_update_time', 'open_by_purchase_order', 'open_issues_by_purchase_order']);
    expect((await collections.shipments.indexes()).map((i) => i.name).sort()).toEqual(['_id_', 'by_left_time', 'by_news_time', 'by_purchase_order', 'by_sales_order']);
  });

  it('remakes an index whose definition changed since an earlier release, also when two processes start at once', async () => {
    const collections = fresh();
    // As an earlier release made them: whole (not partial), open_by_purchase_order without its last key.
    await collections.orderStatus.createIndexes([
      { name: 'by_change_time', key: { clientId: 1, changedAt: 1 } },
      { name: 'open_by_purchase_order', key: { clientId: 1, open: 1, purchaseOrderNumber: 1 } },
    ]);
    await collections.orderStatus.insertOne({ _id: 'C1:SO-1', ...status(1, 10, { purchaseOrderNumber: 'PO-1' }), changedAt: new Date() });
    try {
      // A projector and a replay starting together both find the old definitions.
      await Promise.all([ensureIndexes(collections), ensureIndexes(collections)]);
      const indexes = new Map((await collections.orderStatus.indexes()).map((i) => [i.name, i]));
      expect(indexes.get('by_change_time')).toMatchObject({ key: { clientId: 1, changedAt: 1 }, partialFilterExpression: { purchaseOrderNumber: { $exists: true } } });
      expect(indexes.get('open_by_purchase_order')).toMatchObject({ key: { clientId: 1, open: 1, purchaseOrderNumber: 1, salesOrderNumber: 1 } });
      expect(indexes.size).toBe(8);
    } finally {
      await mongo.db(collections.orderStatus.dbName).dropDatabase();
    }
  });

  it('stamps a server change time, removes fields the new state lacks, and reads back what it wrote', async () => {
    const collections = fresh();
    const before = Date.now();
    const first = status(1, 10, { purchaseOrderNumber: 'PO-1', responseRequired: true });
    await writeEffects(collections, { orderStatus: [{ after: first }], shipments: [] });
    const second = status(2, 20, { purchaseOrderNumber: 'PO-1' });
    await writeEffects(collections, { orderStatus: [{ before: first, after: second }], shipments: [] });

    const stored = await collections.orderStatus.findOne({ _id: 'C1:SO-1' });
    expect(stored?.responseRequired).toBeUndefined();
    expect(stored?.statusId).toBe(20);
    expect(stored?.changedAt!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect((await loadStates(collections, ['C1:SO-1'])).orderStatus.get('C1:SO-1')).toEqual(second);
  });

  it('removes whatever field the new state lacks: contract v2 fields, and one no list names', async () => {
    const collections = fresh();
    const line = { salesOrderLineNumber: '1', productId: 'PC61', quantityOrdered: { value: 12, uom: 'EA' as const } };
    const first = status(1, 10, { purchaseOrderNumber: 'PO-1', additionalExplanation: 'art missing', qualityProofURL: 'https://proof.example/1', lines: [line] });
    // A field of some later release, which no code here knows of.
    const withFuture = { ...first, futureField: 'later' } as OrderStatusState;
    await writeEffects(collections, { orderStatus: [{ after: withFuture }], shipments: [] });
    expect(await collections.orderStatus.findOne({ _id: 'C1:SO-1' })).toMatchObject({ additionalExplanation: 'art missing', lines: [line], futureField: 'later' });
    const second = status(2, 20, { purchaseOrderNumber: 'PO-1' });
    await writeEffects(collections, { orderStatus: [{ before: withFuture, after: second }], shipments: [] });

    const stored = (await collections.orderStatus.findOne({ _id: 'C1:SO-1' }))!;
    for (const field of ['additionalExplanation', 'qualityProofURL', 'lines', 'futureField']) expect(stored).not.toHaveProperty(field);
    expect((await loadStates(collections, ['C1:SO-1'])).orderStatus.get('C1:SO-1')).toEqual(second);
  });

  it('inserts a new sales order exactly as folded, empty arrays included, and reads it back equal', async () => {
    const collections = fresh();
    const noLocations: ShipmentsState = { clientId: 'C1', salesOrderNumber: 'SO-1', sequence: 1, completedAsWhole: false, complete: false, locations: [] };
    await writeEffects(collections, { orderStatus: [], shipments: [{ after: noLocations }] });
    const stored = await collections.shipments.findOne({ _id: 'C1:SO-1' });
    expect(stored?.locations).toEqual([]);
    expect(stored?.lastNewsAt).toBeUndefined();
    expect((await loadStates(collections, ['C1:SO-1'])).shipments.get('C1:SO-1')).toEqual(noLocations);
  });

  it('keeps the latest news time in step with the packages, their visible times and the location flags as a stored sales order changes', async () => {
    const collections = fresh();
    const address = { address1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701' };
    const parcel = (packageId: number, shipmentDate: string) => ({ packageId, trackingNumber: `1Z${packageId}`, shipmentDate: new Date(shipmentDate) });
    const location = { locationId: 1, complete: false, shipFrom: address, shipTo: address, packages: [parcel(1, '2026-11-02T08:00:00Z')] };
    const first: ShipmentsState = { clientId: 'C1', salesOrderNumber: 'SO-1', sequence: 1, completedAsWhole: false, complete: false, locations: [location] };
    // As the projections do: unchanged parts of the state are the very same objects.
    const purchaseOrderLearnt: ShipmentsState = { ...first, sequence: 2, purchaseOrderNumber: 'PO-1' };
    const secondPackage: ShipmentsState = {
      ...purchaseOrderLearnt,
      sequence: 3,
      locations: [{ ...location, packages: [...location.packages, parcel(2, '2099-11-05T08:00:00Z')] }],
    };
    const completed: ShipmentsState = { ...secondPackage, sequence: 4, complete: true, locations: [{ ...secondPackage.locations[0]!, complete: true }] };
    const steps = [first, purchaseOrderLearnt, secondPackage, completed];
    const latest = (doc: ShipmentsDocument) =>
      Math.max(...doc.locations.flatMap((l) => [l.completeChangedAt?.getTime() ?? 0, ...l.packages.flatMap((p) => [p.shipmentDate.getTime(), p.visibleAt!.getTime()])]));
    const after: [number, number][] = [];
    for (const [i, state] of steps.entries()) {
      await writeEffects(collections, { orderStatus: [], shipments: [{ before: steps[i - 1], after: state }] });
      const doc = (await collections.shipments.findOne({ _id: 'C1:SO-1' }))!;
      after.push([doc.lastNewsAt!.getTime(), latest(doc)]);
    }
    for (const [stored, expected] of after) expect(stored).toBe(expected);
    // A package dated ahead is the latest news until it is past.
    expect(after[2]![0]).toBe(Date.parse('2099-11-05T08:00:00Z'));
    expect((await loadStates(collections, ['C1:SO-1'])).shipments.get('C1:SO-1')).toEqual(completed);
  });

  it('stamps a package’s references time where its shipReferences change, keeps the news time at or after it when a write recomputes it, and reads back the state without it', async () => {
    const collections = fresh();
    const fold = (state: ShipmentsState | undefined, ...events: ErpEvent[]) => events.reduce(evolveShipments, state)!;
    const first = fold(undefined, statusChanged(1), locationRecorded(2, 1), asV2(packageShipped(3, 1, 1, { shipReferences: ['A'] })), packageShipped(4, 1, 2));
    const changed = fold(first, asV2(packageShipped(5, 1, 1, { shipReferences: ['B'] })));
    // Voiding the other package stamps nothing: the news time is recomputed from what the document holds.
    const voided = fold(changed, packageVoided(6, 1, 2));
    const read = async () => (await collections.shipments.findOne({ _id: 'C1:SO-9' }))!;
    await writeEffects(collections, { orderStatus: [], shipments: [{ after: first }] });
    const firstDoc = await read();
    expect(firstDoc.locations[0]!.packages.map((p) => p.referencesChangedAt)).toEqual([undefined, undefined]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writeEffects(collections, { orderStatus: [], shipments: [{ before: first, after: changed }] });
    const changedDoc = await read();
    const changedAt = changedDoc.locations[0]!.packages[0]!.referencesChangedAt!;
    expect(changedAt.getTime()).toBeGreaterThan(firstDoc.lastNewsAt!.getTime());
    // 1.0.0 and 2.0.0 see the package as it was: its visible time stays.
    expect(changedDoc.locations[0]!.packages.map((p) => p.visibleAt)).toEqual(firstDoc.locations[0]!.packages.map((p) => p.visibleAt));
    expect(changedDoc.lastNewsAt).toEqual(changedAt);
    await writeEffects(collections, { orderStatus: [], shipments: [{ before: changed, after: voided }] });
    const voidedDoc = await read();
    expect(voidedDoc.locations[0]!.packages.map((p) => [p.packageId, p.referencesChangedAt])).toEqual([[1, changedAt]]);
    expect(voidedDoc.lastNewsAt).toEqual(changedAt);
    expect((await loadStates(collections, ['C1:SO-9'])).shipments.get('C1:SO-9')).toEqual(voided);
  });

  it('reads back the states of more sales orders than one lookup asks for, and none for the unknown', async () => {
    const collections = fresh();
    const keys = Array.from({ length: 2_500 }, (_, i) => `SO-${i}`);
    await collections.orderStatus.insertMany(
      keys.map((so) => ({ _id: `C1:${so}`, changedAt: new Date(), ...status(1, 20, { salesOrderNumber: so }) })),
    );
    const loaded = await loadStates(collections, [...keys.map((so) => `C1:${so}`), 'C1:SO-UNKNOWN']);
    expect(loaded.orderStatus.size).toBe(keys.length);
    expect(loaded.orderStatus.get('C1:SO-2499')).toEqual(status(1, 20, { salesOrderNumber: 'SO-2499' }));
    expect(loaded.orderStatus.has('C1:SO-UNKNOWN')).toBe(false);
    expect(loaded.shipments.size).toBe(0);
  });

  it('writes a large batch of new and changed sales orders, both collections at once, without stalling the server', async () => {
    const collections = fresh();
    const sales = Array.from({ length: 300 }, (_, i) => `SO-${i}`);
    const first = sales.map((so) => ({ after: status(1, 10, { salesOrderNumber: so, purchaseOrderNumber: 'PO-1' }) }));
    const shipments = sales.map((so) => ({
      after: { clientId: 'C1', salesOrderNumber: so, sequence: 1, completedAsWhole: false, complete: false, locations: [] } as ShipmentsState,
    }));
    await writeEffects(collections, { orderStatus: first, shipments });
    const second = first.map(({ after }) => ({ before: after, after: { ...after, sequence: 2, statusId: 60 as const } }));
    await Promise.all([writeEffects(collections, { orderStatus: second.slice(0, 150), shipments: [] }), writeEffects(collections, { orderStatus: second.slice(150), shipments: [] })]);
    expect(await collections.orderStatus.countDocuments({ statusId: 60 })).toBe(300);
    expect(await collections.shipments.countDocuments({})).toBe(300);
  });

  it('refuses a write whose guard no longer holds, leaving the stored state as it was', async () => {
    const collections = fresh();
    await writeEffects(collections, { orderStatus: [{ after: status(5, 60) }], shipments: [] });
    // A stale writer that read sequence 3, or one that thinks the document is new.
    await expect(writeEffects(collections, { orderStatus: [{ before: status(3, 20), after: status(4, 40) }], shipments: [] })).rejects.toThrow(
      WriteConflictError,
    );
    await expect(writeEffects(collections, { orderStatus: [{ after: status(4, 40) }], shipments: [] })).rejects.toThrow(WriteConflictError);
    expect((await collections.orderStatus.findOne({ _id: 'C1:SO-1' }))?.statusId).toBe(60);
  });

  it('an event of contract v2 on a document written before 2.0.0 (no statusSequence) moves updatedAt, never 1.0.0\'s changedAt', async () => {
    const collections = fresh();
    const shownAt = new Date('2026-01-05T08:00:00Z');
    // As the projector wrote it before 2.0.0: every event applied was a status, no statusSequence, no updatedAt.
    await collections.orderStatus.insertOne({
      _id: 'C1:SO-9',
      clientId: 'C1',
      salesOrderNumber: 'SO-9',
      sequence: 3,
      purchaseOrderNumber: 'PO-1',
      statusId: 20,
      open: true,
      validTimestamp: new Date('2025-05-01T10:03:00Z'),
      changedAt: shownAt,
    });
    const folded = projectBatch(await loadStates(collections, ['C1:SO-9']), [{ event: issueRecorded(4), source: 4 }]);
    const at = Date.now();
    await writeEffects(collections, folded.effects);
    const stored = (await collections.orderStatus.findOne({ _id: 'C1:SO-9' }))!;
    expect(stored.sequence).toBe(4);
    expect(stored.issueIds).toEqual(['I-1']);
    expect(stored.changedAt).toEqual(shownAt);
    expect(stored.updatedAt!.getTime()).toBeGreaterThanOrEqual(at - 1_000);
    expect(stored.statusSequence).toBe(3);
  });

  it('keeps issueIds and openIssue in step with the issues, batch after batch', async () => {
    const collections = fresh();
    const stored = async () => {
      const doc = (await collections.orderStatus.findOne({ _id: 'C1:SO-9' }))!;
      return { issueIds: doc.issueIds, openIssue: doc.openIssue };
    };
    const batches: [ErpEvent[], { issueIds: string[]; openIssue: boolean }][] = [
      [[statusChanged(1)], { issueIds: [], openIssue: false }],
      [[issueRecorded(2)], { issueIds: ['I-1'], openIssue: true }],
      [[issueRecorded(3, { issueId: 'I-2', issueStatus: 'Closed' })], { issueIds: ['I-1', 'I-2'], openIssue: true }],
      [[issueRecorded(4, { issueStatus: 'Closed' }), statusChanged(5, { purchaseOrderNumber: 'PO-1', statusId: 60 })], { issueIds: ['I-1', 'I-2'], openIssue: false }],
      [[statusChanged(6, { purchaseOrderNumber: 'PO-1', statusId: 70 })], { issueIds: ['I-1', 'I-2'], openIssue: false }],
      [[issueRecorded(7, { issueId: 'I-3', issueStatus: 'Pending' })], { issueIds: ['I-1', 'I-2', 'I-3'], openIssue: true }],
    ];
    for (const [events, expected] of batches) {
      const folded = projectBatch(await loadStates(collections, ['C1:SO-9']), events.map((event) => ({ event, source: event })));
      await writeEffects(collections, folded.effects);
      expect(await stored()).toEqual(expected);
    }
  });

  it('keeps the change times a rebuild finds already shown by the live version, and stamps newer states', async () => {
    const live = fresh();
    await writeEffects(live, { orderStatus: [{ after: status(3, 20) }], shipments: [] });
    const shown = (await live.orderStatus.findOne({ _id: 'C1:SO-1' }))!.changedAt!;
    await new Promise((resolve) => setTimeout(resolve, 20));

    const rebuilt = readModelCollections(mongo.db(uniqueNames('rebuild').database), 2);
    await writeEffects(rebuilt, { orderStatus: [{ after: status(2, 10) }], shipments: [] }, live);
    expect((await rebuilt.orderStatus.findOne({ _id: 'C1:SO-1' }))!.changedAt).toEqual(shown);
    await writeEffects(rebuilt, { orderStatus: [{ before: status(2, 10), after: status(3, 20) }], shipments: [] }, live);
    expect((await rebuilt.orderStatus.findOne({ _id: 'C1:SO-1' }))!.changedAt).toEqual(shown);

    await writeEffects(rebuilt, { orderStatus: [{ before: status(3, 20), after: status(4, 60) }], shipments: [] }, live);
    expect((await rebuilt.orderStatus.findOne({ _id: 'C1:SO-1' }))!.changedAt!.getTime()).toBeGreaterThan(shown.getTime());
  });
});

describe('visible times of shipments documents, stamped by the server', () => {
  const fold = (state: ShipmentsState | undefined, ...events: ErpEvent[]) => events.reduce(evolveShipments, state)!;
  const serverNow = async () => (await mongo.db('admin').command({ hello: 1 })).localTime as Date;
  const stored = async (c: ReadModelCollections) => (await c.shipments.findOne({ _id: 'C1:SO-9' }))!;
  const times = (doc: ShipmentsDocument) => ({
    so: doc.completeChangedAt?.getTime(),
    po: doc.purchaseOrderSetAt?.getTime(),
    last: doc.lastNewsAt?.getTime(),
    locations: doc.locations.map((l) => ({ flag: l.completeChangedAt?.getTime(), packages: l.packages.map((p) => p.visibleAt?.getTime()) })),
  });
  /** Writes `after` over `before` and returns the server's clock just before, and the stored document. */
  const write = async (c: ReadModelCollections, before: ShipmentsState | undefined, after: ShipmentsState) => {
    await new Promise((resolve) => setTimeout(resolve, 15));
    const at = (await serverNow()).getTime();
    await writeEffects(c, { orderStatus: [], shipments: [{ before, after }] });
    return { at, doc: await stored(c) };
  };

  it('stamps what a write makes visible, keeps what it leaves as it was, and reads back the state alone', async () => {
    const c = fresh();
    const first = fold(undefined, statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1), locationRecorded(4, 2));
    const w1 = await write(c, undefined, first);
    const t1 = w1.doc.locations[0]!.packages[0]!.visibleAt!.getTime();
    expect(t1).toBeGreaterThanOrEqual(w1.at);
    expect(times(w1.doc)).toEqual({ so: undefined, po: t1, last: t1, locations: [{ flag: undefined, packages: [t1] }, { flag: undefined, packages: [] }] });

    // Recording a location again, and a package shipped again as it was: nothing new.
    const again = fold(first, locationRecorded(5, 1, { shipTo: { address1: '9 Other St', city: 'Austin', region: 'TX', postalCode: '73301' } }), packageShipped(6, 1, 1));
    const w2 = await write(c, first, again);
    expect(times(w2.doc)).toEqual(times(w1.doc));
    expect(w2.doc.locations[0]!.shipTo.city).toBe('Austin');

    // A second package, then the first location completed: each stamped when written, the rest kept.
    const second = fold(again, packageShipped(7, 1, 2));
    const w3 = await write(c, again, second);
    const t3 = w3.doc.locations[0]!.packages[1]!.visibleAt!.getTime();
    expect(t3).toBeGreaterThanOrEqual(w3.at);
    expect(times(w3.doc)).toEqual({ so: undefined, po: t1, last: t3, locations: [{ flag: undefined, packages: [t1, t3] }, { flag: undefined, packages: [] }] });
    const completed = fold(second, shipmentCompleted(8, 1), shipmentCompleted(9, 2));
    const w4 = await write(c, second, completed);
    const t4 = w4.doc.locations[0]!.completeChangedAt!.getTime();
    expect(t4).toBeGreaterThanOrEqual(w4.at);
    expect(times(w4.doc)).toEqual({ so: t4, po: t1, last: t4, locations: [{ flag: t4, packages: [t1, t3] }, { flag: t4, packages: [] }] });

    expect((await loadStates(c, ['C1:SO-9'])).shipments.get('C1:SO-9')).toEqual(completed);
  });

  it('writes what changed beside what it stamps, and takes out a package voided, the news time following', async () => {
    const c = fresh();
    const first = fold(undefined, statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1), packageShipped(4, 1, 2, { shipmentDate: '2025-05-03T15:30:00Z' }), locationRecorded(5, 2));
    const w1 = await write(c, undefined, first);
    const t1 = w1.doc.lastNewsAt!.getTime();
    // An address changed at one location as a package is shipped at the other, in one write.
    const moved = fold(first, locationRecorded(6, 1, { shipTo: { address1: '9 Other St', city: 'Austin', region: 'TX', postalCode: '73301' } }), packageShipped(7, 2, 1));
    const w2 = await write(c, first, moved);
    const t2 = w2.doc.locations[1]!.packages[0]!.visibleAt!.getTime();
    expect(w2.doc.locations[0]!.shipTo.city).toBe('Austin');
    expect(times(w2.doc)).toEqual({ so: undefined, po: t1, last: t2, locations: [{ flag: undefined, packages: [t1, t1] }, { flag: undefined, packages: [t2] }] });
    // The last package of a location voided: it goes, and with it what made the news time.
    const voided = fold(moved, packageVoided(8, 2, 1));
    const w3 = await write(c, moved, voided);
    expect(times(w3.doc)).toEqual({ so: undefined, po: t1, last: t1, locations: [{ flag: undefined, packages: [t1, t1] }, { flag: undefined, packages: [] }] });
    expect((await loadStates(c, ['C1:SO-9'])).shipments.get('C1:SO-9')).toEqual(voided);
  });

  it('refuses a stale write in every form it takes (plain, stamping, news time recomputed), leaving the stored document exactly as it was', async () => {
    const c = fresh();
    const read = fold(undefined, statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1), packageShipped(4, 1, 2, { shipmentDate: '2025-05-03T15:30:00Z' }));
    await write(c, undefined, read);
    // Another writer moves the document on after this one read it.
    const { doc: storedBefore } = await write(c, read, fold(read, locationRecorded(5, 2)));
    const stale = {
      plain: fold(read, locationRecorded(6, 1, { shipTo: { address1: '9 Other St', city: 'Austin', region: 'TX', postalCode: '73301' } })),
      stamping: fold(read, packageShipped(6, 1, 3)),
      recomputed: fold(read, packageVoided(6, 1, 2)),
      // One that writes the very sequence the other writer left.
      sameSequence: fold(read, packageVoided(5, 1, 1)),
    };
    for (const [form, after] of Object.entries(stale)) {
      await expect(writeEffects(c, { orderStatus: [], shipments: [{ before: read, after }] }), form).rejects.toThrow(WriteConflictError);
      expect(await stored(c), form).toEqual(storedBefore);
    }
  });

  it('makes every package new when its sales order comes under a purchase order', async () => {
    const c = fresh();
    const unnumbered = fold(undefined, locationRecorded(1, 1), packageShipped(2, 1, 1));
    const w1 = await write(c, undefined, unnumbered);
    expect(w1.doc.purchaseOrderSetAt).toBeUndefined();
    const numbered = fold(unnumbered, statusChanged(3));
    const w2 = await write(c, unnumbered, numbered);
    const t2 = w2.doc.purchaseOrderSetAt!.getTime();
    expect(t2).toBeGreaterThanOrEqual(w2.at);
    expect(times(w2.doc).locations).toEqual([{ flag: undefined, packages: [t2] }]);
  });

  it('stores text of the ERP that starts with "$" as it is, not as an expression', async () => {
    const c = fresh();
    const dollars = { address1: '$HOME', city: '$$NOW', region: 'IL', postalCode: '$1' };
    const state = fold(undefined, statusChanged(1), locationRecorded(2, 1, { shipFrom: dollars, shipTo: dollars }), packageShipped(3, 1, 1, { trackingNumber: '$locations', carrier: '$$ROOT' }));
    const { doc } = await write(c, undefined, state);
    expect(doc.locations[0]).toMatchObject({ shipFrom: dollars, shipTo: dollars, packages: [{ trackingNumber: '$locations', carrier: '$$ROOT' }] });
    expect((await loadStates(c, ['C1:SO-9'])).shipments.get('C1:SO-9')).toEqual(state);
  });

  it('a rebuild carries over the times of what the live version shows as it is, and stamps the rest', async () => {
    const live = fresh();
    const shown = fold(undefined, statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1), shipmentCompleted(4, 1));
    const liveDoc = (await write(live, undefined, shown)).doc;
    const rebuilt = readModelCollections(mongo.db(uniqueNames('rebuild-shipments').database), 2);
    const ahead = fold(shown, packageShipped(5, 1, 2));
    await new Promise((resolve) => setTimeout(resolve, 15));
    const at = (await serverNow()).getTime();
    await writeEffects(rebuilt, { orderStatus: [], shipments: [{ after: ahead }] }, live);
    const doc = await stored(rebuilt);
    const t = times(liveDoc);
    expect(times(doc)).toMatchObject({ so: t.so, po: t.po, locations: [{ flag: t.locations[0]!.flag, packages: [t.locations[0]!.packages[0], expect.any(Number)] }] });
    expect(doc.locations[0]!.packages[1]!.visibleAt!.getTime()).toBeGreaterThanOrEqual(at);
    expect(doc.lastNewsAt!.getTime()).toBeGreaterThanOrEqual(at);
  });

  it('writes in plain operators and short pipelines the documents whole pipelines make, the news time the latest time each holds', async () => {
    const written = fresh();
    const reference = fresh();
    // Packages shipped, voided and shipped ahead of now, locations added, flags changed.
    const events = generateDemoEvents({ clients: 2, orders: 40, seed: 11, now: new Date(Date.now() + 86_400_000) });
    const key = ({ after }: StateChange<ShipmentsState>) => `${after.clientId}:${after.salesOrderNumber}`;
    const differences = (before: ShipmentsState, after: ShipmentsState) => ({
      changed: Object.fromEntries(Object.entries(after).filter(([field, value]) => value !== (before as unknown as Record<string, unknown>)[field])),
      removed: before.purchaseOrderNumber !== undefined && after.purchaseOrderNumber === undefined ? ['purchaseOrderNumber'] : [],
    });
    // The reference: whole pipelines, every location written anew, the news time recomputed from every time the document holds.
    const everyPackage = (field: string) => ({ $reduce: { input: `$locations.packages.${field}`, initialValue: [], in: { $concatArrays: ['$$value', '$$this'] } } });
    const newsTime = {
      $set: {
        lastNewsAt: {
          $ifNull: [{ $max: [{ $max: everyPackage('shipmentDate') }, { $max: everyPackage('visibleAt') }, { $max: '$locations.completeChangedAt' }, '$completeChangedAt', '$purchaseOrderSetAt'] }, '$$REMOVE'],
        },
      },
    };
    const referenceWrite = (change: StateChange<ShipmentsState>) => {
      const { before, after } = change;
      const times = visibleTimes(before, after);
      if (!before) return { updateOne: { filter: { _id: key(change) }, update: [...insertPipeline(key(change), after, times), newsTime], upsert: true } };
      const { changed, removed } = differences(before, after);
      return { updateOne: { filter: { _id: key(change), sequence: before.sequence }, update: [...updatePipeline(changed, removed, after, times), newsTime] } };
    };
    const paths = { plain: 0, pipeline: 0 };
    let states: LoadedStates = { orderStatus: new Map(), shipments: new Map() };
    const windows: [number, number][] = [];
    for (let i = 0; i < events.length; i += 40) {
      const folded = projectBatch(states, events.slice(i, i + 40).map((event) => ({ event, source: event })));
      states = folded.states;
      const { shipments } = folded.effects;
      for (const { before, after } of shipments) {
        const times = visibleTimes(before, after);
        const { changed, removed } = before ? differences(before, after) : { changed: {}, removed: [] };
        paths[(before ? plainUpdate(before, after, changed, removed, times) : plainInsert(after, times)) ? 'plain' : 'pipeline']++;
      }
      const start = (await serverNow()).getTime();
      await writeEffects(written, { orderStatus: [], shipments });
      if (shipments.length > 0) await reference.shipments.bulkWrite(shipments.map(referenceWrite), { ordered: false });
      windows.push([start, (await serverNow()).getTime()]);
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    expect(paths.plain).toBeGreaterThan(50);
    expect(paths.pipeline).toBeGreaterThan(50);
    const docs = await written.shipments.find().sort({ _id: 1 }).toArray();
    expect(docs.length).toBeGreaterThan(70);
    // To the millisecond: the news time is the latest time the document holds.
    for (const doc of docs) {
      const latest = Math.max(
        ...[doc.completeChangedAt, doc.purchaseOrderSetAt, ...doc.locations.flatMap((l) => [l.completeChangedAt, ...l.packages.flatMap((p) => [p.shipmentDate, p.visibleAt])])].map((t) => t?.getTime() ?? -Infinity),
      );
      expect(doc.lastNewsAt?.getTime() ?? -Infinity).toBe(latest);
    }
    expect(docs.some((doc) => doc.lastNewsAt !== undefined && doc.lastNewsAt.getTime() > Date.now())).toBe(true); // a package shipped ahead
    // Every time where the reference has it: one the server stamped is named by the batch that stamped it, any other as it is.
    const stampedIn = (at: string) => {
      const ms = Date.parse(at);
      const batch = windows.findIndex(([start, end]) => ms >= start && ms <= end);
      return batch >= 0 ? `stamped by batch ${batch}` : at;
    };
    const timeFields = new Set(['visibleAt', 'completeChangedAt', 'purchaseOrderSetAt', 'lastNewsAt']);
    const normalized = (found: unknown[]) => JSON.parse(JSON.stringify(found, (field, value: unknown) => (timeFields.has(field) ? stampedIn(value as string) : value))) as unknown[];
    expect(normalized(docs)).toEqual(normalized(await reference.shipments.find().sort({ _id: 1 }).toArray()));
  });

  it('finishes a batch whose write reached one read model only, as the first attempt decided: the two never part over a status', async () => {
    const collections = fresh();
    await ensureIndexes(collections);
    // The issue's stream, with a status arriving late, then two that apply; one partition, offsets 0-6.
    const items = halfWrittenBatch();
    const events = items.map(({ event }) => event);
    const positions = partitionZero();
    for (const reached of ['orderStatus', 'shipments'] as const) {
      await collections.orderStatus.deleteMany({});
      await collections.shipments.deleteMany({});
      // The first attempt: the store takes one read model's write, then fails.
      const first = projectBatch(await loadStates(collections, ['C1:SO-9']), items, positions);
      await writeEffects(collections, { orderStatus: [], shipments: [], [reached]: first.effects[reached] });
      // The retry reads the store again (the marks with it), folds the batch again and writes.
      const retry = projectBatch(await loadStates(collections, ['C1:SO-9']), items, positions);
      await writeEffects(collections, retry.effects);
      const db = collections.orderStatus.db;
      expect(await readModels(db), `${reached} written first`).toEqual(reference(events));
      const [status, shipments] = [await collections.orderStatus.findOne({}), await collections.shipments.findOne({})];
      expect([status?.purchaseOrderNumber, shipments?.purchaseOrderNumber]).toEqual(['PO-D', 'PO-D']);
    }
  });
});

