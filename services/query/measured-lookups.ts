import { maxPurchaseOrdersPerAnswer } from '../../projections/lookups/purchase-order-groups.js';
import type { QueryMetrics } from '../plumbing/metrics/query-metrics.js';
import type { OrderLookups, OrderLookupsV2, OrderStatusV2Query, ShipmentQuery, StatusQuery } from '../../contracts/lookups.js';
import type { CappedAnswer, CappedBatches, IssueView, OrderStatusV2View, ShipmentNotificationV2View } from '../../contracts/lookup-answers-v2.js';
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

  async shipmentNotificationBatches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<AsyncIterable<ShipmentNotificationView[]>> {
    return countedAtEnd(await this.inner.shipmentNotificationBatches(clientIds, query, signal), (purchaseOrders) => this.count('shipments', purchaseOrders));
  }

  private measured<T>(lookup: string, answer: T[]): T[] {
    this.count(lookup, answer.length);
    return answer;
  }

  private count(lookup: string, purchaseOrders: number): void {
    this.metrics.answerPurchaseOrders.observe({ lookup }, purchaseOrders);
    if (purchaseOrders >= maxPurchaseOrdersPerAnswer) this.metrics.answersCut.inc({ lookup });
  }
}

/** The 2.0.0 lookups, measured as the 1.0.0 ones: an answer is cut when more purchase orders matched. */
export class MeasuredLookupsV2 implements OrderLookupsV2 {
  constructor(
    private readonly inner: OrderLookupsV2,
    private readonly metrics: Pick<QueryMetrics, 'answerPurchaseOrders' | 'answersCut'>,
  ) {}

  async orderStatusV2(clientIds: string[], query: OrderStatusV2Query, signal?: AbortSignal): Promise<CappedAnswer<OrderStatusV2View>> {
    return this.measured('order_status', await this.inner.orderStatusV2(clientIds, query, signal));
  }

  issues(clientIds: string[], issueId: string, signal?: AbortSignal): Promise<IssueView[]> {
    return this.inner.issues(clientIds, issueId, signal);
  }

  async shipmentNotificationV2Batches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<CappedBatches<ShipmentNotificationV2View>> {
    const { more, batches } = await this.inner.shipmentNotificationV2Batches(clientIds, query, signal);
    return { more, batches: countedAtEnd(batches, (purchaseOrders) => this.count('shipments', purchaseOrders, more)) };
  }

  /** 2.1.0's shipments, counted with 2.0.0's under the same lookup. */
  async shipmentNotificationV21Batches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<CappedBatches<ShipmentNotificationV2View>> {
    const { more, batches } = await this.inner.shipmentNotificationV21Batches(clientIds, query, signal);
    return { more, batches: countedAtEnd(batches, (purchaseOrders) => this.count('shipments', purchaseOrders, more)) };
  }

  private measured<T>(lookup: string, answer: CappedAnswer<T>): CappedAnswer<T> {
    this.count(lookup, answer.orders.length, answer.more);
    return answer;
  }

  private count(lookup: string, purchaseOrders: number, more: boolean): void {
    this.metrics.answerPurchaseOrders.observe({ lookup }, purchaseOrders);
    if (more) this.metrics.answersCut.inc({ lookup });
  }
}

/** The batches, their purchase orders counted once the answer was read to its end (an answer ended early is not one). */
async function* countedAtEnd<V>(batches: AsyncIterable<V[]>, count: (purchaseOrders: number) => void): AsyncGenerator<V[]> {
  let purchaseOrders = 0;
  for await (const batch of batches) {
    purchaseOrders += batch.length;
    yield batch;
  }
  count(purchaseOrders);
}
