import { isDeepStrictEqual } from 'node:util';
import { statusSequenceOf, type OrderStatusState, type PackageState, type ShipmentsState } from '../state.js';
import { orderStatusStoreFields, type LeftPurchaseOrder, type StoredLocation, type StoredPackage, type TimedOrderStatus, type TimedShipments } from './timed-documents.js';
import { picked, v1ItemFields, v1PackageFields, v1StatusFields } from '../v1-fields.js';
import { stripTimes } from './shipment-news.js';

// The one policy of every change time a poller relies on (queries.md, the polling promise): given
// the state before a write, the state after it and what the live version shows (a rebuild's), it
// says which times move. The projector's writes (writes.ts), the replay's settling (replay/) and
// nothing else decide them: the MongoDB adapter only turns 'now' into the server's clock.
// Pure: no I/O.

/** Where one time of the written document comes from. */
export type TimeSource =
  /** Made visible by this write: the server's clock when it applies the write. */
  | { from: 'now' }
  /** As the stored document holds it, at this place of the state the write is guarded on. */
  | { from: 'stored'; location?: number; package?: number }
  /** Carried over from the version partners read so far (a rebuild). */
  | { from: 'value'; at: Date }
  /** Never changed: no time. */
  | { from: 'none' };

interface LocationTimes {
  completeChangedAt: TimeSource;
  /** One per package of the location, in its order: when it was made visible as 1.0.0 and 2.0.0 show it (`visibleAt`). */
  packages: TimeSource[];
  /** One per package of the location, in its order: when its shipReferences last changed, news to 2.1.0 alone (`referencesChangedAt`). */
  references: TimeSource[];
}

/**
 * The purchase orders a sales order left (moved to another or its number dropped), and when: the
 * entries the write sets (each replacing a stored one of its number) and the numbers whose stored
 * entries it removes; the others stay as stored.
 */
export interface LeftTimes {
  set: { purchaseOrderNumber: string; at: Extract<TimeSource, { from: 'now' } | { from: 'value' }> }[];
  drop: string[];
}

export interface VisibleTimes {
  completeChangedAt: TimeSource;
  purchaseOrderSetAt: TimeSource;
  /** Absent when the write leaves them as stored. */
  left?: LeftTimes;
  /** Whether the write replaces the locations (and with them their times); otherwise `locations` is not used. */
  rewritesLocations: boolean;
  /** One per location of the state written, in its order. */
  locations: LocationTimes[];
}

const now = { from: 'now' } as const;
const none: TimeSource = { from: 'none' };

/**
 * Whether two packages show partners the same: their contract v1 fields, as 1.0.0 answers them. A
 * package sent again with only contract v2 extras changed is no news, so that 1.0.0 answers over a
 * stream with v2 events equal those over it without them (oss-osn-2.0.0.md §1); 2.0.0's queryType 3
 * follows the same rule (§4.3).
 */
const showsTheSame = (a: PackageState, b: PackageState): boolean => a === b || (sameFields(a, b, v1PackageFields) && sameItems(a.items, b.items));

// Compared in place, field by field: on a rebuild every package of every write is compared with
// the one read back, and building both answers for it only to compare them cost two copies each.
const sameFields = <T extends object>(a: T, b: T, fields: readonly string[]): boolean =>
  fields.every((field) => isDeepStrictEqual((a as Record<string, unknown>)[field], (b as Record<string, unknown>)[field]));

const sameItems = (a: PackageState['items'], b: PackageState['items']): boolean =>
  a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((item, i) => sameFields(item, b[i] as object, v1ItemFields)));

/**
 * Whether two packages show 2.1.0 the same shipReferences (docs/design/queries.md): 1.0.0 and 2.0.0
 * do not show them (showsTheSame), so a change of them alone is news to 2.1.0's pollers only.
 */
const sameReferences = (a: PackageState, b: PackageState): boolean => a.shipReferences === b.shipReferences || isDeepStrictEqual(a.shipReferences, b.shipReferences);

/** A flag that changed since `before`; one that starts set is a change too, one that starts clear is not. */
const flagTime = (before: boolean | undefined, after: boolean, kept: TimeSource): TimeSource =>
  before === undefined ? (after ? now : none) : before === after ? kept : now;

