import { isDeepStrictEqual } from 'node:util';
import type { PackageState, ShipmentsState } from '../../../projections/state.js';
import type { ShipmentsDocument, StoredLocation } from '../../adapters/mongodb/documents.js';
import { v1ItemFields, v1PackageFields } from '../../adapters/mongodb/v1-fields.js';

// Which of a shipments document's visible times (see documents.ts) a write sets anew, which it
// keeps, and which a rebuild carries over from the live version. Pure: the write step turns the
// sources into an update, and the database server's clock supplies every 'now'.

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
  /** One per package of the location, in its order. */
  packages: TimeSource[];
}

export interface VisibleTimes {
  completeChangedAt: TimeSource;
  purchaseOrderSetAt: TimeSource;
  /** Whether the write replaces the locations (and with them their times); otherwise `locations` is not used. */
  rewritesLocations: boolean;
  /** One per location of the state written, in its order. */
  locations: LocationTimes[];
}

const now: TimeSource = { from: 'now' };
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

/** A flag that changed since `before`; one that starts set is a change too, one that starts clear is not. */
const flagTime = (before: boolean | undefined, after: boolean, kept: TimeSource): TimeSource =>
  before === undefined ? (after ? now : none) : before === after ? kept : now;

/** Whether any of the times is stamped with the server's time now. */
export const stampsAny = (times: VisibleTimes): boolean =>
  times.completeChangedAt.from === 'now' ||
  times.purchaseOrderSetAt.from === 'now' ||
  times.locations.some((l) => l.completeChangedAt.from === 'now' || l.packages.some((p) => p.from === 'now'));

/**
 * The times of the document written for `after`, the stored one holding `before` (none: a new
 * document). A package is made visible when it first appears, when it is replaced by one that
 * differs in what 1.0.0 shows of it, and when its sales order comes under a purchase order number (partners of that purchase
 * order have not seen it); one left as it was keeps its time, so that recording its location again
 * or a redelivered event never makes it new. A complete flag's time moves when the flag changes.
 */
export function visibleTimes(before: ShipmentsState | undefined, after: ShipmentsState): VisibleTimes {
  const cameUnderPurchaseOrder = after.purchaseOrderNumber !== undefined && after.purchaseOrderNumber !== before?.purchaseOrderNumber;
  return {
    completeChangedAt: flagTime(before?.complete, after.complete, { from: 'stored' }),
    purchaseOrderSetAt: cameUnderPurchaseOrder ? now : before ? { from: 'stored' } : none,
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
      };
    }),
  };
}

/** What `shown` (the version partners read so far) shows for this time, when it shows the same thing. */
function shownTime(time: Date | undefined): TimeSource {
  return time === undefined ? none : { from: 'value', at: time }; // none: shown since before such times were recorded
}

/**
 * `times` with every 'now' (and 'none') replaced by the time `shown` gives the same thing, where it
 * shows the same thing: a rebuild must not make news of what partners have seen already, nor drop
 * the time a flag went false at.
 */
export function carriedOver(times: VisibleTimes, after: ShipmentsState, shown: ShipmentsDocument | undefined): VisibleTimes {
  if (!shown) return times;
  const samePurchaseOrder = shown.purchaseOrderNumber === after.purchaseOrderNumber;
  // A time to stamp ('now'), or none for a flag that is false: either way, where the live version
  // shows the same thing with a time of its own (a flag that went false there), that time stands.
  const carry = (source: TimeSource, same: boolean, time: Date | undefined): TimeSource =>
    (source.from === 'now' || source.from === 'none') && same ? shownTime(time) : source;
  return {
    completeChangedAt: carry(times.completeChangedAt, shown.complete === after.complete, shown.completeChangedAt),
    purchaseOrderSetAt: carry(times.purchaseOrderSetAt, samePurchaseOrder, shown.purchaseOrderSetAt),
    rewritesLocations: times.rewritesLocations,
    locations: times.locations.map((location, i) => {
      const state = after.locations[i]!;
      const shownLocation: StoredLocation | undefined = shown.locations.find((l) => l.locationId === state.locationId);
      return {
        completeChangedAt: carry(location.completeChangedAt, shownLocation?.complete === state.complete, shownLocation?.completeChangedAt),
        packages: location.packages.map((source, j) => {
          const pkg = state.packages[j]!;
          const shownPackage = shownLocation?.packages.find((p) => p.packageId === pkg.packageId);
          return carry(source, samePurchaseOrder && shownPackage !== undefined && showsTheSame(shownPackage, pkg), shownPackage?.visibleAt);
        }),
      };
    }),
  };
}
