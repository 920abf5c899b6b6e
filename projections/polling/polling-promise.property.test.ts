import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { purchaseOrderComplete } from '../completion.js';
import { foldEvents } from '../fold.js';
import type { ShipmentsState } from '../state.js';
import { locationRecorded, packageShipped, packageVoided, shipmentCompleted, statusChanged } from '../../test/fixtures/sample-events.js';
import { answerNewsSince, written, type AnsweredPurchaseOrder } from '../../test/support/polling-store.js';
import { testSeed } from '../../test/support/seed.js';
import type { ShipmentsDocument } from '../../services/adapters/mongodb/documents.js';
import { visibleTimes } from './change-times.js';
import { stripTimes } from './shipment-news.js';

// The polling promise (queries.md) as a property of the change-time policy and the news rules:
// random streams of a few sales orders (statuses moving them between purchase orders or dropping
// their number, locations, packages, voids, completions), delivered in random batches, partly out
// of order and with duplicates, projected into a store held in memory whose clock moves on at every
// write, and polled at random points with the time of the previous poll. Every poll's answer must
// hold every change of a complete flag (location, sales order, purchase order) and of a purchase
// order's members that the reference fold of what was delivered shows between the two polls, and
// every flag it answers is the current one (never an older state). POLLING_PROMISE_SEED replays.

const salesOrders = ['SO-1', 'SO-2', 'SO-3'];
const purchaseOrders = ['PO-A', 'PO-B', undefined];

/** One change of a sales order, its sequence given when the stream is laid out. */
const change = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...purchaseOrders).map((po) => (sequence: number) => statusChanged(sequence, po === undefined ? { statusId: 60 } : { purchaseOrderNumber: po, statusId: 60 })) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 2 }).map((location) => (sequence: number) => locationRecorded(sequence, location)) },
  { weight: 3, arbitrary: fc.tuple(fc.integer({ min: 1, max: 2 }), fc.integer({ min: 1, max: 2 })).map(([location, pkg]) => (sequence: number) => packageShipped(sequence, location, pkg, { trackingNumber: `1Z-${sequence}` })) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1, max: 2 }), fc.integer({ min: 1, max: 2 })).map(([location, pkg]) => (sequence: number) => packageVoided(sequence, location, pkg)) },
  { weight: 2, arbitrary: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined }).map((location) => (sequence: number) => shipmentCompleted(sequence, location)) },
);

interface Step {
  /** Index of the sales order. */
  so: number;
  make: (sequence: number) => ErpEvent;
}

/** A delivery: each event once or twice (a redelivery), some swapped with the one before (out of order), cut into batches, polls between them. */
const deliveries = fc
  .record({
    steps: fc.array(fc.record({ so: fc.integer({ min: 0, max: salesOrders.length - 1 }), make: change }), { minLength: 4, maxLength: 40 }),
    duplicates: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
    swaps: fc.array(fc.boolean(), { minLength: 80, maxLength: 80 }),
    cuts: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 80, maxLength: 80 }),
  })
  .map(({ steps, duplicates, swaps, cuts }) => {
    const sequences = new Map<number, number>();
    const events = (steps as Step[]).map((step) => {
      const sequence = (sequences.get(step.so) ?? 0) + 1;
      sequences.set(step.so, sequence);
      return { ...step.make(sequence), salesOrderNumber: salesOrders[step.so]! };
    });
    const sent = events.flatMap((event, i) => (duplicates[i] ? [event, event] : [event]));
    for (let i = 1; i < sent.length; i++) if (swaps[i]) [sent[i - 1], sent[i]] = [sent[i]!, sent[i - 1]!];
    // A batch ends after each event with a cut; 0 also polls there.
    const batches: { events: ErpEvent[]; pollAfter: boolean }[] = [];
    let batch: ErpEvent[] = [];
    sent.forEach((event, i) => {
      batch.push(event);
      const cut = cuts[i] ?? 1;
      if (cut <= 1 || i === sent.length - 1) {
        batches.push({ events: batch, pollAfter: cut === 0 || i === sent.length - 1 });
        batch = [];
      }
    });
    return batches;
  });

/** What the reference fold shows a partner: each purchase order's flag and members, each sales order's and location's flag. */
interface Shown {
  purchaseOrders: Map<string, { complete: boolean; members: Set<string> }>;
  salesOrders: Map<string, ShipmentsState>;
}

function shownBy(shipments: Map<string, ShipmentsState>): Shown {
  const purchaseOrders = new Map<string, { complete: boolean; members: Set<string> }>();
  for (const so of shipments.values()) {
    if (so.purchaseOrderNumber === undefined) continue;
    const entry = purchaseOrders.get(so.purchaseOrderNumber) ?? { complete: false, members: new Set<string>() };
    entry.members.add(so.salesOrderNumber);
    purchaseOrders.set(so.purchaseOrderNumber, entry);
  }
  for (const [number, entry] of purchaseOrders) entry.complete = purchaseOrderComplete([...shipments.values()].filter((so) => so.purchaseOrderNumber === number));
  return { purchaseOrders, salesOrders: new Map([...shipments.values()].map((so) => [so.salesOrderNumber, so])) };
}

