// npm run bench:projector [-- --events N]
// Loads N events into a fresh topic, then measures in one run: the raw kafkajs consume rate with a
// no-op handler, the projector's rate, and the raw store bulk-upsert rate for the very documents the
// projector wrote (its recorded batches, folded outside the clock). Prints the three and
// projector / min(raw consume, raw store); the target is at least 0.7.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { AnyBulkWriteOperation, Collection, Document } from 'mongodb';
import { generateDemoEvents } from '../contracts/demo-events.js';
import { parseErpEvent } from '../contracts/erp-events.js';
import { deadLetterTopic } from '../contracts/transport.js';
import { ensureStack } from '../scripts/stack/stack.js';
import { createKafka } from '../services/kafka/client.js';
import { consumeBatches, type BatchHandler } from '../services/kafka/consumer.js';
import type { SourceMessage } from '../services/kafka/messages.js';
import { connectSink } from '../services/kafka/producer.js';
import { waitUntilCaughtUp } from '../services/kafka/progress.js';
import { ensureTopics } from '../services/kafka/topics.js';
import { createLogger } from '../services/logging/logger.js';
import { createBatchProjector } from '../services/projector/projector.js';
import { projectBatch } from '../services/projector/project-batch.js';
import { connectMongo } from '../services/read-model-store/connect.js';
import { collectionNames, documentId, ensureIndexes, readModelCollections } from '../services/read-model-store/documents.js';
import { updatesPerCommand, type LoadedStates } from '../services/read-model-store/writes.js';

const { values } = parseArgs({ options: { events: { type: 'string' }, partitions: { type: 'string' } } });
const eventCount = Number(values.events ?? process.env.BENCH_EVENTS ?? 100_000);
const partitions = Number(values.partitions ?? 6);
const logger = createLogger('bench', 'warn');
const say = (line: string) => process.stderr.write(`bench: ${line}\n`);

const env = process.env.KAFKA_BROKERS && process.env.MONGODB_URI ? { KAFKA_BROKERS: process.env.KAFKA_BROKERS, MONGODB_URI: process.env.MONGODB_URI } : await ensureStack();
const kafka = createKafka(env.KAFKA_BROKERS.split(','), 'bench-projector', logger);
const mongo = await connectMongo(env.MONGODB_URI, 'bench-projector');
const run = randomBytes(3).toString('hex');
const topic = `bench.projector.${run}`;

// About 9 events per sales order in the demo data: size the data set to give at least N events.
const perClient = Math.ceil(eventCount / 9 / 50) + 1;
const lines = generateDemoEvents({ clients: 50, orders: perClient, seed: 42 })
  .slice(0, eventCount)
  .map((e) => ({ key: `${e.clientId}:${e.salesOrderNumber}`, value: JSON.stringify(e) }));
say(`loading ${lines.length} events into ${topic} (${partitions} partitions)`);
await ensureTopics(kafka, topic, partitions);
const sink = await connectSink(kafka);
for (let i = 0; i < lines.length; i += 5_000) await sink.send(topic, lines.slice(i, i + 5_000));

interface Timed {
  batches: SourceMessage[][];
  seconds: number;
}

/** Runs a consumer group over the whole topic; the clock runs from the first batch to the last. */
async function timeConsumer(group: string, handler: BatchHandler): Promise<Timed> {
  const batches: SourceMessage[][] = [];
  let first = 0;
  let last = 0;
  const consumer = await consumeBatches(kafka, { groupId: group, topic, logger }, async (messages, context) => {
    first ||= performance.now();
    await handler(messages, context);
    batches.push(messages);
    last = performance.now();
  });
  await waitUntilCaughtUp(kafka, group, topic, 30 * 60_000);
  await consumer.stop();
  return { batches, seconds: (last - first) / 1000 };
}

say('raw consume (no-op handler)');
const consumed = await timeConsumer(`bench-noop-${run}`, async () => undefined);