/** Whether any of the times is stamped with the server's time now. */
export const stampsAny = (times: VisibleTimes): boolean =>
  times.completeChangedAt.from === 'now' ||
  times.purchaseOrderSetAt.from === 'now' ||
  (times.left?.set.some((entry) => entry.at.from === 'now') ?? false) ||
  times.locations.some((l) => l.completeChangedAt.from === 'now' || l.packages.some((p) => p.from === 'now') || l.references.some((r) => r.from === 'now'));

/**
 * The times of the document written for `after`, the stored one holding `before` (none: a new
 * document). A package is made visible when it first appears, when it is replaced by one that
 * differs in what 1.0.0 shows of it, and when its sales order comes under a purchase order number (partners of that purchase
 * order have not seen it); one left as it was keeps its time, so that recording its location again
 * or a redelivered event never makes it new. A complete flag's time moves when the flag changes.
 * A package's references time moves when a package already there comes with other shipReferences
 * (news to 2.1.0 alone); a new package has none: it is news by its visible time.
 */
export function visibleTimes(before: ShipmentsState | undefined, after: ShipmentsState): VisibleTimes {
  const cameUnderPurchaseOrder = after.purchaseOrderNumber !== undefined && after.purchaseOrderNumber !== before?.purchaseOrderNumber;
  const left = before?.purchaseOrderNumber;
  return {
    completeChangedAt: flagTime(before?.complete, after.complete, { from: 'stored' }),
    purchaseOrderSetAt: cameUnderPurchaseOrder ? now : before ? { from: 'stored' } : none,
    // Leaving a purchase order changes its members, and so maybe its flag: news to its pollers.
    ...(left !== undefined && left !== after.purchaseOrderNumber ? { left: { set: [{ purchaseOrderNumber: left, at: now }], drop: [] } } : {}),
    rewritesLocations: before === undefined || before.locations !== after.locations || cameUnderPurchaseOrder,
    locations: after.locations.map((location) => {
      const i = before ? before.locations.findIndex((l) => l.locationId === location.locationId) : -1;
      const previous = i >= 0 ? before!.locations[i] : undefined;
      return {
        completeChangedAt: flagTime(previous?.complete, location.complete, { from: 'stored', location: i }),
        packages: location.packages.map((pkg) => {
          const j = previous ? previous.packages.findIndex((p) => p.packageId === pkg.packageId) : -1;
          const same = j >= 0 && !cameUnderPurchaseOrder && showsTheSame(previous!.packages[j]!, pkg);
          return same ? { from: 'stored', location: i, package: j } : now;
        }),
        references: location.packages.map((pkg) => {
          const j = previous ? previous.packages.findIndex((p) => p.packageId === pkg.packageId) : -1;
          if (j < 0) return none;
          return sameReferences(previous!.packages[j]!, pkg) ? { from: 'stored', location: i, package: j } : now;
        }),
      };
    }),
  };
}

/** What `shown` (the version partners read so far) shows for this time, when it shows the same thing. */
function shownTime(time: Date | undefined): TimeSource {
  return time === undefined ? none : { from: 'value', at: time }; // none: shown since before such times were recorded
}

/**
 * A complete flag's time against the live version's flag (`shown`, undefined where it lacks the
 * flag's sales order or location): where it shows the same flag, its time (a time to stamp, or
 * none for a flag that is false, would make news of what partners saw, or drop the time a flag
 * went false at); where it shows another, a change its partners have not seen: now, whatever the
 * rebuild's own history says (a false flag that starts clear in the rebuild is still news to them).
 */
function flagAgainstLive(source: TimeSource, after: boolean, shown: boolean | undefined, time: Date | undefined): TimeSource {
  if (shown === undefined) return source;
  if (shown === after) return source.from === 'now' || source.from === 'none' ? shownTime(time) : source;
  return source.from === 'none' ? now : source;
}

/**
 * A package's references time against the live version's package (`shown`, undefined where it
 * lacks it or shows it under another purchase order: the package is news by its visible time
 * then): where it shows the same references, its time (a rebuild must not make every reference
 * change new again, nor drop the time one was made at); where it shows others, a change its 2.1.0
 * partners have not seen: now, even where the rebuild's own history has none (the package new to it).
 */
function referencesAgainstLive(source: TimeSource, pkg: PackageState, shown: StoredPackage | undefined): TimeSource {
  if (shown === undefined) return source;
  if (sameReferences(shown, pkg)) return source.from === 'now' || source.from === 'none' ? shownTime(shown.referencesChangedAt) : source;
  return source.from === 'none' ? now : source;
}

