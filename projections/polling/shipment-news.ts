import { purchaseOrderComplete } from '../completion.js';
import type { LocationState, ShipmentsState } from '../state.js';
import type { StoredPackage, TimedShipments } from './timed-documents.js';

/** A document of the store as these rules read it: its times, and its key where it has one. */
type Stored = TimedShipments & { _id?: string };

// What shipment queryType 3 answers of stored sales orders (queries.md): the packages shipped or
// made visible since the partner's timestamp, the locations whose complete flag changed since,
// every location of a sales order whose complete flag changed since, and of a purchase order whose
// complete flag or members changed since. Pure: the lookups (shipment-reads.ts) read, this decides. The lookup's
// plan computes `newsKey` (of newsKeyedInV2 for 2.0.0) on the server the same way (serverNewsKey in
// shipment-reads.ts; news-key.int.test.ts holds the two together). 2.1.0 (`countsReferences`) also
// answers a package whose shipReferences changed since, which 1.0.0 and 2.0.0 do not show.

export interface ShipmentNewsSince {
  /** The partner's timestamp: the ERP's shipmentDate at or after it is new. */
  shippedSince: Date;
  /** The timestamp less the overlap for clock skew: the service's visible times at or after it are new. */
  visibleSince: Date;
}

/** Whether one of the store's times, absent while it was never stamped, is at or after `from`. */
const atOrAfter = (time: Date | undefined, from: Date): boolean => time !== undefined && time >= from;

/** Whether a package is news since: shipped or made visible since; for 2.1.0 (`countsReferences`) also its shipReferences changed since. */
const isNewPackage = (pkg: StoredPackage, since: ShipmentNewsSince, countsReferences: boolean): boolean =>
  pkg.shipmentDate >= since.shippedSince || atOrAfter(pkg.visibleAt, since.visibleSince) || (countsReferences && atOrAfter(pkg.referencesChangedAt, since.visibleSince));

/**
 * The part of a stored sales order that queryType 3 answers, as a state without the store's
 * times: its locations with a new package or a changed complete flag, each with its new packages
 * only; every location where its own complete flag changed since, or with `wholePurchaseOrder`
 * (its purchase order's complete flag or members changed). Undefined when nothing of it is answered.
 * `countsReferences`: 2.1.0's rule, a package whose shipReferences changed since is new too.
 */
export function newsOf(so: Stored, since: ShipmentNewsSince, wholePurchaseOrder = false, countsReferences = false): ShipmentsState | undefined {
  const whole = wholePurchaseOrder || atOrAfter(so.completeChangedAt, since.visibleSince);
  const locations: LocationState[] = [];
  for (const stored of so.locations) {
    const { completeChangedAt: _, packages, ...location } = stored;
    const fresh = packages.filter((p) => isNewPackage(p, since, countsReferences)).map(({ visibleAt: _v, referencesChangedAt: _r, ...pkg }) => pkg);
    if (fresh.length > 0 || whole || atOrAfter(stored.completeChangedAt, since.visibleSince)) locations.push({ ...location, packages: fresh });
  }
  if (locations.length === 0) return undefined;
  const { _id: _i, completeChangedAt: _c, purchaseOrderSetAt: _p, lastNewsAt: _l, leftPurchaseOrders: _lp, ...state } = so;
  return { ...state, locations };
}

/**
 * What 2.0.0's queryType 3 answers inside each location that 1.0.0's answers (`news`, see newsOf):
 * its new packages, as 1.0.0; where the location's flag changed, or it is answered for a flag or
 * membership alone (no new package, and 2.0.0's PackageArray needs one), all its packages (`doc`,
 * as stored). The store's times beside them need no stripping: the answer picks its fields by name.
 */
export function v2LocationsOfNews<D extends Stored>(doc: D, news: ShipmentsState, since: ShipmentNewsSince): D {
  const answered = new Map(news.locations.map((location) => [location.locationId, location]));
  const locations = doc.locations.flatMap((stored) => {
    const inNews = answered.get(stored.locationId);
    if (!inNews) return [];
    if (inNews.packages.length === 0 || atOrAfter(stored.completeChangedAt, since.visibleSince)) return [stored];
    const fresh = new Set(inNews.packages.map((p) => p.packageId));
    return [{ ...stored, packages: stored.packages.filter((p) => fresh.has(p.packageId)) }];
  });
  return { ...doc, locations };
}

/**
 * What 2.0.0 orders a sales order's news (`news`, newsOf of `doc`) by: its locations that hold a
 * package as stored. 2.0.0 answers no location without one, so one answered for its complete flag
 * alone would key its purchase order at a timestamp its partner cannot see in the answer.
 */
