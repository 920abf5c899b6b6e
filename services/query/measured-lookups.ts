import { maxPurchaseOrdersPerAnswer } from '../adapters/mongodb/purchase-order-groups.js';
import type { QueryMetrics } from '../plumbing/metrics/query-metrics.js';
import type { OrderLookups, ShipmentQuery, StatusQuery } from '../../contracts/lookups.js';
import type { OrderStatusView, ShipmentNotificationView } from '../../contracts/lookup-answers.js';

/** The lookups, counting each answer's purchase orders and the answers cut at the limit. */
export class MeasuredLookups implements OrderLookups {
  constructor(
    private readonly inner: OrderLookups,
    private readonly metrics: Pick<QueryMetrics, 'answerPurchaseOrders' | 'answersCut'>,
  ) {}

  async orderStatus(clientIds: string[], query: StatusQuery, signal?: AbortSignal): Promise<OrderStatusView[]> {
    return this.measured('order_status', await this.inner.orderStatus(clientIds, query, signal));
  }

  async shipmentNotifications(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<ShipmentNotificationView[]> {
    return this.measured('shipments', await this.inner.shipmentNotifications(clientIds, query, signal));
  }

  private measured<T>(lookup: string, answer: T[]): T[] {
    this.metrics.answerPurchaseOrders.observe({ lookup }, answer.length);
    if (answer.length >= maxPurchaseOrdersPerAnswer) this.metrics.answersCut.inc({ lookup });
    return answer;
  }
}
