import { describe, expect, it } from 'vitest';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { foldEvents } from '../fold.js';
import type { ShipmentsState } from '../state.js';
import { asV2, locationRecorded, packageShipped, shipmentCompleted, statusChanged } from '../../test/fixtures/sample-events.js';
import type { OrderStatusDocument, ShipmentsDocument } from '../../services/adapters/mongodb/documents.js';
import { carriedOver, settledShipmentTimes, statusWriteTimes, visibleTimes, type TimeSource, type VisibleTimes } from './change-times.js';
import { newsOf, v2LocationsOfNews, type ShipmentNewsSince } from './shipment-news.js';
import { written } from '../../test/support/polling-store.js';

// The change-time policy as a table: each row a state before (the events stored), a write (the
// events it folds), what the live version shows (a rebuild's), who decides (the projector's write
// or the replay's settling), the times that must move, and what a partner who polled between the
// stored state and the write gets of the sales order. A row per finding of issue 28.

const key = 'C1:SO-9';
const writtenHere = (state: ShipmentsState, times: VisibleTimes, stored: ShipmentsDocument | undefined, at: Date) => written(key, state, times, stored, at);
const earlier = new Date('2026-01-01T09:00:00Z');
const poll = new Date('2026-01-01T10:00:00Z');
/** The server's clock when the row's write (or the rebuild's write of the stored state) is applied: after the poll. */
const later = new Date('2026-01-01T11:00:00Z');
const since: ShipmentNewsSince = { shippedSince: poll, visibleSince: poll };

type Decider = 'projector' | 'settling before the switch' | 'settling after the switch';
type Outline = [number, number[]][];

interface Row {
  finding: string;
  stored: ErpEvent[];
  write: ErpEvent[];
  /** The live version's state (its times all before the poll), when a rebuild is under way. */
  live?: ErpEvent[];
  by: Decider;
  /** Each time named: 'now' (stamped by this write), 'kept' (as stored), 'live' (the live version's), 'none'. */
  moves: Record<string, string>;
  /** What a partner who polled between the stored state and the write gets of this sales order (1.0.0, 2.0.0, 2.1.0 locations and packages). */
  answers?: { v1: Outline | undefined; v2?: Outline | undefined; v21?: Outline | undefined };
}

const kind = (source: TimeSource) => ({ now: 'now', stored: 'kept', value: 'live', none: 'none' })[source.from];

/** The times, by name. */
function named(times: VisibleTimes, state: ShipmentsState): Record<string, string> {
  const out: Record<string, string> = { 'sales order flag': kind(times.completeChangedAt), 'came under its purchase order': kind(times.purchaseOrderSetAt) };
  for (const entry of times.left?.set ?? []) out[`left ${entry.purchaseOrderNumber}`] = kind(entry.at);
  for (const number of times.left?.drop ?? []) out[`left ${number}`] = 'dropped';
  state.locations.forEach((location, i) => {
    out[`location ${location.locationId} flag`] = kind(times.locations[i]!.completeChangedAt);
    location.packages.forEach((pkg, j) => {
      out[`package ${location.locationId}/${pkg.packageId}`] = kind(times.locations[i]!.packages[j]!);
      out[`references ${location.locationId}/${pkg.packageId}`] = kind(times.locations[i]!.references[j]!);
    });
  });
  return out;
}

const shipmentsAfter = (events: ErpEvent[]) => foldEvents(events).shipments.get(key);
/** A document of the rebuild or of the stored state: written by the projector from nothing, the server's clock at `at`. */
const documentOf = (events: ErpEvent[], at: Date, live?: ShipmentsDocument): ShipmentsDocument | undefined => {
  const state = shipmentsAfter(events);
  return state && writtenHere(state, carriedOver(visibleTimes(undefined, state), state, live, true), undefined, at);
};
/** The live version's document: written by the projector an event at a time (a references time needs two writes), all before the poll. */
const liveDocumentOf = (events: ErpEvent[]): ShipmentsDocument | undefined =>
  events.reduce<{ state?: ShipmentsState; doc?: ShipmentsDocument }>(({ state, doc }, _, i) => {
    const next = shipmentsAfter(events.slice(0, i + 1));
    return next === undefined ? { state, doc } : { state: next, doc: writtenHere(next, visibleTimes(state, next), doc, earlier) };
  }, {}).doc;