/**
 * The purchase orders left, against the live version: a number it shows left keeps its time
 * there; one it still shows the sales order under is news to its pollers (now); any other (left
 * long ago, or never shown under it, a move within one batch) is no news and is dropped. With
 * `isNew` (the rebuild's first write of the sales order) the live version's entries come along.
 */
function leftAgainstLive(left: LeftTimes | undefined, after: ShipmentsState, shown: TimedShipments, isNew: boolean): LeftTimes | undefined {
  const shownLeft = new Map((shown.leftPurchaseOrders ?? []).map((entry) => [entry.purchaseOrderNumber, entry.at]));
  const result: LeftTimes = { set: [], drop: [...(left?.drop ?? [])] };
  for (const entry of left?.set ?? []) {
    const at = shownLeft.get(entry.purchaseOrderNumber);
    if (at !== undefined) result.set.push({ purchaseOrderNumber: entry.purchaseOrderNumber, at: { from: 'value', at } });
    else if (shown.purchaseOrderNumber === entry.purchaseOrderNumber) result.set.push(entry);
    else result.drop.push(entry.purchaseOrderNumber);
  }
  if (isNew) {
    const named = new Set(result.set.map((entry) => entry.purchaseOrderNumber));
    for (const [number, at] of shownLeft) if (!named.has(number) && number !== after.purchaseOrderNumber) result.set.push({ purchaseOrderNumber: number, at: { from: 'value', at } });
  }
  return left === undefined && result.set.length === 0 ? undefined : result;
}

/**
 * `times` with every 'now' (and 'none') replaced by the time `shown` gives the same thing, where it
 * shows the same thing: a rebuild must not make news of what partners have seen already, nor drop
 * the time a flag went false at. `isNew`: the write makes the document.
 */
export function carriedOver(times: VisibleTimes, after: ShipmentsState, shown: TimedShipments | undefined, isNew = false): VisibleTimes {
  if (!shown) return times;
  const samePurchaseOrder = shown.purchaseOrderNumber === after.purchaseOrderNumber;
  const carry = (source: TimeSource, same: boolean, time: Date | undefined): TimeSource =>
    (source.from === 'now' || source.from === 'none') && same ? shownTime(time) : source;
  const left = leftAgainstLive(times.left, after, shown, isNew);
  return {
    completeChangedAt: flagAgainstLive(times.completeChangedAt, after.complete, shown.complete, shown.completeChangedAt),
    purchaseOrderSetAt: carry(times.purchaseOrderSetAt, samePurchaseOrder, shown.purchaseOrderSetAt),
    ...(left ? { left } : {}),
    rewritesLocations: times.rewritesLocations,
    locations: times.locations.map((location, i) => {
      const state = after.locations[i]!;
      const shownLocation: StoredLocation | undefined = shown.locations.find((l) => l.locationId === state.locationId);
      const shownPackage = (j: number) => shownLocation?.packages.find((p) => p.packageId === state.packages[j]!.packageId);
      return {
        completeChangedAt: flagAgainstLive(location.completeChangedAt, state.complete, shownLocation?.complete, shownLocation?.completeChangedAt),
        packages: location.packages.map((source, j) => {
          const asShown = shownPackage(j);
          return carry(source, samePurchaseOrder && asShown !== undefined && showsTheSame(asShown, state.packages[j]!), asShown?.visibleAt);
        }),
        references: location.references.map((source, j) => referencesAgainstLive(source, state.packages[j]!, samePurchaseOrder ? shownPackage(j) : undefined)),
      };
    }),
  };
}

/** Before the switch: every time the live version does not give stays as the rebuilt document holds it. */
function keepingUnshown(times: VisibleTimes): VisibleTimes {
  const kept = (source: TimeSource, at: { location?: number; package?: number }): TimeSource => (source.from === 'now' ? { from: 'stored', ...at } : source);
  const left = times.left && { set: times.left.set.filter((entry) => entry.at.from !== 'now'), drop: times.left.drop };
  return {
    ...times,
    completeChangedAt: kept(times.completeChangedAt, {}),
    purchaseOrderSetAt: kept(times.purchaseOrderSetAt, {}),
    ...(left ? { left } : {}),
    locations: times.locations.map((l, i) => ({
      completeChangedAt: kept(l.completeChangedAt, { location: i }),
      packages: l.packages.map((p, j) => kept(p, { location: i, package: j })),
      references: l.references.map((r, j) => kept(r, { location: i, package: j })),
    })),
  };
}

