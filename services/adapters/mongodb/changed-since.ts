import type { Collection, Document, Filter } from 'mongodb';
import type { OrderStatusDocument } from './documents.js';
import { groupKey, maxPurchaseOrdersPerAnswer, type PurchaseOrderGroup } from '../../../projections/lookups/purchase-order-groups.js';
import { ofPurchaseOrders } from './purchase-order-filter.js';

// Status queryType 3 (1.0.0, on `changedAt`) and lastUpdate (2.0.0, on `updatedAt`): one
// algorithm over either change time (queries.md, oss-osn-2.0.0.md §2).

/**
 * Change and visible times are stamped by the database server; a poll's timestamp comes from the
 * partner's clock. The overlap absorbs clock skew between them: a change may be answered twice
 * on consecutive polls, never missed.
 */
export const changeTimeOverlapMs = 5_000;

/**
 * Documents per round trip of a read that stops at the answer's end, so that the server reads
 * little past it (by default the first getMore sends up to 16 MiB, far past the answer).
 */
const readPastTheAnswer = 1_000;

/** Options of every read of a lookup: its signal closes the cursors and ends the reads under way. */
export interface ReadOptions {
  signal?: AbortSignal;
}

/** The change time a lookup filters on: 1.0.0's (status moves only) or 2.0.0's (every write). */
type ChangeTimeField = 'changedAt' | 'updatedAt';

type Changed = { clientId: string; purchaseOrderNumber?: string; salesOrderNumber: string } & { [field in ChangeTimeField]?: Date };

/**
 * The sales orders whose `field` lies after `after`, grouped by purchase order, ascending by change
 * time, each purchase order whole at its earliest change: over the cap, the purchase orders kept
 * are those whose earliest change comes first (then by client and number), with all their changes.
 * The changes are read in change-time order (the index on `field`, merged over the clients), where
 * a purchase order first appears at its earliest change: past the earliest change of the last
 * purchase order that fits, reading stops at the first change of a purchase order not kept, and
 * the later changes of the purchase orders kept are read by number. `more`: a purchase order
 * past the cap matched.
 */
export async function changedSince<T extends Changed>(
  collection: Collection<OrderStatusDocument>,
  base: Filter<OrderStatusDocument>,
  field: ChangeTimeField,
  after: Date,
  projection: Document,
  read: ReadOptions,
): Promise<{ groups: PurchaseOrderGroup<T>[]; more: boolean }> {
  const timeOf = (so: T) => (so[field] as Date).getTime();
  const inOrder = collection.find<T>({ ...base, [field]: { $gt: after } }, { sort: { [field]: 1 }, projection, batchSize: readPastTheAnswer, ...read });
  const firsts = new Map<string, { group: PurchaseOrderGroup<T>; first: number }>();
  /** The earliest change of the last purchase order that fits, once as many as fit have appeared. */
  let lastFirst: number | undefined;
  /** The change time of the first purchase order met past the answer, where reading stopped. */
  let stoppedAt: number | undefined;
  for await (const so of inOrder) {
    const at = timeOf(so);
    const key = groupKey(so);
    let entry = firsts.get(key);
    if (lastFirst !== undefined && at > lastFirst) {
      if (!entry) {
        stoppedAt = at;
        break; // closes the cursor
      }
      entry.group.members.push(so); // a later change of a purchase order kept
      continue;
    }
    if (!entry) {
      entry = { group: { clientId: so.clientId, purchaseOrderNumber: so.purchaseOrderNumber as string, members: [] }, first: at };
      firsts.set(key, entry);
      if (firsts.size === maxPurchaseOrdersPerAnswer) lastFirst = at;
    }
    entry.group.members.push(so);
  }
  // In order of appearance, that is of earliest change; those that first changed at the same time by client and number.
  const chosen = [...firsts.values()]
    .sort((a, b) => a.first - b.first || a.group.clientId.localeCompare(b.group.clientId) || a.group.purchaseOrderNumber.localeCompare(b.group.purchaseOrderNumber))
    .slice(0, maxPurchaseOrdersPerAnswer)
    .map((entry) => entry.group);
  if (stoppedAt !== undefined) {
    const kept = new Map(chosen.map((group) => [groupKey(group), { group, read: new Set(group.members.map((so) => so.salesOrderNumber)) }]));
    const later = collection.find<T>({ ...ofPurchaseOrders(chosen), [field]: { $gte: new Date(stoppedAt) } } as Filter<OrderStatusDocument>, { projection, ...read });
    // ofPurchaseOrders also matches other combinations of the clients and numbers: only the chosen ones' are kept.
    for await (const so of later) {
      const entry = kept.get(groupKey(so));
      if (entry && !entry.read.has(so.salesOrderNumber)) entry.group.members.push(so);
    }
  }
  const byChangeTime = (a: T, b: T) => timeOf(a) - timeOf(b) || a.salesOrderNumber.localeCompare(b.salesOrderNumber);
  for (const group of chosen) group.members.sort(byChangeTime);
  return { groups: chosen, more: stoppedAt !== undefined || firsts.size > maxPurchaseOrdersPerAnswer };
}
