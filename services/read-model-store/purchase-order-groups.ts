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

/**
 * Groups sales orders that arrive in time order (queryType 3) under their purchase order, keeping
 * the `limit` purchase orders whose first sales order comes first, each whole: when the limit
 * cuts the stream, `laterMembers` is asked for the kept purchase orders' matching sales orders
 * (any it returns that are already in, or of other purchase orders, are ignored) and those read
 * after the cut join their groups. Members stay in `memberOrder`.
 */
export async function groupWholePurchaseOrders<T extends SalesOrderLike & { salesOrderNumber: string }>(
  inTimeOrder: AsyncIterable<T> | Iterable<T>,
  laterMembers: (kept: PurchaseOrderGroup<T>[]) => AsyncIterable<T> | Iterable<T>,
  memberOrder: (a: T, b: T) => number,
  limit = maxPurchaseOrdersPerAnswer,
): Promise<PurchaseOrderGroup<T>[]> {
  const { groups, cut } = await collectPurchaseOrders(inTimeOrder, limit);
  if (!cut) return groups;

  const byKey = new Map(groups.map((group) => [groupKey(group.clientId, group.purchaseOrderNumber), group]));
  const answered = new Set(groups.flatMap((group) => group.members.map((m) => groupKey(m.clientId, m.salesOrderNumber))));
  for await (const item of laterMembers(groups)) {
    const group = item.purchaseOrderNumber === undefined ? undefined : byKey.get(groupKey(item.clientId, item.purchaseOrderNumber));
    const key = groupKey(item.clientId, item.salesOrderNumber);
    if (!group || answered.has(key)) continue;
    answered.add(key);
    group.members.push(item);
  }
  for (const group of groups) group.members.sort(memberOrder);
  return groups;
}
