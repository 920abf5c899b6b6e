// A full shipments answer (queryType 3, 5,000 purchase orders) read in batches while the projector
// writes (docs/partners.md, "When an answer is full"): a partner that resumes from the last
// purchase order's time, as the docs tell it, and then polls with the time of its previous poll
// must end up with every package the store holds. The answer must hold the purchase orders first
// by their time, whatever their numbers (every sales order here is new since the partner's
// previous poll, which the server's first choice cannot tell apart by time), and a sales order that
// leaves a purchase order mid-answer, which moves that purchase order's time past the ones left
// out, must not make it the last.
import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErpEvent } from '../../../contracts/erp-events.js';
import type { ShipmentNotificationView } from '../../../contracts/lookup-answers.js';
import type { ShipmentNotificationV2View } from '../../../contracts/lookup-answers-v2.js';
import { foldEvents } from '../../../projections/fold.js';
import { locationRecorded, packageShipped, statusChanged } from '../../../test/fixtures/sample-events.js';
import { servers, uniqueNames } from '../../../test/support/servers.js';
import { projectBatch } from '../../projector/project-batch.js';
import { connectMongo } from './connect.js';
import { documentId, ensureIndexes, readModelCollections, type ReadModelCollections } from './documents.js';
import { MongoOrderLookups } from './lookups.js';
import { loadStates, writeEffects } from './writes.js';

const names = uniqueNames('news-under-writes');
const clientId = 'C1';
/** More than one answer holds: the answer is full, and the last 200 are left for the next poll. */
const purchaseOrders = 5_200;
/** The sales order that moves mid-answer: its purchase order is read in a batch well after the first. */
const moving = 3_000;
let mongo: MongoClient;

/** The purchase order of the i-th shipped: numbered in shipping order, or against it. */
type Numbering = 'in shipping order' | 'against shipping order';
const poOf = (numbering: Numbering) => (i: number) => `PO-${String(numbering === 'in shipping order' ? i : purchaseOrders - 1 - i).padStart(5, '0')}`;
const at = (envelope: { salesOrderNumber: string }) => ({ clientId, ...envelope });

/** Writes `events` as the projector does: folded onto the stored states, written guarded. */
async function project(store: ReadModelCollections, events: ErpEvent[]): Promise<void> {
  const keys = [...new Set(events.map((e) => documentId(e.clientId, e.salesOrderNumber)))];
  const batch = projectBatch(await loadStates(store, keys), events.map((event) => ({ event, source: event })));
  await writeEffects(store, batch.effects);
}

beforeAll(async () => {
  mongo = await connectMongo(servers().mongodbUri, 'news-under-writes-test');
});

afterAll(async () => {
  await mongo?.db(names.database).dropDatabase();
  await mongo?.close();
});

/** What a partner holds of each sales order: its purchase order and packages, as last answered. */
type Held = Map<string, { purchaseOrderNumber: string; packages: Set<number> }>;

/** The answer as a partner reads it: its purchase orders in order, each sales order's packages with their shipmentDate. */
interface ReadAnswer {
  purchaseOrders: { purchaseOrderNumber: string; salesOrders: { salesOrderNumber: string; packages: { id: number; shipmentDate: Date }[] }[] }[];
}

const fromV1 = (views: ShipmentNotificationView[]): ReadAnswer => ({
  purchaseOrders: views.map((v) => ({
    purchaseOrderNumber: v.purchaseOrderNumber,
    salesOrders: v.salesOrders.map((so) => ({ salesOrderNumber: so.salesOrderNumber, packages: so.locations.flatMap((l) => l.packages.map((p) => ({ id: p.id!, shipmentDate: p.shipmentDate }))) })),
  })),
});

const fromV2 = (views: ShipmentNotificationV2View[]): ReadAnswer => ({
  purchaseOrders: views.map((v) => ({
    purchaseOrderNumber: v.purchaseOrderNumber,
    salesOrders: v.salesOrders.map((so) => ({ salesOrderNumber: so.salesOrderNumber, packages: so.shipments.flatMap((l) => l.packages.map((p) => ({ id: p.id, shipmentDate: p.shipmentDate }))) })),
  })),
});

function apply(held: Held, answer: ReadAnswer): void {
  for (const order of answer.purchaseOrders) {
    for (const so of order.salesOrders) {
      const entry = held.get(so.salesOrderNumber) ?? { purchaseOrderNumber: order.purchaseOrderNumber, packages: new Set<number>() };
      entry.purchaseOrderNumber = order.purchaseOrderNumber;
      for (const p of so.packages) entry.packages.add(p.id);
      held.set(so.salesOrderNumber, entry);
    }
  }
}

/** docs/partners.md: a full answer's last purchase order's earliest shipmentDate (every location here holds packages). */
const resumeTime = (answer: ReadAnswer): Date =>
  new Date(Math.min(...answer.purchaseOrders.at(-1)!.salesOrders.flatMap((so) => so.packages.map((p) => p.shipmentDate.getTime()))));

