import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import type { OutgoingMessage } from './messages.js';

export interface MessageProducer {
  send(topic: string, messages: OutgoingMessage[]): Promise<void>;
  close(): Promise<void>;
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
 * default, so a send fails within about half a minute when Kafka is away. After such a failure the
 * batch may or may not have been written: kafkajs hands its sequence numbers to the next batch,
 * which the broker could then take for a duplicate and drop, so the producer is replaced (a new
 * producer id) before the next send.
 */
export async function connectProducer(kafka: Kafka): Promise<MessageProducer> {
  const open = async (): Promise<Producer> => {
    const producer = kafka.producer({
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
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
      const producer = await used.catch((error: unknown) => {
        drop();
        throw error;
      });
      try {
        await producer.send({ topic, acks: -1, messages });
      } catch (error) {
        drop();
        void producer.disconnect().catch(() => undefined);
        throw error;
      }
    },
    async close() {
      const closing = current;
      current = undefined;
      const producer = await closing?.catch(() => undefined);
      await producer?.disconnect();
    },
  };
}
