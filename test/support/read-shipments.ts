// The 1.0.0 shipments answer read to its end, for tests and benches that look at it whole: the
// lookups read it only in batches, as it is sent (docs/partners.md, "Large answers").
import type { OrderLookups, ShipmentQuery } from '../../contracts/lookups.js';
import type { ShipmentNotificationView } from '../../contracts/lookup-answers.js';

/** shipmentNotificationBatches' answer read to its end, its purchase orders in the answer's order. */
export async function readShipmentsWhole(
  lookups: Pick<OrderLookups, 'shipmentNotificationBatches'>,
  clientIds: string[],
  query: ShipmentQuery,
  signal?: AbortSignal,
): Promise<ShipmentNotificationView[]> {
  const views: ShipmentNotificationView[] = [];
  for await (const batch of await lookups.shipmentNotificationBatches(clientIds, query, signal)) views.push(...batch);
  return views;
}
