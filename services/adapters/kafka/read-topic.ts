import { randomBytes } from 'node:crypto';
import type { Kafka } from 'kafkajs';

export interface StoredMessage {
  partition: number;
  offset: string;
  /** When the broker stored it (ms since the epoch, as text). */
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, string>;
}

export interface ReadTopicOptions {
  /** Stop before these offsets (per partition); the topic's end offsets when reading began by default. */
  until?: Map<number, bigint>;
  /** Called with the count so far, every few thousand messages. */
  onProgress?: (read: number) => void;
  timeoutMs?: number;
  /** Gives the reading up: the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Hands every message of `topic` from its beginning up to its end as it was when reading began
 * (or `until`) to `onMessage`, in order within each partition (partitions interleave), holding
 * none of them: memory stays flat however long the topic. Reads with a throwaway consumer group
 * that commits nothing and is deleted after. `onMessage` may be async: the next batch waits.
 */
export async function scanTopic(
  kafka: Kafka,
  topic: string,
  onMessage: (message: StoredMessage) => void | Promise<void>,
  options: ReadTopicOptions = {},
): Promise<number> {
  const { signal } = options;
  signal?.throwIfAborted();
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `ossn-reader-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  // A throwaway reader never restarts itself: after a crash (a connection dropped mid-fetch, or by
  // the disconnect that ends a read given up) kafkajs would otherwise start it again, reading on and
  // keeping the process alive after the read has ended.
  const consumer = kafka.consumer({ groupId, retry: { restartOnFailure: async () => false } });
  let read = 0;
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    const until = options.until ?? new Map(offsets.map((p) => [p.partition, BigInt(p.high)]));
    const remaining = new Set(offsets.filter((p) => (until.get(p.partition) ?? 0n) > BigInt(p.low)).map((p) => p.partition));
    if (remaining.size === 0) return 0;
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const timeoutMs = options.timeoutMs ?? 120_000;
    let onAbort: (() => void) | undefined;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`reading ${topic} took longer than ${timeoutMs / 1000} s (${read} messages read)`)), timeoutMs);
      onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      if (signal?.aborted) onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        clearTimeout(timer);
        reject(payload.error);
      });
      consumer
        .run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            if (!remaining.has(batch.partition)) return;
            const end = until.get(batch.partition) ?? 0n;
            for (const m of batch.messages) {
              if (BigInt(m.offset) >= end || signal?.aborted) break;
              await onMessage({
                partition: batch.partition,
                offset: m.offset,
                timestamp: m.timestamp,
                key: m.key,
                value: m.value,
                headers: Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, v?.toString() ?? ''])),
              });
              if (++read % 5_000 === 0) options.onProgress?.(read);
            }
            if (BigInt(batch.lastOffset()) + 1n >= end) remaining.delete(batch.partition);
            if (remaining.size === 0) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch((error: unknown) => {
          clearTimeout(timer);
          reject(error as Error);
        });
    }).finally(() => onAbort && signal?.removeEventListener('abort', onAbort));
    return read;
  } finally {
    await consumer.disconnect();
    await admin.deleteGroups([groupId]).catch(() => undefined);
    await admin.disconnect();
  }
}

/** Every message of `topic` (see scanTopic), held in memory, in partition order: for small topics (dead letters, tests). */
export async function readTopic(kafka: Kafka, topic: string, options: ReadTopicOptions = {}): Promise<StoredMessage[]> {
  const messages: StoredMessage[] = [];
  await scanTopic(kafka, topic, (message) => void messages.push(message), options);
  return messages.sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)));
}
