import { Partitioners, type Kafka, type Message, type PartitionMetadata, type Producer } from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OutgoingMessage } from './messages.js';

export interface MessageProducer {
  send(topic: string, messages: OutgoingMessage[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * How long one send may wait for Kafka's acknowledgement: a little past the client's bounded
 * retries (client.ts: about half a minute when Kafka is away), which end a send by themselves. It
 * bounds the send that would not end: kafkajs has been reported to lose a request whose connection
 * died with it in flight (kafkajs issues #918, #1167), though the failover suite has not seen it.
 */
export const sendDeadlineMs = 35_000;

/** How long close() waits for the producer's disconnect (kafkajs waits for every request in flight, #918, which may never end). */
export const disconnectDeadlineMs = 5_000;

/** A send that Kafka did not acknowledge within the deadline; the batch may or may not be in the topic. */
export class UnacknowledgedSendError extends Error {
  constructor(deadlineMs: number) {
    super(
      `Kafka did not acknowledge the batch within ${deadlineMs / 1000} s; it may or may not have been written: send it again (events are idempotent by their sequence)`,
    );
    this.name = 'UnacknowledgedSendError';
  }
}

export interface ProducerOptions {
  /** See sendDeadlineMs: the tests give a shorter one. */
  sendDeadlineMs?: number;
}

/**
 * The one producer of ours (`ossn publish`, the projector's dead letters, `ossn dlq redrive`):
 * idempotent, waiting for all in-sync replicas, so a sent message is neither lost when a leader
 * fails nor written twice when kafkajs retries a request whose answer was lost.
 *
 * What kafkajs 2.2.4 needs for that (src/producer/index.js, messageProducer.js, sendMessages.js):
 * acks -1 (it refuses any other with `idempotent`); retries of at least 1; one request in flight
 * per broker connection, so a batch is never overtaken by the next while it is retried (Kafka's
 * KIP-98 rule; kafkajs also locks each broker around a produce, this makes it hold for every
 * request). Retries stay the client's bounded ones (client.ts) rather than kafkajs's endless
 * default, so a send fails within about half a minute when Kafka is away, and every send ends
 * within sendDeadlineMs whatever happens. After such a failure the batch may or may not have been
 * written: kafkajs hands its sequence numbers to the next batch, which the broker could then take
 * for a duplicate and drop, so the producer is replaced (a new producer id) before the next send.
 *
 * Each send hands kafkajs one partition's messages at a time (sendPerPartition): a send that spans
 * brokers loses messages when a leader dies under it (see there). Sends called at once go one
 * after the other (see send).
 */
export async function connectProducer(kafka: Kafka, options: ProducerOptions = {}): Promise<MessageProducer> {
  const deadlineMs = options.sendDeadlineMs ?? sendDeadlineMs;
  const open = async (): Promise<Producer> => {
    const producer = kafka.producer({
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    try {
      await settledWithin(producer.connect(), deadlineMs, () => new Error(`Kafka did not answer the producer's opening within ${deadlineMs / 1000} s`));
    } catch (error) {
      // A producer whose opening failed still holds its connection to the broker that answered
      // the metadata: left open, it keeps the process alive (an `ossn publish` that reported the
      // failure and never exited). kafkajs gives up at once when the broker the metadata names to
      // hand out producer ids is down, which a killed broker stays until the controller fences it.
      disconnectInBackground(producer);
      throw error;
    }
    return producer;
  };
  const partitionCounts = partitionCountsOf(kafka, deadlineMs);
  // Opened again at the next send once a send or an opening failed (see above).
  let current: Promise<Producer> | undefined = open();
  await current;
  // Settles when the last send called has ended (acknowledged, failed or past its deadline).
  let lastSend: Promise<void> = Promise.resolve();
  let closed = false;
  return {
    async send(topic, messages) {
      if (messages.length === 0) return;
      // One send at a time, each on the producer the one before left (the projector's batches send
      // dead letters at once). kafkajs takes back a failed request's sequence numbers, and a send
      // waiting beside it would take them for its own messages: had the failed request been written
      // (its answer lost), the broker takes the other for a duplicate and drops it, acknowledged
      // (producer.int.test.ts). Waiting counts within the deadline.
      const before = lastSend;
      let ended!: () => void;
      lastSend = new Promise<void>((resolve) => (ended = resolve));
      let used: Promise<Producer> | undefined;
      let gaveUp = false;
      const sending = before.then(async () => {
        if (gaveUp) return;
        // A producer opened now would outlive close(), holding the process open.
        if (closed) throw new Error('the producer was closed before this send went out');
        used = current ??= open();
        await sendPerPartition(await used, topic, messages, partitionCounts.of);
      });
      try {
        await settledWithin(sending, deadlineMs, () => new UnacknowledgedSendError(deadlineMs));
      } catch (error) {
        gaveUp = true;
        // Asked again at the next send: the topic may have been deleted, or created again.
        partitionCounts.forget(topic);
        const failed = used;
        if (failed) {
          if (current === failed) current = undefined;
          // Not awaited: kafkajs's disconnect waits for the requests in flight, which a hung send never ends.
          void failed.then(
            (producer) => {
              disconnectInBackground(producer);
              // A send past its deadline may still retry and reconnect: whatever it opened is closed once it ends.
              if (error instanceof UnacknowledgedSendError) void sending.catch(() => undefined).then(() => disconnectInBackground(producer));
            },
            () => undefined,
          );
        }
        throw error;
      } finally {
        ended();
      }
    },
    async close() {
      closed = true;
      const closing = current;
      current = undefined;
      const producer = await closing?.catch(() => undefined);
      if (producer) await settledWithin(producer.disconnect(), disconnectDeadlineMs, () => new Error('disconnect timed out')).catch(() => undefined);
    },
  };
}

/**
 * The partitions of each topic sent to, asked once per topic (ossn never adds partitions to a topic
 * in use: keys would move) and again after a failed send (`forget`: the topic may have been deleted
 * or created again meanwhile). A topic the brokers do not know (yet: one just created reaches each
 * broker's metadata a moment later) is asked again until the send's deadline has passed, as
 * kafkajs's producer waits for a topic's metadata.
 */
function partitionCountsOf(kafka: Kafka, deadlineMs: number): { of: (topic: string) => Promise<number>; forget: (topic: string) => void } {
  const counts = new Map<string, Promise<number>>();
  const ask = async (topic: string): Promise<number> => {
    const admin = kafka.admin();
    // A moment past the send's deadline, which ends the caller's wait first.
    const giveUpAt = Date.now() + deadlineMs + 1_000;
    try {
      await admin.connect();
      for (;;) {
        const error = await admin.fetchTopicMetadata({ topics: [topic] }).then(
          ({ topics: [metadata] }) => metadata?.partitions.length || new Error(`Kafka names no partition of topic ${topic}`),
          (failure: Error) => failure,
        );
        if (typeof error === 'number') return error;
        if (Date.now() + unknownTopicPauseMs > giveUpAt) throw error;
        await sleep(unknownTopicPauseMs);
      }
    } finally {
      // Not awaited (kafkajs's disconnect waits for requests in flight, see close): a count that
      // never came would hold every later send to the topic.
      disconnectInBackground(admin);
    }
  };
  return {
    of(topic) {
      let count = counts.get(topic);
      if (!count) {
        const asked = ask(topic);
        counts.set(topic, asked);
        // Asked again at the next send (unless a newer question has taken its place).
        asked.catch(() => counts.get(topic) === asked && counts.delete(topic));
        count = asked;
      }
      return count;
    },
    forget: (topic) => void counts.delete(topic),
  };
}

/**
 * Sends `messages` as one kafkajs send per partition, all at once, and resolves when every one is
 * acknowledged. kafkajs 2.2.4 loses messages of a send that spans brokers when a leader dies under
 * it (src/producer/sendMessages.js): a retry sends only to the brokers that have not answered yet,
 * so the partitions that moved to a broker that had answered for its own partitions are never sent,
 * and the send resolves as if they were. The failover suite lost acknowledged events so. With one
 * partition a send, the only broker that can have answered is the one that took its messages.
 * Partitions are chosen as kafkajs's default partitioner chooses them (by key), so a sales order's
 * events stay in one partition, in order.
 */
async function sendPerPartition(producer: Producer, topic: string, messages: OutgoingMessage[], partitionCount: (topic: string) => Promise<number>): Promise<void> {
  const count = await partitionCount(topic);
  const partitionMetadata: PartitionMetadata[] = Array.from({ length: count }, (_, partitionId) => ({ partitionErrorCode: 0, partitionId, leader: 0, replicas: [], isr: [] }));
  const groups = new Map<number, Message[]>();
  for (const message of messages) {
    const partition = partitioner({ topic, partitionMetadata, message });
    const group = groups.get(partition) ?? [];
    group.push({ ...message, partition });
    groups.set(partition, group);
  }
  const sent = await Promise.allSettled(
    [...groups].map(async ([partition, group]) => {
      const written = await producer.send({ topic, acks: -1, messages: group });
      // kafkajs resolves a send to a partition its metadata does not have without sending anything
      // (a topic deleted and created again with fewer partitions than counted: producer.int.test.ts).
      if (!written.some((record) => record.partition === partition)) {
        throw new Error(`Kafka acknowledged no write to partition ${partition} of topic ${topic} (${group.length} messages): the topic has fewer partitions than when ossn counted them; send them again`);
      }
    }),
  );
  const failed = sent.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The pause before a topic unknown to the brokers is asked for again. */
const unknownTopicPauseMs = 250;

/** kafkajs's default partitioner: murmur2 of the key modulo the partitions (keyed messages), as its producer would choose. */
const partitioner = Partitioners.DefaultPartitioner();

/** Disconnects a producer (or admin) given up on, without waiting for it. */
function disconnectInBackground(client: { disconnect(): Promise<void> }): void {
  void client.disconnect().catch(() => undefined);
}

/** `work`, or `expired()` once `ms` have passed before it settled; no timer is left once it settles. */
async function settledWithin<T>(work: Promise<T>, ms: number, expired: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(expired()), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