/**
 * The times a rebuilt shipments document settles to against the live version (`shown`): what the
 * live version shows as it is, its time; what it does not (the rebuild ran ahead of it, or shows a
 * flag or membership otherwise), now after the switch (`stamp`), and before it the rebuilt
 * document's own time, never none: a flag that differs from the live one keeps or gets a time.
 * `switchedAt`: when the build became active (a purchase order left since then, the projector's
 * write in the new version, is news of its own). `stamped`: some time is the switch's (or will be).
 */
export function settledShipmentTimes(doc: TimedShipments, shown: TimedShipments | undefined, stamp: boolean, switchedAt?: Date): { times: VisibleTimes; stamped: boolean } {
  const state = stripTimes(doc);
  // What a partner of the live version has seen, as if the document were written anew.
  const fresh = visibleTimes(undefined, state);
  // A purchase order left since the switch is the projector's own news in the new version: it stays as stored.
  const judged = (doc.leftPurchaseOrders ?? []).filter((entry) => switchedAt === undefined || entry.at < switchedAt);
  const own = new Set((doc.leftPurchaseOrders ?? []).filter((entry) => !judged.includes(entry)).map((entry) => entry.purchaseOrderNumber));
  const stored = new Map(judged.map((entry) => [entry.purchaseOrderNumber, entry]));
  // Every purchase order the rebuild says it left, judged against the live version; with no live document, none is news.
  const left: LeftTimes = { set: [...stored.keys()].map((purchaseOrderNumber) => ({ purchaseOrderNumber, at: now })), drop: [] };
  const against = shown ? carriedOver({ ...fresh, left }, state, shown, true) : { ...fresh, left: { set: [], drop: [...stored.keys()] } };
  // Nor may an entry of the live version brought along replace one: it is an earlier leave of the
  // same purchase order (the sales order came back to it, unseen by the live version, stopped at the
  // switch), and its older time would hide this leave from that purchase order's pollers
  // (docs/design/queries.md, the polling promise).
  const carried = own.size === 0 || !against.left ? against : { ...against, left: { set: against.left.set.filter((entry) => !own.has(entry.purchaseOrderNumber)), drop: against.left.drop } };
  const stamped = stampsAny(carried);
  return { times: stamp ? carried : keepingUnshown(carried), stamped };
}

const holds = (source: TimeSource, time: Date | undefined) =>
  source.from === 'stored' || (source.from === 'none' ? time === undefined : source.from === 'value' && time?.getTime() === source.at.getTime());

/** Whether the stored document holds the purchase orders left as `left` leaves them. */
function holdsLeft(stored: LeftPurchaseOrder[] | undefined, left: LeftTimes | undefined): boolean {
  if (!left) return true;
  const byNumber = new Map((stored ?? []).map((entry) => [entry.purchaseOrderNumber, entry.at]));
  return left.drop.every((number) => !byNumber.has(number)) && left.set.every((entry) => holds(entry.at, byNumber.get(entry.purchaseOrderNumber)));
}

/** Whether the document holds these times already (none of them is 'now'): settling then writes nothing. */
export function holdsAll(doc: TimedShipments, times: VisibleTimes): boolean {
  return (
    holds(times.completeChangedAt, doc.completeChangedAt) &&
    holds(times.purchaseOrderSetAt, doc.purchaseOrderSetAt) &&
    holdsLeft(doc.leftPurchaseOrders, times.left) &&
    times.locations.every((l, i) => {
      const { completeChangedAt, packages } = doc.locations[i]!;
      return holds(l.completeChangedAt, completeChangedAt) && l.packages.every((p, j) => holds(p, packages[j]!.visibleAt)) && l.references.every((r, j) => holds(r, packages[j]!.referencesChangedAt));
    })
  );
}

// Order status: 1.0.0's `changedAt` and 2.0.0's `updatedAt` (oss-osn-2.0.0.md §6).

/** Where a status change time of the written document comes from: stamped now, carried over, or left as stored. */
export type StatusTimeSource = Extract<TimeSource, { from: 'now' } | { from: 'value' }> | { from: 'stored' };

