import { purchaseOrderComplete } from '../../../projections/completion.js';
import type { LocationState, ShipmentsState } from '../../../projections/state.js';
import type { ShipmentsDocument, StoredPackage } from '../../adapters/mongodb/documents.js';

// What shipment queryType 3 answers of stored sales orders (queries.md): the packages shipped or
// made visible since the partner's timestamp, the locations whose complete flag changed since,
// and every location of a purchase order whose complete flag changed since. The lookup's
// aggregation computes `newsKey` on the server the same way (see lookups.ts).

export interface ShipmentNewsSince {
  /** The partner's timestamp: the ERP's shipmentDate at or after it is new. */
  shippedSince: Date;
  /** The timestamp less the overlap for clock skew: the service's visible times at or after it are new. */
  visibleSince: Date;
}

/** Whether one of the store's times, absent while it was never stamped, is at or after `from`. */
const atOrAfter = (time: Date | undefined, from: Date): boolean => time !== undefined && time >= from;

const isNewPackage = (pkg: StoredPackage, since: ShipmentNewsSince): boolean =>
  pkg.shipmentDate >= since.shippedSince || atOrAfter(pkg.visibleAt, since.visibleSince);

/**
 * The part of a stored sales order that queryType 3 answers, as a state without the store's
 * times: its locations with a new package or a changed complete flag, each with its new packages
 * only; with `wholePurchaseOrder` (its purchase order's complete flag changed), every location.
 * Undefined when nothing of it is answered.
 */
export function newsOf(so: ShipmentsDocument, since: ShipmentNewsSince, wholePurchaseOrder = false): ShipmentsState | undefined {
  const locations: LocationState[] = [];
  for (const stored of so.locations) {
    const { completeChangedAt: _, packages, ...location } = stored;
    const fresh = packages.filter((p) => isNewPackage(p, since)).map(({ visibleAt: _v, ...pkg }) => pkg);
    if (fresh.length > 0 || wholePurchaseOrder || atOrAfter(stored.completeChangedAt, since.visibleSince)) locations.push({ ...location, packages: fresh });
  }
  if (locations.length === 0) return undefined;
  const { _id: _i, completeChangedAt: _c, purchaseOrderSetAt: _p, lastNewsAt: _l, ...state } = so;
  return { ...state, locations };
}

/**
 * The time an answered sales order is ordered by, in terms a partner can read from the answer:
 * the earliest shipmentDate it holds, or the partner's timestamp when one of its locations holds
 * no package (a complete flag's news has no shipmentDate). A purchase order's is its sales
 * orders' earliest; the README tells partners to resume a full answer from the last one's.
 */
export function newsKey(so: ShipmentsState, since: ShipmentNewsSince): number {
  let key = Infinity;
  for (const location of so.locations) {
    if (location.packages.length === 0) key = Math.min(key, since.shippedSince.getTime());
    for (const pkg of location.packages) key = Math.min(key, pkg.shipmentDate.getTime());
  }
  return key;
}

export type PurchaseOrderMember = Pick<ShipmentsDocument, 'complete' | 'completeChangedAt' | 'purchaseOrderSetAt'>;

/**
 * Whether the complete flag of a purchase order with these sales orders (all of them, answered or
 * not) differs from what it was at `visibleSince`: then, a sales order that came under it since
 * was not part of it, and one whose flag changed since had the other flag. A sales order that left
 * the purchase order since is not among them, so a change it alone made is not seen.
 */
export function purchaseOrderCompleteChanged(members: readonly PurchaseOrderMember[], visibleSince: Date): boolean {
  const then = members.filter((m) => !atOrAfter(m.purchaseOrderSetAt, visibleSince));
  const completeThen = then.length > 0 && then.every((m) => (atOrAfter(m.completeChangedAt, visibleSince) ? !m.complete : m.complete));
  const completeNow = purchaseOrderComplete(members);
  return completeThen !== completeNow;
}

/** The state a stored shipments document holds, without the store's times. */
export function stripTimes(doc: ShipmentsDocument): ShipmentsState {
  const { _id: _i, completeChangedAt: _c, purchaseOrderSetAt: _p, lastNewsAt: _l, ...state } = doc;
  return {
    ...state,
    locations: doc.locations.map(({ completeChangedAt: _, ...location }) => ({ ...location, packages: location.packages.map(({ visibleAt: _v, ...pkg }) => pkg) })),
  };
}
