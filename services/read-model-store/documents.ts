import { MongoServerError, type Collection, type Db, type Document, type IndexDescription } from 'mongodb';
import type { OrderStatusState, ShipmentsState } from '../../projections/state.js';

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
  changedAt: Date;
}

export interface ShipmentsDocument extends ShipmentsState {
  _id: string;
  /** Every package's shipmentDate, flat, so shipment queryType 3 can use a plain multikey index. */
  shipmentDates: Date[];
}

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

/** Indexes for the four lookups of queries.md. Named, so creating them again is a no-op. */
const orderStatusIndexes: IndexDescription[] = [
  { name: 'by_purchase_order', key: { clientId: 1, purchaseOrderNumber: 1, salesOrderNumber: 1 } },
  { name: 'by_sales_order', key: { clientId: 1, salesOrderNumber: 1 } },
  { name: 'by_change_time', key: { clientId: 1, changedAt: 1 } },
  { name: 'open_by_purchase_order', key: { clientId: 1, open: 1, purchaseOrderNumber: 1 } },
];

const shipmentsIndexes: IndexDescription[] = [
  { name: 'by_purchase_order', key: { clientId: 1, purchaseOrderNumber: 1, salesOrderNumber: 1 } },
  { name: 'by_sales_order', key: { clientId: 1, salesOrderNumber: 1 } },
  { name: 'by_shipment_date', key: { clientId: 1, shipmentDates: 1 } },
];

/** Names of the collection's indexes; none when the collection does not exist yet. */
async function indexNames<T extends Document>(collection: Collection<T>): Promise<Set<string>> {
  try {
    return new Set((await collection.indexes()).map((index) => String(index.name)));
  } catch (error) {
    if (error instanceof MongoServerError && error.code === 26) return new Set(); // NamespaceNotFound
    throw error;
  }
}

// Only the missing indexes are created: FerretDB 1.24 panics (and drops the connection) when
// createIndexes names an index that already exists, where MongoDB would do nothing.
async function createMissingIndexes<T extends Document>(collection: Collection<T>, indexes: IndexDescription[]): Promise<void> {
  const existing = await indexNames(collection);
  const missing = indexes.filter((index) => !existing.has(String(index.name)));
  if (missing.length > 0) await collection.createIndexes(missing);
}

export async function ensureIndexes(collections: ReadModelCollections): Promise<void> {
  await Promise.all([
    createMissingIndexes(collections.orderStatus, orderStatusIndexes),
    createMissingIndexes(collections.shipments, shipmentsIndexes),
  ]);
}