export interface StatusTimes {
  changedAt: StatusTimeSource;
  updatedAt: StatusTimeSource;
}

/** The live version's change times of a sales order, and the sequences they were shown at, that a rebuild carries over. */
export interface ShownChangeTimes {
  /** The status sequence `changedAt` was shown at (`sequence` on documents written before 2.0.0); absent before a status. */
  statusSequence?: number;
  changedAt?: Date;
  sequence: number;
  /** `updatedAt`, else (written before 2.0.0) `changedAt`. */
  updatedAt?: Date;
}

/**
 * The change times a projector's write gives: `changedAt` (1.0.0) moves only when the status
 * sequence does, `updatedAt` (2.0.0) every time. A rebuild (`shown`, the live version) carries a
 * time over instead where the live version showed that much already: `changedAt` where the
 * rebuilt status sequence is at or below the live one's, `updatedAt` where the sequence is.
 */
export function statusWriteTimes(before: OrderStatusState | undefined, after: OrderStatusState, shown?: ShownChangeTimes): StatusTimes {
  const statusSequence = statusSequenceOf(after);
  const statusMoved = statusSequence !== undefined && (before === undefined || statusSequence !== statusSequenceOf(before));
  let changedAt: StatusTimeSource = { from: 'stored' };
  if (statusMoved) {
    changedAt = shown?.statusSequence !== undefined && statusSequence <= shown.statusSequence && shown.changedAt !== undefined ? { from: 'value', at: shown.changedAt } : now;
  }
  const updatedAt: StatusTimeSource = shown !== undefined && after.sequence <= shown.sequence && shown.updatedAt !== undefined ? { from: 'value', at: shown.updatedAt } : now;
  return { changedAt, updatedAt };
}

/** The document without the store's own fields (orderStatusStoreFields): the state it shows. */
const withoutTimes = (doc: TimedOrderStatus): Record<string, unknown> => {
  const state: Record<string, unknown> = { ...doc };
  for (const field of Object.keys(orderStatusStoreFields)) delete state[field];
  return state;
};
/** What 1.0.0 answers of a sales order. */
const v1Shown = (doc: TimedOrderStatus) => picked(doc, ['clientId', 'salesOrderNumber', 'open', ...v1StatusFields]);

/**
 * Whether the live version shows what 1.0.0 answers of the rebuilt document, or a later status:
 * keyed on the status sequence, which events of contract v2 types do not move, so that a rebuild
 * with them shows 1.0.0 pollers nothing new.
 */
function showsStatus(live: TimedOrderStatus, doc: TimedOrderStatus): boolean {
  const [shown, rebuilt] = [statusSequenceOf(live), statusSequenceOf(doc)];
  if (shown === undefined || rebuilt === undefined || live.changedAt === undefined) return false;
  return shown > rebuilt || (shown === rebuilt && isDeepStrictEqual(v1Shown(live), v1Shown(doc)));
}

/** Whether the live version shows the rebuilt document as 2.0.0 answers it, or a later state. A document written before 2.0.0 showed 1.0.0's fields alone. */
function showsState(live: TimedOrderStatus, doc: TimedOrderStatus): boolean {
  if (live.sequence !== doc.sequence) return live.sequence > doc.sequence;
  return live.updatedAt === undefined ? isDeepStrictEqual(v1Shown(live), v1Shown(doc)) : isDeepStrictEqual(withoutTimes(live), withoutTimes(doc));
}

/**
 * The change times a rebuilt status settles to: where the live version shows the same (the same
 * status for `changedAt`, the same state for `updatedAt`) or later, its time; otherwise now (a
 * partner who polled the live version has not seen it). `changedAt` only once a status is folded.
 */
export function settledStatusTimes(doc: TimedOrderStatus, live: TimedOrderStatus | undefined): StatusTimes {
  let changedAt: StatusTimeSource = { from: 'stored' };
  if (statusSequenceOf(doc) !== undefined) changedAt = live && showsStatus(live, doc) ? { from: 'value', at: live.changedAt! } : now;
  const liveUpdatedAt = live?.updatedAt ?? live?.changedAt;
  const updatedAt: StatusTimeSource = live && liveUpdatedAt && showsState(live, doc) ? { from: 'value', at: liveUpdatedAt } : now;
  return { changedAt, updatedAt };
}
