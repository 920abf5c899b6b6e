import type { Kafka } from 'kafkajs';
import { totalLag } from '../../services/adapters/kafka/progress.js';

/** totalLag, on a connection of its own. */
export async function groupLag(kafka: Kafka, groupId: string, topic: string): Promise<bigint> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await totalLag(admin, groupId, topic);
  } finally {
    await admin.disconnect();
  }
}

export interface ConsumedMessage {
  key: string | undefined;
  value: string;
  headers: Record<string, string | undefined>;
}

/** Reads `count` messages of a topic from its beginning with a throwaway consumer group. */
export async function consumeAll(kafka: Kafka, topic: string, count: number, timeoutMs = 60_000): Promise<ConsumedMessage[]> {
  const consumer = kafka.consumer({ groupId: `reader-${topic}-${Date.now()}` });
  const messages: ConsumedMessage[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${messages.length} of ${count} messages on ${topic}`)), timeoutMs);
      void consumer.run({
        eachMessage: async ({ message }) => {
          messages.push({
            key: message.key?.toString(),
            value: message.value?.toString() ?? '',
            headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, v?.toString()])),
          });
          if (messages.length >= count) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return messages;
}
