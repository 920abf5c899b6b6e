import { MongoServerError, type Collection, type Db, type Document, type IndexDescription } from 'mongodb';
import { isOpenIssue } from '../../../contracts/v2-vocabulary.js';
import type { LocationState, OrderStatusState, PackageState, ShipmentsState } from '../../../projections/state.js';

/**
 * The change time that status queryType 3 filters on.
 *
 * It is the service's own record of when a change became visible, never the ERP's occurredAt:
 * - No miss while the projector lags: `changedAt` is set by the database server itself
 *   (`$currentDate`) in the same single-document update that makes the new state visible, so a
 *   change is never visible with a change time earlier than a poll that could not see it, however
 *   far behind the topic the projector runs (occurredAt could be hours old when it lands).
 * - No false news after a rebuild: a rebuild fills a new collection version; where the rebuilt
 *   state is at or below the sequence the previous version already showed, it carries that
 *   version's `changedAt` over instead of stamping a new one (see `writes.ts`).
 * The query side subtracts a small overlap (see the lookups) for clock skew between servers;
 * a partner may then see a change twice, never zero times.
 */
export interface OrderStatusDocument extends OrderStatusState {
  _id: string;
  /**
   * 1.0.0's change time: stamped only in a write that moves `statusSequence` (a status event), so
   * that events of contract v2 alone show 1.0.0 pollers nothing. Absent before the first status
   * (a document an event of a v2 type made is unanswerable until then).
   */
  changedAt?: Date;
  /**
   * 2.0.0's change time (queryType lastUpdate): stamped in every write, whatever it changes (an
   * issue, a line, a contact too); carried over by a rebuild like `changedAt`. Documents written
   * before 2.0.0 lack it (and the two fields below): a rebuild brings them.
   */
  updatedAt?: Date;
  /** The ids of every issue kept (`issues`), flat, so that getIssue reads them through a multikey index. */
  issueIds?: string[];
  /** Whether an issue is Open or Pending: allOpenIssues reads these through an index. */
  openIssue?: boolean;
}

/** The store's issue fields of a state: what getIssue and allOpenIssues read through their indexes. */
export const issueFieldsOf = (state: OrderStatusState): Required<Pick<OrderStatusDocument, 'issueIds' | 'openIssue'>> => ({
  issueIds: (state.issues ?? []).map((issue) => issue.issueId),
  openIssue: (state.issues ?? []).some((issue) => isOpenIssue(issue.issueStatus)),
});

/** The store's own fields of an order-status document: a projection without them reads it as the state the projections fold. */
export const orderStatusStoreFields = { changedAt: 0, updatedAt: 0, issueIds: 0, openIssue: 0 } as const;
export const orderStatusStateProjection = { _id: 0, ...orderStatusStoreFields } as const;

/**
 * The times that shipment queryType 3 filters on besides shipmentDate, each the service's own
 * record, from the database server's clock, of when something became visible to partners (see
 * `visible-times.ts` for when each is stamped, kept or carried over). A package posted late, or a
 * complete flag that changed, is news to a partner who polled before it became visible, whatever
 * its shipmentDate. Documents written before these times were recorded lack them: what they hold
 * was visible long ago.
 */
export interface StoredPackage extends PackageState {
  /** When this package, as it is, was made visible. */
  visibleAt?: Date;
}

export interface StoredLocation extends Omit<LocationState, 'packages'> {
  /** When this location's complete flag last changed; absent while it never did. */
  completeChangedAt?: Date;
  packages: StoredPackage[];
}

/** A purchase order a sales order left (moved to another, or its number dropped), and when that became visible. */
export interface LeftPurchaseOrder {
  purchaseOrderNumber: string;
  at: Date;
}

export interface ShipmentsDocument extends Omit<ShipmentsState, 'locations'> {
  _id: string;
  locations: StoredLocation[];
  /**
   * When the sales order's complete flag last changed, and when it came under its purchase order
   * number (its packages are then new to that purchase order); absent while it never did. With
   * the flags of its purchase order's other sales orders they tell whether that purchase order's
   * complete flag changed since a time.
   */
  completeChangedAt?: Date;
  purchaseOrderSetAt?: Date;
  /**
   * The latest of its packages' shipmentDates and visible times, its locations' flag times, its own
   * flag time, the time it came under its purchase order and those it left purchase orders at (each can change an order's flag): a
   * sales order has news since a time only when this is at or after it, so queryType 3 finds
   * them through one plain index, one key a sales order. Absent while it has none of these.
   */
  lastNewsAt?: Date;
  /**
   * Each purchase order this sales order left, at most one entry a number, with the time it left
   * last: its members changed then, news to its pollers (queryType 3 answers it whole). Read
   * through by_left_time, whatever the sales order's number is now.
   */
  leftPurchaseOrders?: LeftPurchaseOrder[];
}

