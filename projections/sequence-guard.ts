import { statusSequenceOf, type OrderStatusState } from './state.js';

/**
 * Sequences rise strictly per sales order, so an event at or below the last one applied is a
 * duplicate or a replay (redelivery, rebuild over a partly written read model) and changes nothing.
 */
export function alreadyApplied(state: { sequence: number } | undefined, event: { sequence: number }): boolean {
  return state !== undefined && event.sequence <= state.sequence;
}

type StatusGuardState = Pick<OrderStatusState, 'sequence' | 'statusSequence' | 'statusId'>;

/**
 * The one guard of a SalesOrderStatusChanged, which both read models take: whether it applies to
 * each. It applies to both or to neither: only above both read models' sequences (the two advance
 * on different event types, so a status arriving late is skipped by both, never by one alone).
 *
 * The single exception completes a half-written batch: the order status is written before the
 * shipments (writes.ts), so a store failure between the two leaves the order status ahead, possibly
 * past this status by later events of the same batch. Its `statusSequence` then names this very
 * status (sequences are unique per sales order), and the retry gives it to the shipments too.
 */
export function statusGuard(
  orderStatus: StatusGuardState | undefined,
  shipments: { sequence: number } | undefined,
  event: { sequence: number },
): { orderStatus: boolean; shipments: boolean } {
  const status = orderStatus?.sequence ?? 0;
  const shipped = shipments?.sequence ?? 0;
  const s = event.sequence;
  const tookThisStatus = orderStatus !== undefined && statusSequenceOf(orderStatus) === s;
  return { orderStatus: s > status && s > shipped, shipments: s > shipped && (s > status || tookThisStatus) };
}
