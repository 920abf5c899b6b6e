// The lookups over read models folded in memory, for tests of what the answers hold: every
// purchase order of the credential's clients, whole, as the MongoDB lookups answer a purchase order
// (queryType 1), built with the store's own mappings from state to view. The query's arguments are
// not looked at: which orders a query selects is tested against MongoDB beside the lookups.
import type { FoldResult } from '../../projections/fold.js';
import { hasStatus, type ShipmentsState, type StatusedOrderState } from '../../projections/state.js';
import { inOneBatch, type OrderLookups } from '../../contracts/lookups.js';
import type { OrderStatusView, ShipmentNotificationView } from '../../contracts/lookup-answers.js';
import { groupByPurchaseOrder } from '../../projections/lookups/purchase-order-groups.js';
import { toOrderStatusDetail, toSalesOrderShipment } from '../../projections/lookups/answers-v1.js';

type ReadModels = Pick<FoldResult, 'orderStatus' | 'shipments'>;

/**
 * The answerable sales orders of the clients, by purchase order, then client, then sales order, like
 * the MongoDB lookups' answers (which compare UTF-8 bytes, not UTF-16 units; no order is under test here).
 */
export function answerableByPurchaseOrder<T extends { clientId: string; salesOrderNumber: string; purchaseOrderNumber?: string }>(states: Iterable<T>, clientIds: string[]): T[] {
  const key = (s: T) => [s.purchaseOrderNumber ?? '', s.clientId, s.salesOrderNumber];
  const compare = (a: T, b: T) => {
    const [x, y] = [key(a), key(b)];
    const i = x.findIndex((part, n) => part !== y[n]);
    return i === -1 ? 0 : (x[i] as string) < (y[i] as string) ? -1 : 1;
  };
  return [...states].filter((s) => clientIds.includes(s.clientId) && s.purchaseOrderNumber !== undefined).sort(compare);
}

export class FoldedLookups implements OrderLookups {
  readModels: ReadModels = { orderStatus: new Map(), shipments: new Map() };

  async orderStatus(clientIds: string[]): Promise<OrderStatusView[]> {
    const groups = await groupByPurchaseOrder(answerableByPurchaseOrder([...this.readModels.orderStatus.values()].filter(hasStatus), clientIds));
    // The store's change time is no part of an answer; the mapping takes documents, which carry one.
    const detail = (state: StatusedOrderState) => toOrderStatusDetail(state);
    return groups.map((g) => ({ purchaseOrderNumber: g.purchaseOrderNumber, details: g.members.map(detail) }));
  }

  /** Every purchase order in one batch. */
  shipmentNotificationBatches(clientIds: string[]): Promise<AsyncIterable<ShipmentNotificationView[]>> {
    return inOneBatch(this.shipments(clientIds));
  }

  private async shipments(clientIds: string[]): Promise<ShipmentNotificationView[]> {
    const all = answerableByPurchaseOrder(this.readModels.shipments.values(), clientIds);
    // A purchase order is complete when every sales order of its client carrying its number is,
    // answered or not (one without locations is not answered).
    const complete = (group: { clientId: string; purchaseOrderNumber: string }) =>
      all.filter((so) => so.clientId === group.clientId && so.purchaseOrderNumber === group.purchaseOrderNumber).every((so) => so.complete);
    const groups = await groupByPurchaseOrder(all.filter((so: ShipmentsState) => so.locations.length > 0));
    return groups.map((g) => ({ purchaseOrderNumber: g.purchaseOrderNumber, complete: complete(g), salesOrders: g.members.map(toSalesOrderShipment) }));
  }
}