/** The store's own fields of a shipments document: a projection without them reads it as the state the projections fold. */
export const shipmentsStoreFields = {
  completeChangedAt: 0,
  purchaseOrderSetAt: 0,
  lastNewsAt: 0,
  leftPurchaseOrders: 0,
  // What queryType 3 read before lastNewsAt, still in documents written by earlier releases.
  shipmentDates: 0,
  'locations.completeChangedAt': 0,
  'locations.packages.visibleAt': 0,
} as const;
export const shipmentsStateProjection = { _id: 0, ...shipmentsStoreFields } as const;

export interface ReadModelCollections {
  orderStatus: Collection<OrderStatusDocument>;
  shipments: Collection<ShipmentsDocument>;
}

export function documentId(clientId: string, salesOrderNumber: string): string {
  return `${clientId}:${salesOrderNumber}`;
}

export function collectionNames(version: number): { orderStatus: string; shipments: string } {
  return { orderStatus: `order_status_v${version}`, shipments: `shipments_v${version}` };
}

export function readModelCollections(db: Db, version: number): ReadModelCollections {
  const names = collectionNames(version);
  return {
    orderStatus: db.collection<OrderStatusDocument>(names.orderStatus),
    shipments: db.collection<ShipmentsDocument>(names.shipments),
  };
}

/**
 * Only sales orders with a purchase order number are ever answered, and every lookup says so in
 * its filter: partial indexes hold those alone, so an index read examines only what may be answered.
 */
const answerable = { partialFilterExpression: { purchaseOrderNumber: { $exists: true } } };

/**
 * Indexes for the lookups of queries.md, each ending in the order its lookup answers in, so that no
 * lookup sorts more than its answer in memory. Creating an index that exists as defined is a no-op.
 */
const orderStatusIndexes: IndexDescription[] = [
  { name: 'by_purchase_order', key: { clientId: 1, purchaseOrderNumber: 1, salesOrderNumber: 1 }, ...answerable },
  { name: 'by_sales_order', key: { clientId: 1, salesOrderNumber: 1 }, ...answerable },
  { name: 'by_change_time', key: { clientId: 1, changedAt: 1 }, ...answerable },
  { name: 'open_by_purchase_order', key: { clientId: 1, open: 1, purchaseOrderNumber: 1, salesOrderNumber: 1 }, ...answerable },
  // 2.0.0 (oss-osn-2.0.0.md §6): lastUpdate, allOpenIssues, getIssue.
  { name: 'by_update_time', key: { clientId: 1, updatedAt: 1 }, ...answerable },
  // Ends in the sales order number, as open_by_purchase_order does, so the answer's order needs no sort in memory.
  { name: 'open_issues_by_purchase_order', key: { clientId: 1, openIssue: 1, purchaseOrderNumber: 1, salesOrderNumber: 1 }, ...answerable },
  { name: 'by_issue_id', key: { clientId: 1, issueIds: 1 }, ...answerable },
];

const shipmentsIndexes: IndexDescription[] = [
  { name: 'by_purchase_order', key: { clientId: 1, purchaseOrderNumber: 1, salesOrderNumber: 1 }, ...answerable },
  { name: 'by_sales_order', key: { clientId: 1, salesOrderNumber: 1 }, ...answerable },
  { name: 'by_news_time', key: { clientId: 1, lastNewsAt: 1 }, ...answerable },
  // A sales order that left a purchase order may carry no number now: its own partial filter.
  { name: 'by_left_time', key: { clientId: 1, 'leftPurchaseOrders.at': 1 }, partialFilterExpression: { 'leftPurchaseOrders.at': { $exists: true } } },
];

/** createIndexes refuses an index whose name exists with other keys (86) or options (85). */
const changedIndexCodes = new Set([85, 86]);
/** IndexNotFound: another process (a projector, a replay) dropped the changed index first. */
const indexNotFound = 27;

/**
 * Creates the indexes; an index whose definition changed since an earlier release (same name,
 * other keys or options) is dropped and made again as defined now. Until it is made again, its
 * lookups read through another index or none, so a changed index is best brought in by a rebuild
 * (`ossn replay`), whose new collections get the new indexes before they serve.
 */
async function createIndexes<T extends Document>(collection: Collection<T>, indexes: IndexDescription[]): Promise<void> {
  try {
    await collection.createIndexes(indexes);
    return;
  } catch (error) {
    if (!(error instanceof MongoServerError && changedIndexCodes.has(error.code as number))) throw error;
  }
  const existing = new Map((await collection.indexes()).map((index) => [index.name, index]));
  for (const wanted of indexes) {
    const found = existing.get(wanted.name);
    const same = found && JSON.stringify(found.key) === JSON.stringify(wanted.key) && JSON.stringify(found.partialFilterExpression) === JSON.stringify(wanted.partialFilterExpression);
    if (found && !same) {
      await collection.dropIndex(String(wanted.name)).catch((error: unknown) => {
        if (!(error instanceof MongoServerError && error.code === indexNotFound)) throw error;
      });
    }
  }
  await collection.createIndexes(indexes);
}

export async function ensureIndexes(collections: ReadModelCollections): Promise<void> {
  await Promise.all([
    createIndexes(collections.orderStatus, orderStatusIndexes),
    createIndexes(collections.shipments, shipmentsIndexes),
  ]);
}
