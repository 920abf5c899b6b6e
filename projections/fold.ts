import { eventKey, type ErpEvent } from '../contracts/erp-events.js';
import { EventRejectedError } from './event-rejected.js';
import { evolveOrderStatus } from './order-status.js';
import { evolveShipments } from './shipments.js';
import type { OrderStatusState, ShipmentsState } from './state.js';

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
 * Whether an event both read models take (SalesOrderStatusChanged) would change only one of them:
 * each guards on its own sequence, and the two advance on different event types, so a status
 * arriving late (below one's sequence, above the other's) applies to one and not the other. The
 * fold keeps the two guards apart, for a batch written to one collection and not the other (a
 * store failure between the two writes) is completed by the retry only so; `ossn dlq redrive`
 * refuses such a letter.
 */
export function appliesToPartOnly(status: { sequence: number } | undefined, shipments: { sequence: number } | undefined, event: ErpEvent): boolean {
  if (event.type !== 'SalesOrderStatusChanged') return false;
  const sequences = [status?.sequence ?? 0, shipments?.sequence ?? 0];
  return event.sequence <= Math.max(...sequences) && event.sequence > Math.min(...sequences);
}

/** Folds one more event into `result` (its maps and rejections grow in place): for streams too long to hold. */
export function foldEventInto(result: FoldResult, event: ErpEvent): void {
  const key = eventKey(event.clientId, event.salesOrderNumber);
  try {
    const status = evolveOrderStatus(result.orderStatus.get(key), event);
    const shipments = evolveShipments(result.shipments.get(key), event);
    if (status) result.orderStatus.set(key, status);
    if (shipments) result.shipments.set(key, shipments);
  } catch (error) {
    if (!(error instanceof EventRejectedError)) throw error;
    result.rejected.push({ event, reason: error.reason });
  }
}
