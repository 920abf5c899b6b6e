import { eventKey, type ErpEvent } from '../contracts/erp-events.js';
import { EventRejectedError } from './event-rejected.js';
import { evolveOrderStatus } from './order-status.js';
import { evolveShipments } from './shipments.js';
import { statusSequenceOf, type OrderStatusState, type ShipmentsState } from './state.js';

export interface FoldResult {
  /** Keyed by `<clientId>:<salesOrderNumber>`. */
  orderStatus: Map<string, OrderStatusState>;
  shipments: Map<string, ShipmentsState>;
  rejected: { event: ErpEvent; reason: string }[];
}

/**
 * The read models that a stream of events should produce, computed in memory: the reference the
 * integration tests compare the MongoDB read models against. As in the projector, an event that
 * one read model rejects applies to neither. The projector folds each batch with it, starting from
 * the states stored for the batch's sales orders (`initial`, left unchanged).
 */
export function foldEvents(
  events: Iterable<ErpEvent>,
  initial: Pick<FoldResult, 'orderStatus' | 'shipments'> = { orderStatus: new Map(), shipments: new Map() },
): FoldResult {
  const result: FoldResult = { orderStatus: new Map(initial.orderStatus), shipments: new Map(initial.shipments), rejected: [] };
  for (const event of events) foldEventInto(result, event);
  return result;
}

/**
 * Whether an event both read models take (SalesOrderStatusChanged) would change only one of them
 * were each guarded on its own sequence alone (the two advance on different event types): a status
 * arriving late, below one's sequence and above the other's. `ossn dlq redrive` refuses such a letter.
 */
export function appliesToPartOnly(status: { sequence: number } | undefined, shipments: { sequence: number } | undefined, event: ErpEvent): boolean {
  if (event.type !== 'SalesOrderStatusChanged') return false;
  const sequences = [status?.sequence ?? 0, shipments?.sequence ?? 0];
  return event.sequence <= Math.max(...sequences) && event.sequence > Math.min(...sequences);
}

/**
 * Which read models take a SalesOrderStatusChanged: both or neither, guarded on the higher of the
 * two sequences, so that the two lookups never disagree about the purchase order. One that shows
 * the status already while the other does not (a batch whose write reached one collection and not
 * the other, the store failing between them) gets the other completed by the retry.
 */
export function statusTakers(status: OrderStatusState | undefined, shipments: ShipmentsState | undefined, event: ErpEvent): { status: boolean; shipments: boolean } {
  if (event.type !== 'SalesOrderStatusChanged') return { status: true, shipments: true };
  const [lastStatus, lastShipments] = [(status && statusSequenceOf(status)) ?? 0, shipments?.statusSequence ?? 0];
  if (lastStatus === event.sequence && lastShipments < event.sequence) return { status: false, shipments: true };
  if (lastShipments === event.sequence && lastStatus < event.sequence) return { status: true, shipments: false };
  const newer = event.sequence > Math.max(status?.sequence ?? 0, shipments?.sequence ?? 0);
  return { status: newer, shipments: newer };
}

/** Folds one more event into `result` (its maps and rejections grow in place): for streams too long to hold. */
export function foldEventInto(result: FoldResult, event: ErpEvent): void {
  const key = eventKey(event.clientId, event.salesOrderNumber);
  const [before, beforeShipments] = [result.orderStatus.get(key), result.shipments.get(key)];
  const takers = statusTakers(before, beforeShipments, event);
  try {
    const status = takers.status ? evolveOrderStatus(before, event) : before;
    const shipments = takers.shipments ? evolveShipments(beforeShipments, event) : beforeShipments;
    if (status) result.orderStatus.set(key, status);
    if (shipments) result.shipments.set(key, shipments);
  } catch (error) {
    if (!(error instanceof EventRejectedError)) throw error;
    result.rejected.push({ event, reason: error.reason });
  }
}