/** What must be in an answer after `before`, now that the fold shows `now`; the answer must show every flag as `now` does. */
function checkAnswer(answer: AnsweredPurchaseOrder[], before: Shown, now: Shown): void {
  const answered = new Map(answer.map((po) => [po.purchaseOrderNumber, po]));
  const answerable = (number: string) => [...(now.purchaseOrders.get(number)?.members ?? [])].some((so) => (now.salesOrders.get(so)?.locations.length ?? 0) > 0);
  // Never an older state: every flag answered is the current one.
  for (const po of answer) {
    expect(po.complete, `${po.purchaseOrderNumber}'s flag`).toBe(now.purchaseOrders.get(po.purchaseOrderNumber)?.complete);
    for (const so of po.salesOrders) {
      const current = now.salesOrders.get(so.salesOrderNumber)!;
      expect(so.purchaseOrderNumber).toBe(current.purchaseOrderNumber);
      expect(so.complete, `${so.salesOrderNumber}'s flag`).toBe(current.complete);
      for (const location of so.locations) expect(location.complete).toBe(current.locations.find((l) => l.locationId === location.locationId)?.complete);
    }
  }
  // Every purchase order whose flag or members changed, with a sales order to answer.
  for (const [number, po] of now.purchaseOrders) {
    const then = before.purchaseOrders.get(number);
    const changed = then === undefined ? po.complete : then.complete !== po.complete || [...then.members].some((so) => !po.members.has(so));
    if (changed && answerable(number)) expect(answered.has(number), `${number} changed (flag or members) and is not answered`).toBe(true);
  }
  for (const [number, then] of before.purchaseOrders) {
    if (!now.purchaseOrders.has(number)) continue; // no sales order left under it: nothing to answer
    const left = [...then.members].some((so) => !now.purchaseOrders.get(number)!.members.has(so));
    if (left && answerable(number)) {
      // Whole: every remaining sales order with a location, every location of it.
      const po = answered.get(number)!;
      for (const so of now.purchaseOrders.get(number)!.members) {
        const current = now.salesOrders.get(so)!;
        if (current.locations.length === 0) continue;
        expect(po.salesOrders.find((s) => s.salesOrderNumber === so)?.locations.map((l) => l.locationId), `${so} of ${number}, which a sales order left`).toEqual(current.locations.map((l) => l.locationId));
      }
    }
  }
  // Every sales order whose flag changed, under its purchase order, with all its locations; every location whose flag changed.
  for (const [number, so] of now.salesOrders) {
    if (so.purchaseOrderNumber === undefined || so.locations.length === 0) continue;
    const then = before.salesOrders.get(number);
    const answeredSo = answered.get(so.purchaseOrderNumber)?.salesOrders.find((s) => s.salesOrderNumber === number);
    if ((then?.complete ?? false) !== so.complete) {
      expect(answeredSo?.locations.map((l) => l.locationId), `${number}'s flag changed`).toEqual(so.locations.map((l) => l.locationId));
    }
    for (const location of so.locations) {
      const thenLocation = then?.locations.find((l) => l.locationId === location.locationId);
      if ((thenLocation?.complete ?? false) !== location.complete) {
        expect(answeredSo?.locations.some((l) => l.locationId === location.locationId), `${number} location ${location.locationId}'s flag changed`).toBe(true);
      }
    }
  }
}

it('a poller polling with the time of its previous poll gets every flag and membership change, never an older state', () => {
  let runs = 0;
  let checked = 0;
  fc.assert(
    fc.property(deliveries, (batches) => {
      runs++;
      const delivered: ErpEvent[] = [];
      const store = new Map<string, ShipmentsDocument>();
      let clock = Date.parse('2026-06-01T00:00:00Z');
      let shown = shownBy(new Map());
      let previousPoll = new Date(clock);
      for (const batch of batches) {
        // The projector: fold the batch onto what is stored, write each sales order that changed, the server's clock moving on.
        const before = foldEvents(delivered).shipments;
        delivered.push(...batch.events);
        const after = foldEvents(delivered).shipments;
        clock += 1_000;
        for (const [key, state] of after) {
          const previous = before.get(key);
          if (previous === state || (previous && previous.sequence === state.sequence)) continue;
          store.set(key, written(key, state, visibleTimes(previous, state), store.get(key), new Date(clock)));
        }
        if (!batch.pollAfter) continue;
        clock += 1_000;
        const pollAt = new Date(clock);
        const answer = answerNewsSince(store.values(), { shippedSince: previousPoll, visibleSince: previousPoll });
        const now = shownBy(after);
        checkAnswer(answer, shown, now);
        checked++;
        shown = now;
        previousPoll = pollAt;
      }
      // The store holds what the reference fold shows, times aside.
      for (const [key, state] of foldEvents(delivered).shipments) expect(stripTimes(store.get(key)!)).toEqual(state);
    }),
    { numRuns: 400, seed: testSeed('POLLING_PROMISE_SEED') },
  );
  expect(runs).toBe(400);
  expect(checked).toBeGreaterThan(runs);
});