/** The times the row's decider gives, and the document it leaves. */
function decide(row: Row): { times: VisibleTimes; state: ShipmentsState; doc: ShipmentsDocument } {
  const live = row.live && liveDocumentOf(row.live);
  const state = shipmentsAfter([...row.stored, ...row.write])!;
  if (row.by === 'projector') {
    const before = shipmentsAfter(row.stored);
    // The stored state was written before the poll (a rebuild's, after it: partners did not read it).
    const stored = documentOf(row.stored, live ? later : earlier, live);
    const times = carriedOver(visibleTimes(before, state), state, live, !before);
    return { times, state, doc: writtenHere(state, times, stored, later) };
  }
  // Settling: the rebuilt document is the projector's write of the whole stream (after the poll).
  const rebuilt = documentOf([...row.stored, ...row.write], later, live)!;
  const { times } = settledShipmentTimes(rebuilt, live, row.by === 'settling after the switch');
  return { times, state, doc: writtenHere(state, times, rebuilt, later) };
}

const outline = (so: { locations: { locationId: number; packages: { packageId: number }[] }[] } | undefined): Outline | undefined =>
  so?.locations.map((l) => [l.locationId, l.packages.map((p) => p.packageId)]);

const ofPurchaseOrder = (purchaseOrderNumber: string) => statusChanged(1, { purchaseOrderNumber, statusId: 20 });
const onePackage = [ofPurchaseOrder('PO-A'), locationRecorded(2, 1), packageShipped(3, 1, 1)];
/** One package, first shipped with these shipReferences (contract v2). */
const withReferences = (shipReferences: string[]) => [ofPurchaseOrder('PO-A'), locationRecorded(2, 1), asV2(packageShipped(3, 1, 1, { shipReferences }))];

