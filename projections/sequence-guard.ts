/**
 * Sequences rise strictly per sales order, so an event at or below the last one applied is a
 * duplicate or a replay (redelivery, rebuild over a partly written read model) and changes nothing.
 */
export function alreadyApplied(state: { sequence: number } | undefined, event: { sequence: number }): boolean {
  return state !== undefined && event.sequence <= state.sequence;
}

/**
 * The one guard of a SalesOrderStatusChanged, which both read models take: it applies to both or
 * to neither, only above both read models' sequences. The two advance on different event types,
 * so a status arriving late (below either) is skipped by both, never by one alone. A write that
 * reached one read model and not the other is finished by the retry as the first attempt decided
 * (resume-marks.ts), so the two never part over a status.
 */
export function statusApplies(orderStatus: { sequence: number } | undefined, shipments: { sequence: number } | undefined, event: { sequence: number }): boolean {
  return event.sequence > Math.max(orderStatus?.sequence ?? 0, shipments?.sequence ?? 0);
}
