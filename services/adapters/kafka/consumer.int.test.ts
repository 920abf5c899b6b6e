// The batch consumer against the real broker: a batch that takes longer than the session timeout
// keeps its membership, so its offsets are committed once and it is not delivered again; a member
// the group expelled all the same (the process frozen longer than the session) comes back, asked
// again before it joins, and backs off while it is refused; a stop that comes while a replacement
// is checked or connects is not joined after.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { withKafkaAdmin } from './admin.js';
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

it('lets the batch a stop came during end and commits it: all it handled is committed, and nothing after it starts', { timeout: 150_000 }, async () => {
  const { topic, group } = uniqueNames('stop-mid-batch');
  await ensureTopics(kafka, topic, 1);
  await producer.send(topic, ['a', 'b'].map((value) => ({ key: 'k', value })));
  let entered!: () => void;
  const inBatch = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const handled: string[] = [];
  const consumer = await consumeBatches(kafka, { groupId: group, topic, logger }, async (messages) => {
    entered();
    await released;
    handled.push(...messages.map((m) => String(m.value)));
  });
  await inBatch;
  const stopped = consumer.stop();
  await producer.send(topic, [{ key: 'k', value: 'c' }]); // after the stop began: left for the next member
  release();
  await stopped;
  expect(handled).toEqual(['a', 'b']);
  expect(await groupLag(kafka, group, topic), 'what the group has committed is what was handled').toBe(1n);
});

it('comes back after the group expelled it while a batch froze the process: the batch comes again and later messages are consumed', { timeout: 150_000 }, async () => {
  const { topic, group } = uniqueNames('expelled');
  await ensureTopics(kafka, topic, 1);
  await producer.send(topic, [{ key: 'k', value: 'a' }]);

  const sessionTimeoutMs = 6_000;
  const delivered: string[] = [];
  const errors: string[] = [];
  const errorLog = createLogger('consumer-test', 'error', { write: (line: string) => void errors.push(line) });
  const consumer = await consumeBatches(kafka, { groupId: group, topic, logger: errorLog, sessionTimeoutMs }, async (messages) => {
    delivered.push(...messages.map((m) => String(m.value)));
    // The first batch blocks the event loop (a long GC pause, a stalled VM): no heartbeat leaves
    // until the group has expelled the member, whose commit kafkajs then counts a failure for good.
    if (delivered.length === 1) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3 * sessionTimeoutMs);
  });
  try {
    await expect.poll(() => delivered.length, { timeout: 60_000, interval: 200 }).toBeGreaterThanOrEqual(2);
    await producer.send(topic, [{ key: 'k', value: 'b' }]);
    await expect.poll(() => groupLag(kafka, group, topic), { timeout: 60_000, interval: 200 }).toBe(0n);
  } finally {
    await consumer.stop();
  }
  expect(delivered).toEqual(['a', 'a', 'b']);
  // kafkajs gave that consumer up (it does not rejoin after this error), and a new one took its place.
  expect(errors.map((line) => (JSON.parse(line) as { msg: string }).msg)).toContain('the Kafka consumer stopped for good; a new one joins the group');
});

it('asks before every join, a replacement\'s too: a refused replacement is tried again after longer and longer pauses, and a stop in a pause ends it', { timeout: 150_000 }, async () => {
  const { topic, group } = uniqueNames('refused-rejoin');
  await ensureTopics(kafka, topic, 1);
  await producer.send(topic, [{ key: 'k', value: 'a' }]);

  const sessionTimeoutMs = 6_000;
  let joinsAsked = 0;
  const lines: { msg: string; retryInMs?: number; err?: { message: string } }[] = [];
  const errorLog = createLogger('consumer-test', 'error', { write: (line: string) => void lines.push(JSON.parse(line)) });
  const beforeJoin = async () => {
    if (++joinsAsked > 1) throw new Error('this group is not ours now');
  };
  let frozen = false;
  const consumer = await consumeBatches(kafka, { groupId: group, topic, logger: errorLog, sessionTimeoutMs, beforeJoin }, async () => {
    // Frozen past the session once, as in the test above: kafkajs gives this consumer up.
    if (!frozen) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3 * sessionTimeoutMs);
    frozen = true;
  });
  const replaced = () => lines.filter((line) => line.msg === 'the Kafka consumer stopped for good; a new one joins the group');
  let stopMs: number;
  try {
    await expect.poll(() => replaced().length, { timeout: 90_000, interval: 100 }).toBe(3);
  } finally {
    const stopping = Date.now();
    await consumer.stop();
    stopMs = Date.now() - stopping;
  }
  expect(stopMs, 'a stop in the pause waits for no join').toBeLessThan(2_000);
  // Given up once, then each replacement refused by the check, the pause doubling after each.
  expect(replaced().map((line) => line.retryInMs)).toEqual([1_000, 2_000, 4_000]);
  expect(replaced().slice(1).map((line) => line.err?.message)).toEqual(['this group is not ours now', 'this group is not ours now']);
  expect(joinsAsked).toBe(3);
  await new Promise((resolve) => setTimeout(resolve, 5_000)); // past the 4 s pause the stop came in
  expect(joinsAsked, 'no join after the stop').toBe(3);
});

