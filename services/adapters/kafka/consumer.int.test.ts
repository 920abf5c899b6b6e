// The batch consumer against the real broker: a batch that takes longer than the session timeout
// keeps its membership, so its offsets are committed once and it is not delivered again.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { createKafka } from './client.js';
import { consumeBatches } from './consumer.js';
import { groupLag } from '../../../test/support/kafka-progress.js';
import { connectProducer, type MessageProducer } from './producer.js';
import { ensureTopics } from './topics.js';

const logger = createLogger('consumer-test', 'silent');
const kafka = createKafka(testEnvironment().kafkaBrokers, 'consumer-test', logger);
let producer: MessageProducer;

beforeAll(async () => {
  producer = await connectProducer(kafka);
});
afterAll(async () => {
  await producer?.close();
});

it('keeps a batch slower than the session timeout in the group: committed once, never delivered again', { timeout: 150_000 }, async () => {
  const { topic, group } = uniqueNames('slow-batch');
  await ensureTopics(kafka, topic, 1);
  await producer.send(topic, ['a', 'b', 'c'].map((value) => ({ key: 'k', value })));

  const sessionTimeoutMs = 6_000; // the broker's smallest allowed session
  const delivered: string[] = [];
  const consumer = await consumeBatches(kafka, { groupId: group, topic, logger, sessionTimeoutMs }, async (messages) => {
    delivered.push(...messages.map((m) => String(m.value)));
    if (delivered.length <= 3) await new Promise((resolve) => setTimeout(resolve, 2 * sessionTimeoutMs));
  });
  try {
    await expect.poll(() => groupLag(kafka, group, topic), { timeout: 120_000, interval: 200 }).toBe(0n); // a busy CI machine joins groups slowly
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // room for a redelivery, were there one
  } finally {
    await consumer.stop();
  }
  expect(delivered).toEqual(['a', 'b', 'c']);
});
