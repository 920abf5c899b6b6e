import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import type { OutgoingMessage } from './messages.js';

export interface MessageProducer {
  send(topic: string, messages: OutgoingMessage[]): Promise<void>;
  close(): Promise<void>;
}

/** A producer that waits for all in-sync replicas, so a sent message is not lost. */
export async function connectProducer(kafka: Kafka): Promise<MessageProducer> {
  const producer: Producer = kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  return {
    async send(topic, messages) {
      if (messages.length === 0) return;
      await producer.send({ topic, acks: -1, messages });
    },
    close: () => producer.disconnect(),
  };
}