it('joins no replacement after a stop that came while the replacement was being checked: the stop waits for the check, then nothing joins', { timeout: 150_000 }, async () => {
  const { topic, group } = uniqueNames('stop-in-check');
  await ensureTopics(kafka, topic, 1);
  await producer.send(topic, [{ key: 'k', value: 'a' }]);

  const sessionTimeoutMs = 6_000;
  let joined = 0;
  let asked = 0;
  let releaseCheck!: () => void;
  const checkReleased = new Promise<void>((resolve) => (releaseCheck = resolve));
  // The first join is let through; the replacement's check is held until the stop has come.
  const beforeJoin = () => (++asked === 1 ? Promise.resolve() : checkReleased);
  let frozen = false;
  const consumer = await consumeBatches(kafka, { groupId: group, topic, logger, sessionTimeoutMs, beforeJoin, onJoin: () => void joined++ }, async () => {
    // Frozen past the session once: kafkajs gives this consumer up, and a replacement is checked.
    if (!frozen) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3 * sessionTimeoutMs);
    frozen = true;
  });
  let stopped: Promise<void> | undefined;
  try {
    await expect.poll(() => asked, { timeout: 90_000, interval: 100 }).toBe(2);
    expect(joined).toBe(1);
    stopped = consumer.stop();
    let stopEnded = false;
    void stopped.then(() => (stopEnded = true), () => (stopEnded = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stopEnded, 'the stop waits for the check under way').toBe(false);
  } finally {
    releaseCheck();
    await (stopped ?? consumer.stop());
  }
  await new Promise((resolve) => setTimeout(resolve, 3_000)); // a replacement that went on would have joined by now
  expect(joined, 'no join after the stop').toBe(1);
  expect(asked).toBe(2);
  expect(await withKafkaAdmin(kafka, (admin) => admin.memberCount(group)), 'nobody left in the group').toBe(0);
});

it('hands a partition over in batches as large as its fetch size per partition allows', { timeout: 150_000 }, async () => {
  const { topic } = uniqueNames('fetch-size');
  await ensureTopics(kafka, topic, 1);
  // 3 MiB on one partition, all of it there before either consumer starts.
  const value = 'x'.repeat(1_024);
  for (let i = 0; i < 24; i++) await producer.send(topic, Array.from({ length: 128 }, () => ({ key: 'k', value })));

  const largestBatchBytes = async (maxBytesPerPartition: number) => {
    const group = uniqueNames(`fetch-size-${maxBytesPerPartition}`).group;
    const sizes: number[] = [];
    const consumer = await consumeBatches(kafka, { groupId: group, topic, logger, maxBytesPerPartition, maxBytes: 16 * 2 ** 20 }, async (messages) => {
      sizes.push(messages.reduce((sum, m) => sum + (m.value?.length ?? 0), 0));
    });
    try {
      await expect.poll(() => groupLag(kafka, group, topic), { timeout: 120_000, interval: 200 }).toBe(0n);
    } finally {
      await consumer.stop();
    }
    return Math.max(...sizes);
  };
  expect(await largestBatchBytes(2 ** 20)).toBeLessThanOrEqual(2 ** 20);
  expect(await largestBatchBytes(8 * 2 ** 20)).toBe(3 * 2 ** 20);
});
