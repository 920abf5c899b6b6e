/** One answer element per purchase order number of one client. */
export interface PurchaseOrderGroup<T> {
  clientId: string;
  purchaseOrderNumber: string;
  members: T[];
}

export const maxPurchaseOrdersPerAnswer = 5_000;

/**
 * Groups sales orders under their purchase order, in order of first appearance, keeping at most
 * `limit` purchase orders. Reading stops at the first sales order of a purchase order past the
 * limit: the answer is then everything before that point in the query's order, so no purchase
 * order is cut in half within it. Sorted by purchase order, that is the first `limit` purchase
 * orders whole. Sorted by time (queryType 3), it is every change before the first one left out,
 * so a poller that moves its timestamp to the last time it received misses nothing; a later
 * change of a purchase order already in the answer comes with the next poll.
 */
export async function groupByPurchaseOrder<T extends { clientId: string; purchaseOrderNumber?: string }>(
  items: AsyncIterable<T> | Iterable<T>,
  limit = maxPurchaseOrdersPerAnswer,
): Promise<PurchaseOrderGroup<T>[]> {
  const groups = new Map<string, PurchaseOrderGroup<T>>();
  for await (const item of items) {
    if (item.purchaseOrderNumber === undefined) continue;
    const key = JSON.stringify([item.clientId, item.purchaseOrderNumber]);
    let group = groups.get(key);
    if (!group) {
      if (groups.size >= limit) break;
      group = { clientId: item.clientId, purchaseOrderNumber: item.purchaseOrderNumber, members: [] };
      groups.set(key, group);
    }
    group.members.push(item);
  }
  return [...groups.values()];
}
