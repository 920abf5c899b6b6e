import type { Kafka } from 'kafkajs';
import { deadLetterTopic } from '../../../contracts/transport.js';

/**
 * Creates the event topic and its dead-letter topic when missing. Retention is unlimited:
 * the topic is the system of record that projections are rebuilt from.
 */
export async function ensureTopics(kafka: Kafka, topic: string, partitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = [topic, deadLetterTopic(topic)].filter((t) => !existing.has(t));
    if (missing.length === 0) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((t) => ({
        topic: t,
        numPartitions: partitions,
        configEntries: [{ name: 'retention.ms', value: '-1' }],
      })),
    });
  } finally {
    await admin.disconnect();
  }
}

/** Which of the event topic and its dead-letter topic do not exist. */
export async function missingTopics(kafka: Kafka, topic: string): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    return [topic, deadLetterTopic(topic)].filter((t) => !existing.has(t));
  } finally {
    await admin.disconnect();
  }
}