export function newsKeyedInV2<D extends Stored>(doc: D, news: ShipmentsState): ShipmentsState {
  const withPackages = new Set(doc.locations.filter((stored) => stored.packages.length > 0).map((stored) => stored.locationId));
  return { ...news, locations: news.locations.filter((location) => withPackages.has(location.locationId)) };
}

/**
 * The time an answered sales order is ordered by, in terms a partner can read from the answer:
 * the earliest shipmentDate it holds, or the partner's timestamp when one of its locations holds
 * no package (a complete flag's news has no shipmentDate). A purchase order's is its sales
 * orders' earliest; docs/partners.md tells partners to resume a full answer from the last one's.
 */
export function newsKey(so: ShipmentsState, since: ShipmentNewsSince): number {
  let key = Infinity;
  for (const location of so.locations) {
    if (location.packages.length === 0) key = Math.min(key, since.shippedSince.getTime());
    for (const pkg of location.packages) key = Math.min(key, pkg.shipmentDate.getTime());
  }
  return key;
}

/** A purchase order's place in a queryType 3 answer: its key (its answered sales orders' least newsKey). */
export interface NewsPlace {
  clientId: string;
  purchaseOrderNumber: string;
  key: number;
}

/** The order of a queryType 3 answer's purchase orders: by key, then client and number (docs/partners.md: a partner resumes from the last one). */
export const compareNews = (a: NewsPlace, b: NewsPlace): number => a.key - b.key || a.clientId.localeCompare(b.clientId) || a.purchaseOrderNumber.localeCompare(b.purchaseOrderNumber);

/**
 * An answer sent as it is read, in a planned order: of the purchase orders read and not sent yet
 * (`waiting`, at the keys read), those that can be sent now, in order: the ones that sort before
 * `next`, the first still to be read, at its planned key (none left: all). A write between the
 * plan and the read can move a key later than planned: that purchase order waits until none still
 * to be read sorts before it. One moved earlier (a package posted late with an older shipmentDate)
 * is sent after some that sort after it now: the last purchase order's time, from which a partner
 * resumes a full answer (partners.md), can only come out earlier, so the resume misses nothing.
 * One moved past `end`, the last planned (a sales order left it, taking its earliest news), is
 * sent at once, ahead of the others: sent last, its time would make the partner resume past
 * purchase orders a full answer left out. So that the answer ends with one within `end`, the last
 * that could be sent waits for the next batch while none later is waiting.
 */
export function sendable<P extends NewsPlace>(waiting: readonly P[], next: NewsPlace | undefined, end: NewsPlace): { send: P[]; wait: P[] } {
  const sorted = [...waiting].sort(compareNews);
  const past = sorted.filter((p) => p.key > end.key);
  const within = sorted.filter((p) => p.key <= end.key);
  if (!next) return { send: [...past, ...within], wait: [] };
  const ready = within.filter((p) => compareNews(p, next) < 0);
  const wait = within.filter((p) => compareNews(p, next) >= 0);
  if (wait.length === 0 && ready.length > 0) wait.push(ready.pop()!);
  return { send: [...past, ...ready], wait };
}

export type PurchaseOrderMember = Pick<TimedShipments, 'complete' | 'completeChangedAt' | 'purchaseOrderSetAt'>;

/**
 * Whether the complete flag of a purchase order with these sales orders (all of them, answered or
 * not) differs from what it was at `visibleSince`: then, a sales order that came under it since
 * was not part of it, and one whose flag changed since had the other flag. A sales order that left
 * the purchase order since is not among them: the purchase orders left since are answered whole by
 * their left times (documents.ts, leftPurchaseOrders) instead.
 */
export function purchaseOrderCompleteChanged(members: readonly PurchaseOrderMember[], visibleSince: Date): boolean {
  const then = members.filter((m) => !atOrAfter(m.purchaseOrderSetAt, visibleSince));
  const completeThen = then.length > 0 && then.every((m) => (atOrAfter(m.completeChangedAt, visibleSince) ? !m.complete : m.complete));
  const completeNow = purchaseOrderComplete(members);
  return completeThen !== completeNow;
}

/** The state a stored shipments document holds, without the store's times. */
export function stripTimes(doc: Stored): ShipmentsState {
  const { _id: _i, completeChangedAt: _c, purchaseOrderSetAt: _p, lastNewsAt: _l, leftPurchaseOrders: _lp, ...state } = doc;
  return {
    ...state,
    locations: doc.locations.map(({ completeChangedAt: _, ...location }) => ({ ...location, packages: location.packages.map(({ visibleAt: _v, referencesChangedAt: _r, ...pkg }) => pkg) })),
  };
}
