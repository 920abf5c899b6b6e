import { Partitioners, type Kafka, type Producer } from 'kafkajs';
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
  // Opened again at the next send once a send or an opening failed (see above).
  let current: Promise<Producer> | undefined = open();
  await current;
  return {
    async send(topic, messages) {
      if (messages.length === 0) return;
      const used = (current ??= open());
      const drop = () => {
        if (current === used) current = undefined;
      };
      const sending = used.then((producer) => producer.send({ topic, acks: -1, messages }).then(() => undefined));
      try {
        await settledWithin(sending, deadlineMs, () => new UnacknowledgedSendError(deadlineMs));
      } catch (error) {
        drop();
        // Not awaited: kafkajs's disconnect waits for the requests in flight, which a hung send never ends.
        void used.then(
          (producer) => {
            disconnectInBackground(producer);
            // A send past its deadline may still retry and reconnect: whatever it opened is closed once it ends.
            if (error instanceof UnacknowledgedSendError) void sending.catch(() => undefined).then(() => disconnectInBackground(producer));
          },
          () => undefined,
        );
        throw error;
      }
    },
    async close() {
      const closing = current;
      current = undefined;
      const producer = await closing?.catch(() => undefined);
      if (producer) await settledWithin(producer.disconnect(), disconnectDeadlineMs, () => new Error('disconnect timed out')).catch(() => undefined);
    },
  };
}

/** Disconnects a producer given up on, without waiting for it. */
function disconnectInBackground(producer: Producer): void {
  void producer.disconnect().catch(() => undefined);
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
