/**
 * Sequences rise strictly per sales order, so an event at or below the last one applied is a
 * duplicate or a replay (redelivery, rebuild over a partly written read model) and changes nothing.
 */
export function alreadyApplied(state: { sequence: number } | undefined, event: { sequence: number }): boolean {
  return state !== undefined && event.sequence <= state.sequence;
}
