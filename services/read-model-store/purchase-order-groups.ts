/** One answer element per purchase order number of one client. */
export interface PurchaseOrderGroup<T> {
  clientId: string;
  purchaseOrderNumber: string;
  members: T[];
}

export const maxPurchaseOrdersPerAnswer = 5_000;

type SalesOrderLike = { clientId: string; purchaseOrderNumber?: string };

const groupKey = (clientId: string, purchaseOrderNumber: string) => JSON.stringify([clientId, purchaseOrderNumber]);

/**
 * Groups sales orders under their purchase order, in order of first appearance, keeping at most
 * `limit` purchase orders. Reading stops at the first sales order of a purchase order past the
 * limit (`cut` then says so): the groups are everything read before that point. Sorted by
 * purchase order, that is the first `limit` purchase orders whole.
 */
async function collectPurchaseOrders<T extends SalesOrderLike>(
  items: AsyncIterable<T> | Iterable<T>,
  limit = maxPurchaseOrdersPerAnswer,
): Promise<{ groups: PurchaseOrderGroup<T>[]; cut: boolean }> {
  const groups = new Map<string, PurchaseOrderGroup<T>>();
  for await (const item of items) {
    if (item.purchaseOrderNumber === undefined) continue;
    const key = groupKey(item.clientId, item.purchaseOrderNumber);
    let group = groups.get(key);
    if (!group) {
      if (groups.size >= limit) return { groups: [...groups.values()], cut: true };
      group = { clientId: item.clientId, purchaseOrderNumber: item.purchaseOrderNumber, members: [] };
      groups.set(key, group);
    }
    group.members.push(item);
  }
  return { groups: [...groups.values()], cut: false };
}

/** The first `limit` purchase orders of items sorted by purchase order, whole (see collectPurchaseOrders). */
export async function groupByPurchaseOrder<T extends SalesOrderLike>(
  items: AsyncIterable<T> | Iterable<T>,
  limit = maxPurchaseOrdersPerAnswer,
): Promise<PurchaseOrderGroup<T>[]> {
  return (await collectPurchaseOrders(items, limit)).groups;
}
