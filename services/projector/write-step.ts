import type { ReadModelCollections } from '../adapters/mongodb/documents.js';
import { isRefusedDocument } from '../adapters/mongodb/store-refusals.js';
import { writeEffects, type LoadedStates } from '../adapters/mongodb/writes.js';
import { foldSettingAsideFailures, messageOf, type BatchItem, type Fold } from './fold-step.js';
import type { ProjectedBatch } from './project-batch.js';
import { bySalesOrder, effectsOf, hasEffects, statesOf } from './sales-order-slices.js';
import type { DeadLetter } from './send-dead-letters.js';
import type { SourceMessage } from '../adapters/kafka/messages.js';

export interface IsolatingWriteDependencies {
  collections: ReadModelCollections;
  previousCollections?: ReadModelCollections;
  /** Sends those of the dead letters not sent yet for this batch. */
  sendDeadLetters(letters: DeadLetter[]): Promise<void>;
  /** The batch's fold (the projector's, with the batch's positions). */
  fold: Fold;
}

/**
 * Writes a batch whose write the store has refused for good (see isRefusedDocument) sales order
 * by sales order, so that the others are written. The events of a sales order refused too are
 * folded and written one at a time: an event whose state the store refuses goes to the dead-letter
 * topic (before any later state of its sales order is written) and the later events are folded
 * without it. A failure of the store itself is thrown, for the batch to be retried.
 */
export async function writeSettingAsideRefusals(
  deps: IsolatingWriteDependencies,
  loaded: LoadedStates,
  items: BatchItem[],
  projected: ProjectedBatch<SourceMessage>,
): Promise<void> {
  for (const [key, group] of bySalesOrder(items)) {
    const effects = effectsOf(projected.effects, key);
    if (!hasEffects(effects)) continue;
    try {
      await writeEffects(deps.collections, effects, deps.previousCollections);
      continue;
    } catch (error) {
      if (!isRefusedDocument(error)) throw error;
    }
    await writeEventByEvent(deps, key, statesOf(loaded, key), group);
  }
}

async function writeEventByEvent(deps: IsolatingWriteDependencies, key: string, loaded: LoadedStates, items: BatchItem[]): Promise<void> {
  let states = loaded;
  for (const item of items) {
    const step = foldSettingAsideFailures(deps.fold, states, [item]);
    await deps.sendDeadLetters(step.rejected);
    if (!hasEffects(step.effects)) continue;
    try {
      await writeEffects(deps.collections, step.effects, deps.previousCollections);
      states = step.states;
    } catch (error) {
      if (!isRefusedDocument(error)) throw error;
      const reason = `the store refused the read models of sales order ${key} with this event: ${messageOf(error)}`;
      await deps.sendDeadLetters([{ source: item.source, reason }]);
    }
  }
}
