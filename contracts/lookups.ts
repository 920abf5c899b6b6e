// The lookups the query service asks of the read-model store: what the protocol layers (SOAP,
// JSON) query, and what they get (lookup-answers.ts). The MongoDB implementation is in
// services/adapters/mongodb/; protocol tests may pass in-memory ones.
import type { OrderStatusView, ShipmentNotificationView } from './lookup-answers.js';
import type { CappedAnswer, CappedBatches, IssueView, OrderStatusV2View, ShipmentNotificationV2View } from './lookup-answers-v2.js';
import type { IssueDetailType, OrderStatusQueryType } from './v2-vocabulary.js';

export interface StatusQuery {
  queryType: number;
  referenceNumber?: string;
  statusTimeStamp?: Date;
}

export interface ShipmentQuery {
  queryType: number;
  referenceNumber?: string;
  shipmentDateTimeStamp?: Date;
}

/** `signal` aborts the lookup's store work (its client went away, or its answer was given). */
export interface OrderLookups {
  orderStatus(clientIds: string[], query: StatusQuery, signal?: AbortSignal): Promise<OrderStatusView[]>;
  /**
   * The shipments answer (queryType 1, 2, 3) a batch of purchase orders at a time, in its order, as
   * it is read (an answer of thousands is sent as it is read; queryType 1 and 2 in one batch):
   * resolves once the lookup has begun (a failure until then fails the request), then a failure
   * fails the iteration. Ending the iteration early ends the lookup's work.
   */
  shipmentNotificationBatches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<AsyncIterable<ShipmentNotificationView[]>>;
}

/** Each batch of an answer read in batches, mapped as it comes. */
export async function* mapBatches<T, U>(batches: AsyncIterable<T>, map: (batch: T) => U): AsyncGenerator<U> {
  for await (const batch of batches) yield map(batch);
}

/** An answer already read whole, as one batch (none when it is empty): for lookups that do not read in batches. */
export async function inOneBatch<V>(answer: Promise<V[]>): Promise<AsyncIterable<V[]>> {
  return oneBatch(await answer);
}

async function* oneBatch<V>(views: V[]): AsyncGenerator<V[]> {
  if (views.length > 0) yield views;
}

/** A capped answer already read whole, as one batch. */
export const cappedInOneBatch = <V>({ orders, more }: CappedAnswer<V>): CappedBatches<V> => ({ more, batches: oneBatch(orders) });

/** A capped answer read in batches, read to its end. */
export async function readWhole<V>({ more, batches }: CappedBatches<V>): Promise<CappedAnswer<V>> {
  const orders: V[] = [];
  for await (const batch of batches) orders.push(...batch);
  return { orders, more };
}

// ---- 2.0.0 (oss-osn-2.0.0.md §2)

export interface OrderStatusV2Query {
  /** transactionId is refused before any lookup. */
  queryType: Exclude<OrderStatusQueryType, 'transactionId'>;
  /** The purchase order number (poSearch) or sales order number (soSearch). */
  referenceNumber?: string;
  /** lastUpdate: sales orders whose 2.0.0 change time lies after this less the overlap. */
  statusTimeStamp?: Date;
  returnIssueDetailType: IssueDetailType;
  returnProductDetail: boolean;
}

/** The same lookups for the 2.0.0 services, from the same read models. */
export interface OrderLookupsV2 {
  orderStatusV2(clientIds: string[], query: OrderStatusV2Query, signal?: AbortSignal): Promise<CappedAnswer<OrderStatusV2View>>;
  /** Every stored issue with this id (derived ones included) on an answerable sales order of the clients. */
  issues(clientIds: string[], issueId: string, signal?: AbortSignal): Promise<IssueView[]>;
  /**
   * queryType 1, 2, 3 as 1.0.0's, answering only locations with packages, a batch of purchase
   * orders at a time as shipmentNotificationBatches' (queryType 1 and 2 in one batch): resolves
   * once the answer's order is planned (a failure until then fails the request), then a failure
   * fails the iteration. Ending the iteration early ends the lookup's work.
   */
  shipmentNotificationV2Batches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<CappedBatches<ShipmentNotificationV2View>>;
  /**
   * OSN 2.1.0: as shipmentNotificationV2Batches, each package with its shipReferences; queryType 1
   * and 2 the same, queryType 3 also answers a package whose shipReferences changed since the
   * timestamp (less the overlap, as visible times), which 1.0.0 and 2.0.0 pollers are not shown
   * (docs/design/queries.md).
   */
  shipmentNotificationV21Batches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal): Promise<CappedBatches<ShipmentNotificationV2View>>;
}
