import type { ErpEvent } from '../../contracts/erp-events.js';
import { foldEvents } from '../../projections/fold.js';
import { foldResuming, noMarks, type BatchPositions, type ResumeMark, type ResumeMarks } from '../../projections/resume-marks.js';
import type { BatchEffects, LoadedStates, StateChange } from '../adapters/mongodb/writes.js';

export interface ProjectedBatch<T> {
  effects: BatchEffects;
  /** Every sales order's states after the batch: the loaded ones with the effects applied. */
  states: LoadedStates;
  rejected: { source: T; reason: string }[];
}

function changesOf<S>(before: Map<string, S>, after: Map<string, S>, marks?: Map<string, ResumeMark>): StateChange<S>[] {
  const changes: StateChange<S>[] = [];
  for (const [key, state] of after) {
    const previous = before.get(key);
    if (state !== previous) changes.push({ before: previous, after: state, mark: marks?.get(key) });
  }
  return changes;
}

const overlaid = <V>(base: Map<string, V>, over: Map<string, V>) => new Map([...base, ...over]);

/**
 * Folds a batch of events onto the states loaded for it (pure). Only states that changed become
 * effects (the projections return the same object for duplicates and replays); rejected events
 * keep their source, so they can be dead-lettered. With the batch's `positions` (the projector's
 * batches of one partition), it folds as a retry must (resume-marks.ts) and each effect carries
 * its document's new mark.
 */
export function projectBatch<T>(loaded: LoadedStates, items: { event: ErpEvent; source: T }[], positions?: BatchPositions<T>): ProjectedBatch<T> {
  const sources = new Map(items.map(({ event, source }) => [event, source]));
  const marks: ResumeMarks = loaded.marks ?? noMarks();
  const folded = positions
    ? foldResuming(items, loaded, marks, positions)
    : { ...foldEvents(items.map(({ event }) => event), loaded), marks: noMarks() };
  return {
    effects: {
      orderStatus: changesOf(loaded.orderStatus, folded.orderStatus, folded.marks.orderStatus),
      shipments: changesOf(loaded.shipments, folded.shipments, folded.marks.shipments),
    },
    states: {
      orderStatus: folded.orderStatus,
      shipments: folded.shipments,
      marks: { orderStatus: overlaid(marks.orderStatus, folded.marks.orderStatus), shipments: overlaid(marks.shipments, folded.marks.shipments) },
    },
    rejected: folded.rejected.map(({ event, reason }) => ({ source: sources.get(event) as T, reason })),
  };
}
