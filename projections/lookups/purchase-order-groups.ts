// Answers group sales orders by purchase order, at most maxPurchaseOrdersPerAnswer of them (docs/partners.md).
/** One answer element per purchase order number of one client. */
export interface PurchaseOrderGroup<T> {
  clientId: string;
  purchaseOrderNumber: string;
  members: T[];
}

export const maxPurchaseOrdersPerAnswer = 5_000;

type SalesOrderLike = { clientId: string; purchaseOrderNumber?: string };

/** The key of a purchase order of one client (a group, or a sales order of it). */
export const groupKey = (g: SalesOrderLike): string => JSON.stringify([g.clientId, g.purchaseOrderNumber]);

/**
 * Groups sales orders under their purchase order, in order of first appearance, keeping at most
 * `limit` purchase orders: reading stops (the cursor is closed) at the first sales order of a
 * purchase order past the limit. Sorted by purchase order, that is the first `limit` whole.
 */
export async function groupByPurchaseOrder<T extends SalesOrderLike>(
  items: AsyncIterable<T> | Iterable<T>,
  limit = maxPurchaseOrdersPerAnswer,
): Promise<PurchaseOrderGroup<T>[]> {
  return (await cappedGroups(items, limit)).groups;
}

/** groupByPurchaseOrder, and whether a purchase order past the limit was met (more matched than the answer holds). */
export async function cappedGroups<T extends SalesOrderLike>(
  items: AsyncIterable<T> | Iterable<T>,
  limit = maxPurchaseOrdersPerAnswer,
): Promise<{ groups: PurchaseOrderGroup<T>[]; more: boolean }> {
  const groups = new Map<string, PurchaseOrderGroup<T>>();
  let more = false;
  for await (const item of items) {
    if (item.purchaseOrderNumber === undefined) continue;
    const key = groupKey(item);
    let group = groups.get(key);
    if (!group) {
      if (groups.size >= limit) {
        more = true;
        break;
      }
      group = { clientId: item.clientId, purchaseOrderNumber: item.purchaseOrderNumber, members: [] };
      groups.set(key, group);
    }
    group.members.push(item);
  }
  return { groups: [...groups.values()], more };
}
