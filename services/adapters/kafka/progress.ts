import type { Admin, Kafka } from 'kafkajs';

/** How many messages of the topic the consumer group has not committed yet, over all partitions. */
export async function totalLag(admin: Admin, groupId: string, topic: string): Promise<bigint> {
  return (await partitionLags(admin, groupId, topic)).reduce((sum, p) => sum + p.lag, 0n);
}

export interface CatchUpOptions {
  /** Between two questions to the broker; 100 ms by default. */
  everyMs?: number;
  /** Told the lag after each question. */
  onLag?: (lag: bigint) => void;
}

/**
 * Waits until the group has committed every message the topic held when the wait began (or later
 * ones), asking on one admin connection for the whole wait.
 */
export async function waitUntilCaughtUp(kafka: Kafka, groupId: string, topic: string, timeoutMs = 90_000, options: CatchUpOptions = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (;;) {
      const lag = await totalLag(admin, groupId, topic);
      options.onLag?.(lag);
      if (lag <= 0n) return;
      if (Date.now() > deadline) throw new Error(`consumer group ${groupId} is still ${lag} messages behind on ${topic}`);
      await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 100));
    }
  } finally {
    await admin.disconnect();
  }
}

/** Total number of messages ever written to the topic (retention is unlimited). */
export async function topicSize(kafka: Kafka, topic: string): Promise<bigint> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + BigInt(p.high) - BigInt(p.low), 0n);
  } finally {
    await admin.disconnect();
  }
}

/** One partition's: the messages the group has not committed yet, and the topic's end offset. */
export interface PartitionLag {
  partition: number;
  lag: bigint;
  end: bigint;
}

/** Per partition: the messages the group has not committed yet, and the topic's end offset. */
export async function partitionLags(admin: Admin, groupId: string, topic: string): Promise<PartitionLag[]> {
  const ends = await admin.fetchTopicOffsets(topic);
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  // A partition the group never committed on counts from the topic's first offset kept.
  const done = new Map((committed?.partitions ?? []).filter((p) => p.offset !== '-1').map((p) => [p.partition, BigInt(p.offset)]));
  return ends
    .map((p) => ({ partition: p.partition, end: BigInt(p.high), lag: BigInt(p.high) - (done.get(p.partition) ?? BigInt(p.low)) }))
    .sort((a, b) => a.partition - b.partition);
}

/** Committed offsets of a group on `topic`, by partition (0 where it never committed). */
export async function committedOffsets(admin: Admin, groupId: string, topic: string): Promise<Map<number, bigint>> {
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return new Map((committed?.partitions ?? []).map((p) => [p.partition, p.offset === '-1' ? 0n : BigInt(p.offset)]));
}