say('projector');
const projectedDb = mongo.db(`bench_projector_${run}`);
const collections = readModelCollections(projectedDb, 1);
await ensureIndexes(collections);
const projected = await timeConsumer(
  `bench-projector-${run}`,
  createBatchProjector({ collections, sink, deadLetterTopic: deadLetterTopic(topic), logger }),
);

say(`projector took ${projected.seconds.toFixed(1)} s; raw store bulk upserts of the same documents`);
const rawDb = mongo.db(`bench_raw_${run}`);
await ensureIndexes(readModelCollections(rawDb, 1));
const rawNames = collectionNames(1);
const raw = { orderStatus: rawDb.collection<RawDocument>(rawNames.orderStatus), shipments: rawDb.collection<RawDocument>(rawNames.shipments) };
let writeMs = 0;
let documents = 0;
type RawDocument = Document & { _id: string };
const upsert = (doc: Document & { clientId: string; salesOrderNumber: string }): AnyBulkWriteOperation<RawDocument> => ({
  replaceOne: { filter: { _id: documentId(doc.clientId, doc.salesOrderNumber) }, replacement: doc, upsert: true },
});
// The states before each batch come from memory (outside the clock), as the projector's own store reads would.
const states: LoadedStates = { orderStatus: new Map(), shipments: new Map() };
/** Sequential commands of `updatesPerCommand`, as the projector writes (FerretDB needs it; see writes.ts). */
async function bulkUpsert(collection: Collection<RawDocument>, ops: AnyBulkWriteOperation<RawDocument>[]) {
  for (let start = 0; start < ops.length; start += updatesPerCommand) {
    await collection.bulkWrite(ops.slice(start, start + updatesPerCommand), { ordered: true });
  }
}
for (const batch of projected.batches) {
  const items = batch.flatMap((m) => {
    const parsed = parseErpEvent(m.value ?? '');
    return parsed.ok ? [{ event: parsed.event, source: m }] : [];
  });
  const { effects } = projectBatch(states, items);
  for (const c of effects.orderStatus) states.orderStatus.set(documentId(c.after.clientId, c.after.salesOrderNumber), c.after);
  for (const c of effects.shipments) states.shipments.set(documentId(c.after.clientId, c.after.salesOrderNumber), c.after);
  const statusOps = effects.orderStatus.map((c) => upsert({ ...c.after, changedAt: new Date() }));
  const shipmentOps = effects.shipments.map((c) => upsert({ ...c.after, shipmentDates: [] }));
  documents += statusOps.length + shipmentOps.length;
  const started = performance.now();
  await Promise.all([
    bulkUpsert(raw.orderStatus, statusOps),
    bulkUpsert(raw.shipments, shipmentOps),
  ]);
  writeMs += performance.now() - started;
}

const rate = (seconds: number) => lines.length / seconds;
const consumeRate = rate(consumed.seconds);
const storeRate = lines.length / (writeMs / 1000);
const projectorRate = rate(projected.seconds);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
process.stdout.write(
  [
    `events: ${lines.length}; projector batches: ${projected.batches.length}; documents written: ${documents}`,
    `raw kafkajs consume (no-op):      ${fmt(consumeRate)} events/s`,
    `raw store bulk upserts (same docs): ${fmt(storeRate)} events/s (${fmt(documents / (writeMs / 1000))} documents/s)`,
    `projector:                         ${fmt(projectorRate)} events/s`,
    `ratio projector / min(raw):        ${(projectorRate / Math.min(consumeRate, storeRate)).toFixed(2)} (target >= 0.70)`,
    '',
  ].join('\n'),
);

await sink.close();
await projectedDb.dropDatabase();
await rawDb.dropDatabase();
await mongo.close();
const admin = kafka.admin();
await admin.connect();
await admin.deleteTopics({ topics: [topic, deadLetterTopic(topic)] }).catch(() => undefined);
await admin.disconnect();
