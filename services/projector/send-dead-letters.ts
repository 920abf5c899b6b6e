import type { SourceMessage } from '../adapters/kafka/messages.js';
import type { MessageProducer } from '../adapters/kafka/producer.js';
import { isRefusedMessage } from '../adapters/kafka/broker-refusals.js';
import type { Logger } from '../plumbing/logging/logger.js';
import { deadLetter, summaryDeadLetter } from './dead-letter-messages.js';

export interface DeadLetter {
  source: SourceMessage;
  reason: string;
}

/**
 * Sends the dead letters, all in one request when the broker takes them. When it refuses them as
 * too large (they may be, together or one alone), they go one by one, and one it refuses alone
 * goes as a summary (see summaryDeadLetter): a dead letter never holds its partition. Any other
 * failure (the broker away) is thrown, for the batch to be retried.
 */
export async function sendDeadLetters(producer: MessageProducer, topic: string, letters: DeadLetter[], logger: Logger): Promise<void> {
  if (letters.length === 0) return;
  const failedAt = new Date();
  for (const { source, reason } of letters) {
    logger.warn({ topic: source.topic, partition: source.partition, offset: source.offset, reason }, 'event sent to the dead-letter topic');
  }
  try {
    await producer.send(topic, letters.map(({ source, reason }) => deadLetter(source, reason, failedAt)));
    return;
  } catch (error) {
    if (!isRefusedMessage(error)) throw error;
  }
  for (const letter of letters) await sendOne(producer, topic, letter, failedAt, logger);
}

async function sendOne(producer: MessageProducer, topic: string, letter: DeadLetter, failedAt: Date, logger: Logger): Promise<void> {
  try {
    await producer.send(topic, [deadLetter(letter.source, letter.reason, failedAt)]);
    return;
  } catch (error) {
    if (!isRefusedMessage(error)) throw error;
    const refusal = error instanceof Error ? error.message : String(error);
    const { source } = letter;
    logger.warn({ topic: source.topic, partition: source.partition, offset: source.offset, refusal }, 'dead letter refused by the broker; sending a summary of it');
    await producer.send(topic, [summaryDeadLetter(source, letter.reason, failedAt, refusal)]);
  }
}