/** A lookup of queryType 3 from `since`, read batch by batch; `between` runs once the first batch is in. */
type Poll = (since: Date, between?: () => Promise<void>) => Promise<ReadAnswer>;

const polls: Record<string, (lookups: MongoOrderLookups) => Poll> = {
  '1.0.0': (lookups) => async (since, between) => {
    const views: ShipmentNotificationView[] = [];
    for await (const batch of await lookups.shipmentNotificationBatches([clientId], { queryType: 3, shipmentDateTimeStamp: since })) {
      views.push(...batch);
      if (views.length === batch.length) await between?.();
    }
    return fromV1(views);
  },
  '2.0.0': (lookups) => async (since, between) => {
    const views: ShipmentNotificationV2View[] = [];
    const { batches } = await lookups.shipmentNotificationV2Batches([clientId], { queryType: 3, shipmentDateTimeStamp: since });
    for await (const batch of batches) {
      views.push(...batch);
      if (views.length === batch.length) await between?.();
    }
    return fromV2(views);
  },
};

const cases: { version: string; numbering: Numbering }[] = [
  { version: '1.0.0', numbering: 'in shipping order' },
  { version: '1.0.0', numbering: 'against shipping order' },
  { version: '2.0.0', numbering: 'against shipping order' },
];

describe('a full shipments answer read while the projector writes', () => {
  it.each(cases.map((c, i) => ({ ...c, storeVersion: i + 1 })))(
    '$version, purchase orders numbered $numbering: a partner resuming from the last purchase order, then polling from its previous poll, misses no package when a sales order leaves a purchase order mid-answer',
    { timeout: 120_000 },
    async ({ version, numbering, storeVersion }) => {
      const store = readModelCollections(mongo.db(names.database), storeVersion);
      await ensureIndexes(store);
      const po = poOf(numbering);
      // The partner's previous poll, now; then a package shipped every millisecond from 15 s on,
      // all posted at once, and one more (a second sales order of the moving one's purchase order)
      // after them.
      const previous = new Date(Date.now() - 1_000);
      const shipped = (ms: number) => new Date(previous.getTime() + 15_000 + ms).toISOString();
      const events: ErpEvent[] = [];
      for (let i = 0; i < purchaseOrders; i++) {
        const so = at({ salesOrderNumber: `SO-${i}` });
        events.push(
          { ...statusChanged(1, { purchaseOrderNumber: po(i), statusId: 60 }), ...so },
          { ...locationRecorded(2, 1), ...so },
          { ...packageShipped(3, 1, 1, { shipmentDate: shipped(i) }), ...so },
        );
      }
      const second = at({ salesOrderNumber: `SO-${moving}-B` });
      events.push(
        { ...statusChanged(1, { purchaseOrderNumber: po(moving), statusId: 60 }), ...second },
        { ...locationRecorded(2, 1), ...second },
        { ...packageShipped(3, 1, 1, { shipmentDate: shipped(purchaseOrders + 1_000) }), ...second },
      );
      for (let from = 0; from < events.length; from += 3_000) await project(store, events.slice(from, from + 3_000));
      // A full answer's last purchase order (the 5,000th's time) is then more than the service's
      // 5 s overlap after they were all posted: a poll from it finds the 200 left out by their
      // shipmentDate alone.
      const fullAnswerEnds = new Date(shipped(4_999));
      expect(Date.now(), 'the packages were posted in time for the test to hold').toBeLessThan(fullAnswerEnds.getTime() - 5_000);
      await new Promise((resolve) => setTimeout(resolve, new Date(shipped(purchaseOrders + 1_000)).getTime() + 1_000 - Date.now()));

      const poll = polls[version]!(new MongoOrderLookups(store));
      const held: Held = new Map();
      // The first poll: full. Once its first batch is in, the moving sales order leaves for another purchase order.
      const move = { ...statusChanged(4, { purchaseOrderNumber: 'PO-MOVED', statusId: 60 }), ...at({ salesOrderNumber: `SO-${moving}` }) };
      const first = await poll(previous, async () => {
        await project(store, [move]);
        events.push(move);
      });
      expect(first.purchaseOrders).toHaveLength(5_000);
      apply(held, first);
      // Full: poll from the last purchase order's time, which is after the previous poll's.
      const resume = resumeTime(first);
      expect(resume.getTime()).toBeGreaterThan(previous.getTime());
      const secondSent = new Date();
      const next = await poll(resume);
      expect(next.purchaseOrders.length).toBeLessThan(5_000);
      apply(held, next);
      // Not full: back to the time of the previous poll.
      apply(held, await poll(secondSent));

      const expected: Held = new Map(
        [...foldEvents(events).shipments.values()].map((so) => [
          so.salesOrderNumber,
          { purchaseOrderNumber: so.purchaseOrderNumber!, packages: new Set(so.locations.flatMap((l) => l.packages.map((p) => p.packageId))) },
        ]),
      );
      const missing = [...expected.keys()].filter((so) => !held.has(so));
      expect({ missing: missing.length, first: missing.slice(0, 3) }).toEqual({ missing: 0, first: [] });
      expect(held).toEqual(expected);
    },
  );
});
