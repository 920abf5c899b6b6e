import { parseErpEvent } from '../../contracts/erp-events.js';
import { keyProblem } from '../../contracts/transport.js';
import type { DeadLetteredCheck } from '../domain/dead-letters/dead-lettered-sources.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { BatchAbandoned, type BatchContext, type BatchHandler } from '../adapters/kafka/consumer.js';
import type { SourceMessage } from '../adapters/kafka/messages.js';
import type { MessageProducer } from '../adapters/kafka/producer.js';
import type { Logger } from '../plumbing/logging/logger.js';
import { documentId, type ReadModelCollections } from '../adapters/mongodb/documents.js';
import { isRefusedDocument } from '../adapters/mongodb/store-refusals.js';
import { loadStates, writeEffects } from '../adapters/mongodb/writes.js';
import { requireAdvancing, type LoadedStates } from '../../projections/batch.js';
import { foldSettingAsideFailures, type BatchItem } from './fold-step.js';
import { batchOutcome, type BatchOutcome } from './batch-outcome.js';
import { projectBatch } from './project-batch.js';
import type { BatchPositions, TopicPosition } from '../../projections/resume-marks.js';
import { retryUntilDone } from './retry.js';
import { sendDeadLetters, type DeadLetter } from './send-dead-letters.js';
import { StateCache } from './state-cache.js';
import { writeSettingAsideRefusals } from './write-step.js';

export interface ProjectorDependencies {
  collections: ReadModelCollections;
  /** The live version while this projector rebuilds a new one: change times already shown are kept. */
  previousCollections?: ReadModelCollections;
  producer: MessageProducer;
  deadLetterTopic: string;
  logger: Logger;
  /** Sales orders whose states are kept between batches (see StateCache); 0 reads every batch's from the store. */
  stateCacheSize: number;
  /**
   * Asked before each batch: false while the version may not be written (a replay holds it, or
   * it is no longer the active one). The batch then waits, uncommitted, until it may or the
   * consumer stops; the follower stops it (see follow-active-version.ts).
   */
  writeFence?: () => Promise<boolean>;
  /** Events whose dead letter was sent before (a rebuild folds them again): not sent again. */
  alreadyDeadLettered?: DeadLetteredCheck;
  /** Told what each batch did once it took effect (metrics). */
  observer?: (outcome: BatchOutcome<SourceMessage>) => void;
  /** The projection of a batch: projectBatch unless a test stands in a defective one. */
  projectBatch?: typeof projectBatch<SourceMessage>;
}

/** Writes of a batch the store refuses (isRefusedDocument) before its sales orders are written one by one. */
const writeRefusalsBeforeIsolating = 3;

/**
 * One batch: validate every message, fold the valid events onto the stored states, send the bad
 * events to the dead-letter topic, then write the changed documents in bulk. A failure of a server
 * (MongoDB, Kafka) is retried until it succeeds, so a batch's offsets are committed only after all
 * of it took effect. A failure that belongs to an event cannot hold the partition: the fold's
 * (fold-step.ts) and the broker's refusal of a dead letter (send-dead-letters.ts) are dealt with at
 * once, and after the store has refused the batch's write a few times its sales orders are written
 * one by one (write-step.ts); the events to blame go to the dead-letter topic.
 *
 * Dead letters go first: once the read models hold a later event of the same sales order, a
 * redelivered batch would no longer reject the bad one (the sequence guard skips it), so sending
 * them afterwards could lose them. A retry may send one twice, never zero times.
 */
