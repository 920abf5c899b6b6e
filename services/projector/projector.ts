import { parseErpEvent, type ErpEvent } from '../../contracts/erp-events.js';
import type { BatchHandler } from '../kafka/consumer.js';
import type { SourceMessage } from '../kafka/messages.js';
import type { MessageSink } from '../kafka/producer.js';
import type { Logger } from '../logging/logger.js';
import { documentId, type ReadModelCollections } from '../read-model-store/documents.js';
import { loadStates, writeEffects } from '../read-model-store/writes.js';
import { deadLetter } from './dead-letters.js';
import { projectBatch } from './project-batch.js';
import { retryUntilDone } from './retry.js';

export interface ProjectorDependencies {
  collections: ReadModelCollections;
  /** The live version while this projector rebuilds a new one: change times already shown are kept. */
  previousCollections?: ReadModelCollections;
  sink: MessageSink;
  deadLetterTopic: string;
  logger: Logger;
}

/**
 * One batch: validate every message, fold the valid events onto the stored states, write the
 * changed documents in bulk, send the bad events to the dead-letter topic. Each step is retried
 * until it succeeds, so a batch's offsets are committed only after all of it took effect.
 */
export function createBatchProjector(deps: ProjectorDependencies): BatchHandler {
  return async (messages, context) => {
    const valid: { event: ErpEvent; source: SourceMessage }[] = [];
    const bad: { source: SourceMessage; reason: string }[] = [];
    for (const message of messages) {
      const parsed = parseErpEvent(message.value ?? Buffer.alloc(0));
      if (parsed.ok) valid.push({ event: parsed.event, source: message });
      else bad.push({ source: message, reason: parsed.errors.join('; ') });
    }

    const keys = [...new Set(valid.map(({ event }) => documentId(event.clientId, event.salesOrderNumber)))];
    const rejected = await retryUntilDone(
      async () => {
        const projected = projectBatch(await loadStates(deps.collections, keys), valid);
        await writeEffects(deps.collections, projected.effects, deps.previousCollections);
        return projected.rejected;
      },
      { context, logger: deps.logger, what: 'writing read models' },
    );

    const deadLetters = [...bad, ...rejected];
    if (deadLetters.length === 0) return;
    const failedAt = new Date();
    for (const { source, reason } of deadLetters) {
      deps.logger.warn({ topic: source.topic, partition: source.partition, offset: source.offset, reason }, 'event sent to the dead-letter topic');
    }
    await retryUntilDone(
      () => deps.sink.send(deps.deadLetterTopic, deadLetters.map(({ source, reason }) => deadLetter(source, reason, failedAt))),
      { context, logger: deps.logger, what: 'sending dead letters' },
    );
  };
}
