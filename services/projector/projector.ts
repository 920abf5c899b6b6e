import { parseErpEvent, type ErpEvent } from '../../contracts/erp-events.js';
import { keyProblem } from '../../contracts/transport.js';
import type { BatchHandler } from '../kafka/consumer.js';
import type { SourceMessage } from '../kafka/messages.js';
import type { MessageSink } from '../kafka/producer.js';
import type { Logger } from '../logging/logger.js';
import { documentId, type ReadModelCollections } from '../read-model-store/documents.js';
import { loadStates, writeEffects, type LoadedStates } from '../read-model-store/writes.js';
import { batchOutcome, type BatchOutcome } from './batch-outcome.js';
import { deadLetter } from './dead-letters.js';
import { projectBatch } from './project-batch.js';
import { retryUntilDone } from './retry.js';
import { StateCache } from './state-cache.js';

export interface ProjectorDependencies {
  collections: ReadModelCollections;
  /** The live version while this projector rebuilds a new one: change times already shown are kept. */
  previousCollections?: ReadModelCollections;
  sink: MessageSink;
  deadLetterTopic: string;
  logger: Logger;
  /** Sales orders whose states are kept between batches (see StateCache); 0 reads every batch's from the store. */
  stateCacheSize: number;
  /** Told what each batch did once it took effect (metrics). */
  observer?: (outcome: BatchOutcome<SourceMessage>) => void;
}

/**
 * One batch: validate every message, fold the valid events onto the stored states, send the bad
 * events to the dead-letter topic, then write the changed documents in bulk. Each step is retried
 * until it succeeds, so a batch's offsets are committed only after all of it took effect.
 *
 * Dead letters go first: once the read models hold a later event of the same sales order, a
 * redelivered batch would no longer reject the bad one (the sequence guard skips it), so sending
 * them afterwards could lose them. A retry may send one twice, never zero times.
 */
export function createBatchProjector(deps: ProjectorDependencies): BatchHandler {
  const cache = new StateCache(deps.stateCacheSize);
  return async (messages, context) => {
    const valid: { event: ErpEvent; source: SourceMessage }[] = [];
    const bad: DeadLetter[] = [];
    for (const message of messages) {
      const parsed = parseErpEvent(message.value ?? Buffer.alloc(0));
      if (!parsed.ok) {
        bad.push({ source: message, reason: parsed.errors.join('; ') });
        continue;
      }
      const misKeyed = keyProblem(message.key?.toString(), parsed.event);
      if (misKeyed) bad.push({ source: message, reason: misKeyed });
      else valid.push({ event: parsed.event, source: message });
    }

    const keys = [...new Set(valid.map(({ event }) => documentId(event.clientId, event.salesOrderNumber)))];
    const sent = new Set<string>();
    let attempts = 0;
    await retryUntilDone(
      async () => {
        /** Folds the batch onto the states of its sales orders, kept ones only when `useKept`. */
        const fold = async (useKept: boolean) => {
          if (!useKept) cache.forget(keys);
          const { states, keptStates } = await loadThroughCache(deps.collections, cache, keys);
          return { projected: projectBatch(states, valid), keptStates, states };
        };
        // A failed attempt may be a stale kept state's doing (a guard that no longer held).
        const folded = await fold(attempts++ === 0);
        // A rejection is believed only from states read from the store: a kept state may be stale
        // (another consumer moved the sales order on), and a valid event not fit it. No write
        // would then fail its guard to tell, so the batch is folded again from the store.
        const doubted = folded.projected.rejected.length > 0 && folded.keptStates > 0;
        const { projected, states } = doubted ? await fold(false) : folded;
        const deadLetters = [...bad, ...projected.rejected].filter(({ source }) => !sent.has(source.offset));
        await sendDeadLetters(deps, deadLetters);
        for (const { source } of deadLetters) sent.add(source.offset);
        await writeEffects(deps.collections, projected.effects, deps.previousCollections);
        cache.remember(keys, projected.states);
        deps.observer?.(batchOutcome(states, valid, new Set(projected.rejected.map(({ source }) => source))));
      },
      { context, logger: deps.logger, what: 'projecting the batch' },
    );
  };
}

/** The states of `keys`: those kept from earlier batches, the others read from the store. */
async function loadThroughCache(
  collections: ReadModelCollections,
  cache: StateCache,
  keys: string[],
): Promise<{ states: LoadedStates; keptStates: number }> {
  const { known, missing } = cache.lookup(keys);
  const keptStates = keys.length - missing.length;
  if (missing.length === 0) return { states: known, keptStates };
  const stored = await loadStates(collections, missing);
  const states = {
    orderStatus: new Map([...known.orderStatus, ...stored.orderStatus]),
    shipments: new Map([...known.shipments, ...stored.shipments]),
  };
  return { states, keptStates };
}

interface DeadLetter {
  source: SourceMessage;
  reason: string;
}

async function sendDeadLetters(deps: ProjectorDependencies, deadLetters: DeadLetter[]): Promise<void> {
  if (deadLetters.length === 0) return;
  const failedAt = new Date();
  for (const { source, reason } of deadLetters) {
    deps.logger.warn({ topic: source.topic, partition: source.partition, offset: source.offset, reason }, 'event sent to the dead-letter topic');
  }
  await deps.sink.send(deps.deadLetterTopic, deadLetters.map(({ source, reason }) => deadLetter(source, reason, failedAt)));
}
