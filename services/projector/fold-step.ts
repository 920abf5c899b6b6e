import type { ErpEvent } from '../../contracts/erp-events.js';
import type { SourceMessage } from '../adapters/kafka/messages.js';
import type { LoadedStates } from '../../projections/batch.js';
import type { ProjectedBatch } from './project-batch.js';
import { bySalesOrder, statesOf } from './sales-order-slices.js';

export interface BatchItem {
  event: ErpEvent;
  source: SourceMessage;
}

/** A batch's fold onto its states: projectBatch with the batch's positions bound (projector.ts). */
export type Fold = (loaded: LoadedStates, items: BatchItem[]) => ProjectedBatch<SourceMessage>;

export const messageOf = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

/**
 * Folds the batch. When the projection throws (a defect: it rejects bad events with a reason, it
 * does not throw), the fold is pure, so trying again cannot help: the events are folded one at a
 * time, each sales order on its own states, to find those it throws on. They are rejected with
 * the error as their reason, and the batch is folded without them.
 */
export function foldSettingAsideFailures(fold: Fold, loaded: LoadedStates, items: BatchItem[]): ProjectedBatch<SourceMessage> {
  try {
    return fold(loaded, items);
  } catch {
    // found below, event by event
  }
  const failed = new Map<BatchItem, string>();
  for (const [key, group] of bySalesOrder(items)) {
    let states = statesOf(loaded, key);
    for (const item of group) {
      try {
        states = fold(states, [item]).states;
      } catch (error) {
        failed.set(item, `the projection failed on this event: ${messageOf(error)}`);
      }
    }
  }
  const rest = items.filter((item) => !failed.has(item));
  let projected: ProjectedBatch<SourceMessage>;
  try {
    projected = fold(loaded, rest);
  } catch (error) {
    // No single event fails, yet the batch does (a projection that depends on more than one sales
    // order): retrying could never succeed, so the rest is set aside too rather than hold the partition.
    for (const item of rest) failed.set(item, `the projection failed on this event's batch: ${messageOf(error)}`);
    projected = fold(loaded, []);
  }
  const setAside = [...failed].map(([item, reason]) => ({ source: item.source, reason }));
  return { ...projected, rejected: [...setAside, ...projected.rejected] };
}
