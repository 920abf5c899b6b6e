import { describe, expect, it } from 'vitest';
import type { ErpEvent } from '../contracts/erp-events.js';
import { Random } from '../services/ossn/demo-events/random.js';
import { halfWrittenBatch, locationRecorded, packageShipped, partitionZero, shipmentCompleted, statusChanged } from '../test/fixtures/sample-events.js';
import { testSeed } from '../test/support/seed.js';
import { foldEvents } from './fold.js';
import { foldResuming, holds, markAfter, noMarks, type BatchPositions, type ResumeMark, type ResumeMarks } from './resume-marks.js';
import type { OrderStatusState, ShipmentsState } from './state.js';

// The projector's fold of a partition's batches, with the store failing between the two read
// models' writes: whatever reached the store, the read models end as the fold of the stream.

/** A batch item as the projector's: the event and its offset in partition 0. */
interface Item {
  event: ErpEvent;
  source: number;
}
const positions = (start: number): BatchPositions<number> => partitionZero(start);

/** The store: each read model's documents, with their marks. */
interface Store {
  orderStatus: Map<string, { state: OrderStatusState; mark?: ResumeMark }>;
  shipments: Map<string, { state: ShipmentsState; mark?: ResumeMark }>;
}
const emptyStore = (): Store => ({ orderStatus: new Map(), shipments: new Map() });

function loaded(store: Store) {
  const marks: ResumeMarks = noMarks();
  const read = <S>(docs: Map<string, { state: S; mark?: ResumeMark }>, into: Map<string, ResumeMark>) =>
    new Map([...docs].map(([key, doc]) => {
      if (doc.mark) into.set(key, doc.mark);
      return [key, doc.state] as const;
    }));
  return { orderStatus: read(store.orderStatus, marks.orderStatus), shipments: read(store.shipments, marks.shipments), marks };
}

/** Folds the batch from `start` to `end` on the store and writes what `written` lets through. */
function attempt(store: Store, items: Item[], start: number, end: number, written: { orderStatus: boolean; shipments: boolean }): void {
  const states = loaded(store);
  const folded = foldResuming(items.slice(start, end), states, states.marks, positions(start));
  for (const model of ['orderStatus', 'shipments'] as const) {
    if (!written[model]) continue;
    const docs = store[model] as Map<string, { state: unknown; mark?: ResumeMark }>;
    for (const [key, state] of folded[model] as Map<string, unknown>) {
      if (state !== (states[model] as Map<string, unknown>).get(key)) docs.set(key, { state, mark: folded.marks[model].get(key) });
    }
  }
}

const so = (number: string) => <E extends ErpEvent>(event: E): E => ({ ...event, salesOrderNumber: number });

describe('a status decided once, whatever reached the store', () => {
  // The stream of the issue: status 1 (PO-A), location 2, package 3, status 4 (PO-B) late after package 5.
  const stream = halfWrittenBatch();
  const reference = foldEvents(stream.map(({ event }) => event));

  // Each row: the first attempt's end and what of it reached the store, then the retry's end.
  it.each([
    ['the order status written, the shipments not; the retry as long', 7, { orderStatus: true, shipments: false }, 7],
    ['the shipments written, the order status not; the retry as long', 7, { orderStatus: false, shipments: true }, 7],
    ['both written, the commit lost; the retry as long', 7, { orderStatus: true, shipments: true }, 7],
    ['the order status written; the retry shorter (a smaller fetch)', 7, { orderStatus: true, shipments: false }, 3],
    ['the shipments written; the retry shorter', 7, { orderStatus: false, shipments: true }, 4],
    ['the order status written; the retry longer', 4, { orderStatus: true, shipments: false }, 7],
  ] as const)('%s', (_name, firstEnd, written, retryEnd) => {
    const store = emptyStore();
    attempt(store, stream, 0, firstEnd, written);
    attempt(store, stream, 0, retryEnd, { orderStatus: true, shipments: true });
    if (retryEnd < 7) attempt(store, stream, retryEnd, 7, { orderStatus: true, shipments: true });
    const states = loaded(store);
    expect(states.orderStatus).toEqual(reference.orderStatus);
    expect(states.shipments).toEqual(reference.shipments);
    expect(states.shipments.get('C1:SO-9')?.purchaseOrderNumber).toBe('PO-D');
  });

  it('without the marks, the same retry parts the two read models (what the marks are for)', () => {
    const store = emptyStore();
    attempt(store, stream, 0, 7, { orderStatus: true, shipments: false });
    const states = loaded(store);
    const refolded = foldResuming(stream, states, noMarks(), positions(0));
    expect(refolded.shipments.get('C1:SO-9')?.purchaseOrderNumber).not.toBe(refolded.orderStatus.get('C1:SO-9')?.purchaseOrderNumber);
  });

  it('a random stream in random batches, each write reaching the store in part: ends as the fold of the stream', () => {
    const seed = testSeed('RESUME_SEED');
    const random = new Random(seed);
    for (let round = 0; round < 200; round++) {
      const events = randomStream(random);
      const items = events.map((event, offset) => ({ event, source: offset }));
      const store = emptyStore();
      let committed = 0;
      for (let steps = 0; committed < items.length; steps++) {
        expect(steps, `round ${round}: no progress`).toBeLessThan(10_000);
        const end = Math.min(items.length, committed + random.int(1, 8));
        const outcome = random.int(0, 9);
        const written = outcome < 6 ? { orderStatus: true, shipments: true } : { orderStatus: outcome === 6 || outcome === 8, shipments: outcome === 7 || outcome === 8 };
        attempt(store, items, committed, end, written);
        // Committed only when both writes took effect and the commit went through.
        if (outcome < 6) committed = end;
      }
      const expected = foldEvents(events);
      const states = loaded(store);
      expect(states.orderStatus, `round ${round} (seed ${seed})`).toEqual(expected.orderStatus);
      expect(states.shipments, `round ${round} (seed ${seed})`).toEqual(expected.shipments);
    }
  });
});