const rows: Row[] = [
  {
    finding: '1: a sales order moved to another purchase order is news to the one it left',
    stored: onePackage,
    write: [statusChanged(4, { purchaseOrderNumber: 'PO-B', statusId: 20 })],
    by: 'projector',
    moves: { 'left PO-A': 'now', 'came under its purchase order': 'now', 'package 1/1': 'now' },
  },
  {
    finding: '1: a sales order whose purchase order number is dropped is news to the one it left',
    stored: onePackage,
    write: [statusChanged(4, { statusId: 20 })],
    by: 'projector',
    moves: { 'left PO-A': 'now', 'came under its purchase order': 'kept', 'package 1/1': 'kept' },
  },
  {
    finding: '1: a rebuild writing the move keeps the time the live version shows it left at, and stamps one the live version does not show yet',
    stored: onePackage,
    write: [statusChanged(4, { purchaseOrderNumber: 'PO-B', statusId: 20 })],
    live: onePackage,
    by: 'projector',
    moves: { 'left PO-A': 'now', 'came under its purchase order': 'now' },
  },
  {
    finding: '2: during the hand-over, a location recorded in the rebuild alone makes the flag differ from the live one: now, not no time',
    stored: [],
    write: [ofPurchaseOrder('PO-A'), locationRecorded(2, 1), shipmentCompleted(3, 1), locationRecorded(4, 2)],
    live: [ofPurchaseOrder('PO-A'), locationRecorded(2, 1), shipmentCompleted(3, 1)],
    by: 'projector',
    moves: { 'sales order flag': 'now', 'location 1 flag': 'live', 'location 2 flag': 'none' },
    answers: { v1: [[1, []], [2, []]] },
  },
  {
    finding: '2: settling before the switch keeps the time of a flag the rebuild shows otherwise than the live version',
    stored: [ofPurchaseOrder('PO-A'), locationRecorded(2, 1), shipmentCompleted(3, 1)],
    write: [locationRecorded(4, 2)],
    live: [ofPurchaseOrder('PO-A'), locationRecorded(2, 1), shipmentCompleted(3, 1)],
    by: 'settling before the switch',
    moves: { 'sales order flag': 'kept', 'location 1 flag': 'live', 'location 2 flag': 'none' },
    answers: { v1: [[1, []], [2, []]] },
  },
  {
    finding: '2: settling after the switch stamps a flag the rebuild shows otherwise than the live version',
    stored: [ofPurchaseOrder('PO-A'), locationRecorded(2, 1), shipmentCompleted(3, 1)],
    write: [locationRecorded(4, 2)],
    live: [ofPurchaseOrder('PO-A'), locationRecorded(2, 1), shipmentCompleted(3, 1)],
    by: 'settling after the switch',
    moves: { 'sales order flag': 'now', 'location 1 flag': 'live', 'location 2 flag': 'none' },
    answers: { v1: [[1, []], [2, []]] },
  },
  {
    finding: '3: a sales order going from complete to incomplete is news, every location of it answered',
    stored: [ofPurchaseOrder('PO-A'), locationRecorded(2, 1), packageShipped(3, 1, 1), shipmentCompleted(4, 1)],
    write: [locationRecorded(5, 2)],
    by: 'projector',
    moves: { 'sales order flag': 'now', 'location 1 flag': 'kept', 'location 2 flag': 'none', 'package 1/1': 'kept' },
    answers: { v1: [[1, []], [2, []]], v2: [[1, [1]]] },
  },
  {
    finding: '5: a package joining a location with packages: 2.0.0 answers the new one alone, as 1.0.0',
    stored: onePackage,
    write: [packageShipped(4, 1, 2, { shipmentDate: '2025-05-01T00:00:00Z' })],
    by: 'projector',
    moves: { 'package 1/1': 'kept', 'package 1/2': 'now', 'location 1 flag': 'kept' },
    answers: { v1: [[1, [2]]], v2: [[1, [2]]] },
  },
  {
    finding: '5: a location whose flag changed is answered whole in 2.0.0',
    stored: onePackage,
    write: [shipmentCompleted(4, 1)],
    by: 'projector',
    moves: { 'location 1 flag': 'now', 'sales order flag': 'now', 'package 1/1': 'kept' },
    answers: { v1: [[1, []]], v2: [[1, [1]]] },
  },
  // OSN 2.1.0's shipReferences (docs/design/queries.md): news to 2.1.0's pollers alone.
  {
    finding: 'references: a package sent again with only its shipReferences changed is news to 2.1.0, not to 1.0.0 or 2.0.0',
    stored: withReferences(['PO 4711']),
    write: [asV2(packageShipped(4, 1, 1, { shipReferences: ['PO 4712'] }))],
    by: 'projector',
    moves: { 'package 1/1': 'kept', 'references 1/1': 'now', 'location 1 flag': 'kept' },
    answers: { v1: undefined, v2: undefined, v21: [[1, [1]]] },
  },
  {
    finding: 'references: sent again without them (cleared) is news to 2.1.0 alone',
    stored: withReferences(['PO 4711']),
    write: [packageShipped(4, 1, 1)],
    by: 'projector',
    moves: { 'package 1/1': 'kept', 'references 1/1': 'now' },
    answers: { v1: undefined, v2: undefined, v21: [[1, [1]]] },
  },
  {
    finding: 'references: sent again with the same ones is news to no one; a package beside it keeps its references time',
    stored: [...withReferences(['PO 4711']), asV2(packageShipped(4, 1, 2, { shipReferences: ['A'] })), asV2(packageShipped(5, 1, 2, { shipReferences: ['B'] }))],
    write: [asV2(packageShipped(6, 1, 1, { shipReferences: ['PO 4711'] }))],
    by: 'projector',
    moves: { 'package 1/1': 'kept', 'references 1/1': 'kept', 'references 1/2': 'kept' },
    answers: { v1: undefined, v2: undefined, v21: undefined },
  },
  {
    finding: 'references: a package first shipped with them is a new package to every version, with no references time',
    stored: [ofPurchaseOrder('PO-A'), locationRecorded(2, 1)],
    write: [asV2(packageShipped(3, 1, 1, { shipReferences: ['PO 4711'] }))],
    by: 'projector',
    moves: { 'package 1/1': 'now', 'references 1/1': 'none' },
    answers: { v1: [[1, [1]]], v2: [[1, [1]]], v21: [[1, [1]]] },
  },
  {
    finding: 'references: a rebuild writing the references the live version shows carries its references time',
    stored: withReferences(['PO 4711']),
    write: [asV2(packageShipped(4, 1, 1, { shipReferences: ['PO 4712'] }))],
    live: [...withReferences(['PO 4711']), asV2(packageShipped(4, 1, 1, { shipReferences: ['PO 4712'] }))],
    by: 'projector',
    moves: { 'package 1/1': 'kept', 'references 1/1': 'live' },
    answers: { v1: undefined, v2: undefined, v21: undefined },
  },
  {
    finding: 'references: settling after the switch keeps the live version’s references time where it shows the same references',
    stored: withReferences(['PO 4711']),
    write: [asV2(packageShipped(4, 1, 1, { shipReferences: ['PO 4712'] }))],
    live: [...withReferences(['PO 4711']), asV2(packageShipped(4, 1, 1, { shipReferences: ['PO 4712'] }))],
    by: 'settling after the switch',
    moves: { 'package 1/1': 'live', 'references 1/1': 'live' },
    answers: { v1: undefined, v2: undefined, v21: undefined },
  },
  {
    finding: 'references: settling after the switch stamps references the live version shows otherwise, though the rebuild has no references time',
    stored: withReferences(['PO 4711']),
    write: [asV2(packageShipped(4, 1, 1, { shipReferences: ['PO 4712'] }))],
    live: withReferences(['PO 4711']),
    by: 'settling after the switch',
    moves: { 'package 1/1': 'live', 'references 1/1': 'now' },
    answers: { v1: undefined, v2: undefined, v21: [[1, [1]]] },
  },
  {
    finding: 'references: settling before the switch keeps the rebuild’s references time where the live version shows others',
    stored: withReferences(['PO 4711']),
    write: [asV2(packageShipped(4, 1, 1, { shipReferences: ['PO 4712'] }))],
    live: withReferences(['PO 4711']),
    by: 'settling before the switch',
    moves: { 'package 1/1': 'live', 'references 1/1': 'kept' },
    answers: { v1: undefined, v2: undefined, v21: [[1, [1]]] },
  },
];

