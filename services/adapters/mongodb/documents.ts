import { MongoServerError, type Collection, type Db, type Document, type IndexDescription } from 'mongodb';
import { isOpenIssue } from '../../../contracts/v2-vocabulary.js';
import type { OrderStatusState } from '../../../projections/state.js';
import { orderStatusStoreFields, type TimedOrderStatus, type TimedShipments } from '../../../projections/polling/timed-documents.js';

/** An order-status document: the state with its change times (timed-documents.ts) and its key. */
export interface OrderStatusDocument extends TimedOrderStatus {
  _id: string;
}

/** A shipments document: the state with its visible times (timed-documents.ts) and its key. */
export interface ShipmentsDocument extends TimedShipments {
  _id: string;
}

/** The store's issue fields of a state: what getIssue and allOpenIssues read through their indexes. */
export const issueFieldsOf = (state: OrderStatusState): Required<Pick<OrderStatusDocument, 'issueIds' | 'openIssue'>> => ({
  issueIds: (state.issues ?? []).map((issue) => issue.issueId),
  openIssue: (state.issues ?? []).some((issue) => isOpenIssue(issue.issueStatus)),
});

export const orderStatusStateProjection = { _id: 0, ...orderStatusStoreFields } as const;

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
  'locations.packages.referencesChangedAt': 0,
  resume: 0,
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
