import type { Consumer, Kafka } from 'kafkajs';
import type { Logger } from '../logging/logger.js';
import type { SourceMessage } from './messages.js';

export interface BatchContext {
  /** Keeps group membership alive while a batch waits on an outage. */
  heartbeat(): Promise<void>;
  /** True once the consumer is stopping or the batch was reassigned; the batch must then be abandoned. */
  isStopping(): boolean;
}

export type BatchHandler = (messages: SourceMessage[], context: BatchContext) => Promise<void>;

/** Thrown by a handler that gave up a batch because the consumer is stopping; its offsets stay uncommitted. */
export class BatchAbandoned extends Error {
  constructor() {
    super('batch abandoned: consumer stopping');
    this.name = 'BatchAbandoned';
  }
}

export interface BatchConsumer {
  /** Stops after the batch in progress; its offsets are committed only if it completed. */
  stop(): Promise<void>;
}

const HEARTBEAT_INTERVAL_MS = 3_000;

/** Batches (of different partitions) handled at once unless told otherwise. */
export const defaultPartitionsConsumedConcurrently = 3;

export interface ConsumeOptions {
  groupId: string;
  topic: string;
  logger: Logger;
  partitionsConsumedConcurrently?: number;
  /** Silence after which the group counts the consumer gone; 30 s by default. */
  sessionTimeoutMs?: number;
  /** Called each time the consumer has joined its group (readiness). */
  onJoin?: () => void;
  /** Called when the consumer crashed or stopped: it is no longer a member until the next join. */
  onLeave?: () => void;
}

/**
 * Feeds whole batches (one partition each) to the handler and commits a batch's offsets only
 * after the handler has returned: at-least-once delivery, made exactly-once in effect by the
 * read models' sequence guard.
 */
export async function consumeBatches(kafka: Kafka, options: ConsumeOptions, handler: BatchHandler): Promise<BatchConsumer> {
  const consumer = kafka.consumer({ groupId: options.groupId, sessionTimeout: options.sessionTimeoutMs ?? 30_000, heartbeatInterval: HEARTBEAT_INTERVAL_MS });
  if (options.onJoin) consumer.on(consumer.events.GROUP_JOIN, () => options.onJoin?.());
  if (options.onLeave) for (const event of [consumer.events.CRASH, consumer.events.STOP]) consumer.on(event, () => options.onLeave?.());
  await consumer.connect();
  try {
    await subscribeAndRun(consumer, options, handler);
  } catch (error) {
    await consumer.disconnect().catch(() => undefined);
    throw error;
  }
  return { stop: () => consumer.disconnect() };
}

async function subscribeAndRun(consumer: Consumer, options: ConsumeOptions, handler: BatchHandler): Promise<void> {
  await consumer.subscribe({ topic: options.topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? defaultPartitionsConsumedConcurrently,
    eachBatch: async ({ batch, heartbeat, isRunning, isStale, resolveOffset }) => {
      if (batch.messages.length === 0 || !isRunning() || isStale()) return;
      const messages: SourceMessage[] = batch.messages.map((m) => ({
        topic: batch.topic,
        partition: batch.partition,
        offset: m.offset,
        key: m.key,
        value: m.value,
        timestamp: m.timestamp,
      }));
      // A batch may take longer than the session timeout (a slow store, a large batch): keep the
      // membership alive meanwhile, or the group rebalances and the batch's commit is refused.
      const keepAlive = setInterval(() => heartbeat().catch(() => undefined), HEARTBEAT_INTERVAL_MS);
      try {
        await handler(messages, { heartbeat, isStopping: () => !isRunning() || isStale() });
      } catch (error) {
        if (error instanceof BatchAbandoned) return;
        throw error;
      } finally {
        clearInterval(keepAlive);
      }
      // Resolving moves the fetch position on; committing makes it survive a restart.
      resolveOffset(batch.lastOffset());
      const next = (BigInt(batch.lastOffset()) + 1n).toString();
      await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
    },
  });
}
