import { withKafkaAdmin } from '../../adapters/kafka/admin.js';
import type { KafkaClient } from '../../adapters/kafka/client.js';
import { scanTopic } from '../../adapters/kafka/read-topic.js';
import type { SourceMessage } from '../../adapters/kafka/messages.js';
import { DeadLetterHeaders } from './headers.js';

/** Whether an event of the source topic already has a dead letter. */
export type DeadLetteredCheck = (source: Pick<SourceMessage, 'partition' | 'offset'>) => boolean;

/**
 * The events of `sourceTopic` that the dead-letter topic holds already (by their partition and
 * offset, from each letter's headers): a rebuild folds the whole topic again and must not send its
 * old bad events a second time, with new times. Holds two numbers a dead letter, not the letters.
 */
export async function deadLetteredSources(kafka: KafkaClient, deadLetterTopic: string, sourceTopic: string): Promise<DeadLetteredCheck> {
  const sources = new Set<string>();
  const exists = await withKafkaAdmin(kafka, (admin) => admin.topicNames());
  if (exists.includes(deadLetterTopic)) {
    await scanTopic(kafka, deadLetterTopic, ({ headers }) => {
      if (headers[DeadLetterHeaders.sourceTopic] === sourceTopic) sources.add(`${headers[DeadLetterHeaders.sourcePartition]}:${headers[DeadLetterHeaders.sourceOffset]}`);
    });
  }
  return ({ partition, offset }) => sources.has(`${partition}:${offset}`);
}
