/** One answer element per purchase order number of one client. */
export interface PurchaseOrderGroup<T> {
  clientId: string;
  purchaseOrderNumber: string;
  members: T[];
}

export const maxPurchaseOrdersPerAnswer = 5_000;

/**
 * Groups sales orders under their purchase order, in order of first appearance, keeping at most
 * `limit` purchase orders and never cutting one in half: members of a purchase order already
 * taken still join it, whatever their position.
 * With `contiguous` (input sorted by purchase order), reading stops at the first group past the limit.
 */
export async function groupByPurchaseOrder<T extends { clientId: string; purchaseOrderNumber?: string }>(
  items: AsyncIterable<T> | Iterable<T>,
  { limit = maxPurchaseOrdersPerAnswer, contiguous }: { limit?: number; contiguous: boolean },
): Promise<PurchaseOrderGroup<T>[]> {
  const groups = new Map<string, PurchaseOrderGroup<T>>();
  for await (const item of items) {
    if (item.purchaseOrderNumber === undefined) continue;
    const key = JSON.stringify([item.clientId, item.purchaseOrderNumber]);
    let group = groups.get(key);
    if (!group) {
      if (groups.size >= limit) {
        if (contiguous) break;
        continue;
      }
      group = { clientId: item.clientId, purchaseOrderNumber: item.purchaseOrderNumber, members: [] };
      groups.set(key, group);
    }
    group.members.push(item);
  }
  return [...groups.values()];
}
