import { eventKey, type ErpEvent } from '../contracts/erp-events.js';
import { EventRejectedError } from './event-rejected.js';
import { evolveOrderStatus } from './order-status.js';
import { statusApplies } from './sequence-guard.js';
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

/** Folds one more event into `result` (its maps and rejections grow in place): for streams too long to hold. */
export function foldEventInto(result: FoldResult, event: ErpEvent): void {
  const key = eventKey(event.clientId, event.salesOrderNumber);
  // A status feeds both read models: one guard for the two (statusApplies), not each its own.
  const applies = event.type !== 'SalesOrderStatusChanged' || statusApplies(result.orderStatus.get(key), result.shipments.get(key), event);
  foldEventTo(result, event, { orderStatus: applies, shipments: applies });
}

/**
 * Folds an event into the read models named by `targets` only (the others keep their state):
 * false when either rejects it, which then changes neither.
 */
export function foldEventTo(result: FoldResult, event: ErpEvent, targets: { orderStatus: boolean; shipments: boolean }): boolean {
  const key = eventKey(event.clientId, event.salesOrderNumber);
  const [before, shipped] = [result.orderStatus.get(key), result.shipments.get(key)];
  try {
    const status = targets.orderStatus ? evolveOrderStatus(before, event) : before;
    const shipments = targets.shipments ? evolveShipments(shipped, event) : shipped;
    if (status) result.orderStatus.set(key, status);
    if (shipments) result.shipments.set(key, shipments);
    return true;
  } catch (error) {
    if (!(error instanceof EventRejectedError)) throw error;
    result.rejected.push({ event, reason: error.reason });
    return false;
  }
}
