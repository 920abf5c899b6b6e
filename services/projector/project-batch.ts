import type { ErpEvent } from '../../contracts/erp-events.js';
import { foldEvents } from '../../projections/fold.js';
import type { BatchEffects, LoadedStates, StateChange } from '../adapters/mongodb/writes.js';

export interface ProjectedBatch<T> {
  effects: BatchEffects;
  /** Every sales order's states after the batch: the loaded ones with the effects applied. */
  states: LoadedStates;
  rejected: { source: T; reason: string }[];
}

function changesOf<S>(before: Map<string, S>, after: Map<string, S>): StateChange<S>[] {
  const changes: StateChange<S>[] = [];
  for (const [key, state] of after) {
    const previous = before.get(key);
    if (state !== previous) changes.push({ before: previous, after: state });
  }
  return changes;
}

/**
 * Folds a batch of events onto the states loaded for it (pure). Only states that changed become
 * effects (the projections return the same object for duplicates and replays); rejected events
 * keep their source, so they can be dead-lettered.
 */
export function projectBatch<T>(loaded: LoadedStates, items: { event: ErpEvent; source: T }[]): ProjectedBatch<T> {
  const sources = new Map(items.map(({ event, source }) => [event, source]));
  const folded = foldEvents(
    items.map(({ event }) => event),
    loaded,
  );
  return {
    effects: { orderStatus: changesOf(loaded.orderStatus, folded.orderStatus), shipments: changesOf(loaded.shipments, folded.shipments) },
    states: { orderStatus: folded.orderStatus, shipments: folded.shipments },
    rejected: folded.rejected.map(({ event, reason }) => ({ source: sources.get(event) as T, reason })),
  };
}