describe('a topic whose offsets start again (recreated, or another topic)', () => {
  it('folds a sales order\'s new events at offsets that the marks of its documents name from the old topic', () => {
    const store = emptyStore();
    const old = [statusChanged(1, { purchaseOrderNumber: 'PO-A', statusId: 20 }), locationRecorded(2, 1), packageShipped(3, 1, 1)];
    attempt(store, old.map((event, i) => ({ event, source: 100 + i })), 0, 3, { orderStatus: true, shipments: true });
    // The new topic's events of the sales order come at offsets 101 and 102 again (the old marks: 100-102).
    const fresh = [statusChanged(4, { purchaseOrderNumber: 'PO-B', statusId: 30 }), packageShipped(5, 1, 2)];
    const states = loaded(store);
    const folded = foldResuming(fresh.map((event, i) => ({ event, source: 101 + i })), states, states.marks, positions(0));
    const expected = foldEvents([...old, ...fresh]);
    expect(folded.orderStatus).toEqual(expected.orderStatus);
    expect(folded.shipments).toEqual(expected.shipments);
  });
});

/** Two sales orders' events, out of order here and there and some twice: statuses moving them between purchase orders, a location, packages, a completion. */
function randomStream(random: Random): ErpEvent[] {
  const events: ErpEvent[] = [];
  for (const number of ['SO-1', 'SO-2']) {
    const own = so(number);
    let sequence = 0;
    const next = () => (sequence += random.int(1, 2));
    const mine: ErpEvent[] = [own(statusChanged(next(), { purchaseOrderNumber: 'PO-A', statusId: 20 })), own(locationRecorded(next(), 1))];
    let packages = 0;
    for (let i = random.int(2, 10); i > 0; i--) {
      const kind = random.int(0, 9);
      if (kind < 4) mine.push(own(statusChanged(next(), { purchaseOrderNumber: random.pick(['PO-A', 'PO-B', 'PO-C']), statusId: random.pick([20, 30, 60]) })));
      else if (kind < 9) mine.push(own(packageShipped(next(), 1, ++packages)));
      else mine.push(own(shipmentCompleted(next(), 1)));
    }
    // Late and twice: a few events swap places with the next one, a few come again later.
    for (let i = 2; i < mine.length - 1; i++) if (random.chance(0.2)) [mine[i], mine[i + 1]] = [mine[i + 1]!, mine[i]!];
    for (const event of [...mine]) if (random.chance(0.1)) mine.splice(random.int(mine.indexOf(event), mine.length), 0, event);
    events.push(...mine);
  }
  // The two sales orders interleaved, each in its own order.
  const [a, b] = [events.filter((e) => e.salesOrderNumber === 'SO-1'), events.filter((e) => e.salesOrderNumber === 'SO-2')];
  const merged: ErpEvent[] = [];
  while (a.length + b.length > 0) merged.push((a.length > 0 && (b.length === 0 || random.chance(0.5)) ? a : b).shift()!);
  return merged;
}

describe('resume marks', () => {
  // Here each event's sequence is its offset.
  const mark = (from: number, through: number, statuses: number[] = []): ResumeMark => ({ partition: 2, from, through, lastSequence: through, statuses });
  it.each([
    ['inside', mark(10, 20), 15, 15, true],
    ['at the start of', mark(10, 20), 10, 10, true],
    ['at the end of', mark(10, 20), 20, 20, true],
    ['before', mark(10, 20), 9, 9, false],
    ['after', mark(10, 20), 21, 21, false],
    ['inside, with a sequence above all of', mark(10, 20), 15, 21, false],
    ['no mark', undefined, 15, 15, false],
  ] as const)('holds an event %s its stretch', (_name, held, offset, sequence, expected) => {
    expect(holds(held, { partition: 2, offset }, sequence)).toBe(expected);
    expect(holds(held, { partition: 3, offset }, sequence)).toBe(false);
  });

  it.each([
    ['a document written in an earlier, committed batch: a new stretch', mark(10, 19, [12]), 20, 25, [22], mark(20, 25, [22])],
    ['a document an earlier attempt of this batch wrote: the stretch grows, no decision lost', mark(20, 27, [22, 26]), 20, 24, [22], mark(20, 27, [22, 26])],
    ['written by an attempt before a shorter retry was committed', mark(20, 27, [22, 26]), 24, 30, [29], mark(20, 30, [22, 26, 29])],
    ['no mark yet', undefined, 20, 25, [], mark(20, 25)],
  ] as const)('%s', (_name, existing, start, through, statuses, expected) => {
    expect(markAfter(existing, { partition: 2, offset: start }, { through, lastSequence: through }, [...statuses])).toEqual(expected);
  });
});