describe('the change-time policy, row by row', () => {
  it.each(rows)('finding $finding ($by)', (row) => {
    const { times, state, doc } = decide(row);
    expect(named(times, state)).toMatchObject(row.moves);
    if (row.answers) {
      const news = newsOf(doc, since);
      expect(outline(news)).toEqual(row.answers.v1);
      if ('v2' in row.answers) expect(outline(news && v2LocationsOfNews(doc, news, since))?.filter(([, packages]) => packages.length > 0)).toEqual(row.answers.v2);
      const newsV21 = newsOf(doc, since, false, true);
      if ('v21' in row.answers) expect(outline(newsV21 && v2LocationsOfNews(doc, newsV21, since))?.filter(([, packages]) => packages.length > 0)).toEqual(row.answers.v21);
    }
  });

  it('finding 1: settling after the switch keeps a purchase order left that the projector wrote in the new version since, and drops one the live version never showed', () => {
    const live = documentOf([ofPurchaseOrder('PO-A'), locationRecorded(2, 1)], earlier)!;
    const state = shipmentsAfter([ofPurchaseOrder('PO-A'), locationRecorded(2, 1), statusChanged(3, { purchaseOrderNumber: 'PO-B', statusId: 20 }), statusChanged(4, { purchaseOrderNumber: 'PO-C', statusId: 20 })])!;
    const switchedAt = new Date(later.getTime() - 60_000);
    const rebuilt: ShipmentsDocument = {
      ...writtenHere(state, visibleTimes(undefined, state), undefined, later),
      leftPurchaseOrders: [
        { purchaseOrderNumber: 'PO-B', at: later },
        { purchaseOrderNumber: 'PO-Z', at: earlier },
      ],
    };
    const { times } = settledShipmentTimes(rebuilt, live, true, switchedAt);
    expect(named(times, state)).toMatchObject({ 'left PO-Z': 'dropped' });
    expect(named(times, state)).not.toHaveProperty('left PO-B');
  });

  it('finding 1 again: settling after the switch keeps a purchase order left since the switch where the live version shows an earlier leave of it (the sales order came back, unseen by it, and left again)', () => {
    // The live version stopped with the sales order on PO-A, having left PO-B long before.
    const live = liveDocumentOf([statusChanged(1, { purchaseOrderNumber: 'PO-B', statusId: 20 }), locationRecorded(2, 1), statusChanged(3, { purchaseOrderNumber: 'PO-A', statusId: 20 })])!;
    expect(live.leftPurchaseOrders).toEqual([{ purchaseOrderNumber: 'PO-B', at: earlier }]);
    // The new version: back on PO-B before the switch, and off it again (to PO-C) after, the projector's own news.
    const state = shipmentsAfter([
      statusChanged(1, { purchaseOrderNumber: 'PO-B', statusId: 20 }),
      locationRecorded(2, 1),
      statusChanged(3, { purchaseOrderNumber: 'PO-A', statusId: 20 }),
      statusChanged(4, { purchaseOrderNumber: 'PO-B', statusId: 20 }),
      statusChanged(5, { purchaseOrderNumber: 'PO-C', statusId: 20 }),
    ])!;
    const switchedAt = new Date(later.getTime() - 60_000);
    const rebuilt: ShipmentsDocument = {
      ...writtenHere(state, visibleTimes(undefined, state), undefined, later),
      leftPurchaseOrders: [
        { purchaseOrderNumber: 'PO-A', at: new Date(switchedAt.getTime() - 1_000) },
        { purchaseOrderNumber: 'PO-B', at: later },
      ],
    };
    const { times } = settledShipmentTimes(rebuilt, live, true, switchedAt);
    // Were it set to the live version's time, PO-B's pollers would never hear the sales order left it.
    expect(named(times, state)).not.toHaveProperty('left PO-B');
  });

  it('status: changedAt moves with the status alone, updatedAt with every write; a rebuild carries the live version’s where it shows as much', () => {
    const status = foldEvents([ofPurchaseOrder('PO-A')]).orderStatus.get(key)!;
    const moved = foldEvents([ofPurchaseOrder('PO-A'), statusChanged(2, { purchaseOrderNumber: 'PO-A', statusId: 60 })]).orderStatus.get(key)!;
    expect(statusWriteTimes(status, moved)).toEqual({ changedAt: { from: 'now' }, updatedAt: { from: 'now' } });
    const shown: Pick<OrderStatusDocument, 'changedAt' | 'updatedAt' | 'sequence' | 'statusSequence'> = { sequence: 2, statusSequence: 2, changedAt: earlier, updatedAt: earlier };
    expect(statusWriteTimes(status, moved, shown)).toEqual({ changedAt: { from: 'value', at: earlier }, updatedAt: { from: 'value', at: earlier } });
  });
});
