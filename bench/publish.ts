// npm run bench:publish [-- --events N] [--cluster]
// What sending each partition's messages on their own costs `ossn publish` (services/adapters/kafka/producer.ts:
// a kafkajs send spanning brokers loses messages when a leader dies under it). In one run, rounds
// interleaved, the same events published three ways:
//  - ossn publish's path: publishNdjson's chunks (publishChunk: up to 2,500 events or 768 KiB) through
//    ossn's producer, one kafkajs send per partition of each chunk, all at once;
//  - the same chunks, one kafkajs send each, with the same options (idempotent, acks=all, one request in flight);
//  - as before the split: chunks of 500 events, one kafkajs send each.
// Prints each one's best events/s of three rounds and the ratios. On the one-member stack (KAFKA_BROKERS,
// else the local stack), or the local cluster with --cluster (3 brokers, replication 3).
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Partitioners } from 'kafkajs';
import { eventKey } from '../contracts/erp-events.js';
import { ensureClusterStack } from '../scripts/stack/cluster.js';
import { ensureStack } from '../scripts/stack/stack.js';
import { createKafka } from '../services/adapters/kafka/client.js';
import { connectProducer, type MessageProducer } from '../services/adapters/kafka/producer.js';
import { publishNdjson } from '../services/adapters/kafka/publish-events.js';
import { ensureTopics } from '../services/adapters/kafka/topics.js';
import { generateDemoEvents } from '../services/ossn/demo-events/demo-events.js';
import { createLogger } from '../services/plumbing/logging/logger.js';

const { values } = parseArgs({ options: { events: { type: 'string' }, cluster: { type: 'boolean' } } });
const eventCount = Number(values.events ?? 100_000);
if (!Number.isInteger(eventCount) || eventCount < 1) throw new Error(`--events takes a whole number of at least 1, got ${values.events}`);
const brokers = values.cluster
  ? (await ensureClusterStack()).KAFKA_BROKERS.split(',')
  : (process.env.KAFKA_BROKERS ?? (await ensureStack()).KAFKA_BROKERS).split(',');
const logger = createLogger('bench', 'warn');
const kafka = createKafka(brokers, 'bench-publish', logger);
/** The chunk ossn publish sent before its sends were split by partition. */
const formerChunk = 500;

const events = generateDemoEvents({ clients: 50, orders: Math.ceil(eventCount / 9 / 50) + 1, seed: 42 }).slice(0, eventCount);
const lines = events.map((e) => JSON.stringify(e));
const messages = events.map((e, n) => ({ key: eventKey(e.clientId, e.salesOrderNumber), value: lines[n]! }));

/** One kafkajs send per chunk, as ossn's producer sent before it split sends by partition. */
async function oneSendPerChunk(): Promise<MessageProducer> {
  const producer = kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  return {
    send: async (topic, batch) => void (await producer.send({ topic, acks: -1, messages: batch })),
    close: () => producer.disconnect(),
  };
}

type Publish = (producer: MessageProducer, topic: string) => Promise<unknown>;
const asOssnPublishes: Publish = (producer, topic) => publishNdjson(lines, producer, topic);
const inFormerChunks: Publish = async (producer, topic) => {
  for (let i = 0; i < messages.length; i += formerChunk) await producer.send(topic, messages.slice(i, i + formerChunk));
};

/** Events per second publishing every event to a fresh topic of 6 partitions. */
async function rate(open: () => Promise<MessageProducer>, publish: Publish): Promise<number> {
  const topic = `bench.publish.${randomBytes(4).toString('hex')}`;
  await ensureTopics(kafka, topic, 6);
  const producer = await open();
  try {
    const started = process.hrtime.bigint();
    await publish(producer, topic);
    return messages.length / (Number(process.hrtime.bigint() - started) / 1e9);
  } finally {
    await producer.close();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  }
}

const ways = [
  { name: 'ossn publish (one send per partition)', open: () => connectProducer(kafka), publish: asOssnPublishes },
  { name: 'the same chunks, one kafkajs send each', open: oneSendPerChunk, publish: asOssnPublishes },
  { name: `before: ${formerChunk}-event chunks, one send each`, open: oneSendPerChunk, publish: inFormerChunks },
];
const rates = ways.map(() => [] as number[]);
for (let round = 1; round <= 3; round++) {
  for (const [n, way] of ways.entries()) rates[n]!.push(await rate(way.open, way.publish));
  process.stderr.write(`bench: round ${round}: ${ways.map((w, n) => `${w.name} ${Math.round(rates[n]!.at(-1)!)}`).join(', ')} events/s\n`);
}
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const best = rates.map((r) => Math.max(...r));
console.log(
  [
    `publish of ${fmt(messages.length)} events, 6 partitions, ${values.cluster ? 'the local cluster (3 brokers)' : 'one broker'}, best of 3:`,
    ...ways.map((w, n) => `  ${w.name.padEnd(42)} ${fmt(best[n]!).padStart(7)} events/s  (${(best[n]! / best[0]!).toFixed(2)} of ossn publish's)`),
  ].join('\n'),
);