export function createBatchProjector(deps: ProjectorDependencies): BatchHandler {
  const cache = new StateCache(deps.stateCacheSize);
  const project = deps.projectBatch ?? projectBatch;
  return async (messages, context) => {
    const { valid, bad } = parseMessages(messages);
    const positions = positionsOf(messages);
    if (positions) cache.startBatch(positions.start);
    // A change that does not advance its sequence fails the fold, so its event is found and
    // dead-lettered (fold-step.ts) instead of its write being retried for ever.
    const fold = (loaded: LoadedStates, items: BatchItem[]) => {
      const projected = project(loaded, items, positions);
      requireAdvancing(projected.effects);
      return projected;
    };
    const keys = [...new Set(valid.map(({ event }) => documentId(event.clientId, event.salesOrderNumber)))];
    const sent = new Set<string>();
    const sendNew = async (letters: DeadLetter[]) => {
      const fresh = letters.filter(({ source }) => !sent.has(source.offset) && !deps.alreadyDeadLettered?.(source));
      await sendDeadLetters(deps.producer, deps.deadLetterTopic, fresh, deps.logger);
      for (const { source } of fresh) sent.add(source.offset);
    };
    if (deps.writeFence) await untilWritable(deps.writeFence, context, deps.logger);
    let attempts = 0;
    let writeRefusals = 0;
    await retryUntilDone(
      async () => {
        /** Folds the batch onto the states of its sales orders, kept ones only when `useKept`. */
        const foldBatch = async (useKept: boolean) => {
          if (!useKept) cache.forget(keys);
          const { states, keptStates } = await loadThroughCache(deps.collections, cache, keys);
          return { states, projected: foldSettingAsideFailures(fold, states, valid), keptStates };
        };
        // A failed attempt may be a stale kept state's doing (a guard that no longer held).
        const folded = await foldBatch(attempts++ === 0);
        // A rejection is believed only from states read from the store: a kept state may be stale
        // (another consumer moved the sales order on), and a valid event not fit it. No write
        // would then fail its guard to tell, so the batch is folded again from the store.
        const doubted = folded.projected.rejected.length > 0 && folded.keptStates > 0;
        const { states, projected } = doubted ? await foldBatch(false) : folded;
        await sendNew([...bad, ...projected.rejected]);
        if (writeRefusals >= writeRefusalsBeforeIsolating) {
          cache.forget(keys);
          await writeSettingAsideRefusals({ ...deps, sendDeadLetters: sendNew, fold }, states, valid, projected);
          return;
        }
        try {
          await writeEffects(deps.collections, projected.effects, deps.previousCollections);
        } catch (error) {
          if (isRefusedDocument(error)) writeRefusals++;
          throw error;
        }
        cache.remember(keys, projected.states, nextPosition(messages));
        // Each batch as written: bench/projector.ts writes the very same batches raw.
        deps.logger.debug(
          { partition: messages[0]?.partition, firstOffset: messages[0]?.offset, lastOffset: messages.at(-1)?.offset, events: messages.length, documents: projected.effects.orderStatus.length + projected.effects.shipments.length },
          'batch written',
        );
        deps.observer?.(batchOutcome(states, valid, new Set(projected.rejected.map(({ source }) => source))));
      },
      { context, logger: deps.logger, what: 'projecting the batch' },
    );
  };
}

/**
 * Waits while the version may not be written; a consumer stopping meanwhile leaves the batch
 * uncommitted. The check reads the store: a failure of it is retried as the batch's own are.
 */
async function untilWritable(writable: () => Promise<boolean>, context: BatchContext, logger: Logger): Promise<void> {
  const check = () => retryUntilDone(writable, { context, logger, what: 'checking that the read-model version may be written' });
  while (!(await check())) {
    if (context.isStopping()) throw new BatchAbandoned();
    await sleep(250, undefined, { signal: context.signal }).catch(() => undefined);
  }
}

/** Where the batch (of one partition) starts, and each message's place: for a retry's fold (resume-marks.ts). */
function positionsOf(messages: SourceMessage[]): BatchPositions<SourceMessage> | undefined {
  const of = (message: SourceMessage) => ({ partition: message.partition, offset: Number(message.offset) });
  // A batch's messages come in offset order: the first is where it starts.
  const first = messages[0];
  return first && { start: of(first), of };
}

/** Where the partition's next batch starts: right after this one. */
function nextPosition(messages: SourceMessage[]): TopicPosition | undefined {
  const [first] = messages;
  return first && { partition: first.partition, offset: messages.reduce((last, message) => Math.max(last, Number(message.offset)), 0) + 1 };
}

/** Parse step: the valid events, and the messages that are not one (or under the wrong key) with the reason. */
function parseMessages(messages: SourceMessage[]): { valid: BatchItem[]; bad: DeadLetter[] } {
  const valid: BatchItem[] = [];
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
  return { valid, bad };
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
    marks: {
      orderStatus: new Map([...(known.marks?.orderStatus ?? []), ...(stored.marks?.orderStatus ?? [])]),
      shipments: new Map([...(known.marks?.shipments ?? []), ...(stored.marks?.shipments ?? [])]),
    },
  };
  return { states, keptStates };
}
