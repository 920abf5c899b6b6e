// npm run bench:projector [-- --events N]
// Loads N events into a fresh topic, then measures in one run: the raw kafkajs consume rate with a
// no-op handler, the projector's rate, and the raw store bulk-upsert rate for the very documents the
// projector wrote (its recorded batches, folded outside the clock, written with the projector's
// command size and partition concurrency). Prints the three and projector / min(raw consume, raw
// store); the target is at least 0.7.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { AnyBulkWriteOperation, Collection, Document } from 'mongodb';
import { generateDemoEvents } from '../contracts/demo-events.js';
import { parseErpEvent } from '../contracts/erp-events.js';
import { deadLetterTopic } from '../contracts/transport.js';
import { ensureStack } from '../scripts/stack/stack.js';
import { defaultStateCacheSize } from '../services/config/config.js';
import { createKafka } from '../services/kafka/client.js';
import { consumeBatches, defaultPartitionsConsumedConcurrently, type BatchHandler } from '../services/kafka/consumer.js';
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
import { writeResults } from './support/results.js';

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
  createBatchProjector({ collections, sink, deadLetterTopic: deadLetterTopic(topic), logger, stateCacheSize: defaultStateCacheSize }),
);

say(`projector took ${projected.seconds.toFixed(1)} s; raw store bulk upserts of the same documents`);
type RawDocument = Document & { _id: string };
const upsert = (doc: Document & { clientId: string; salesOrderNumber: string }): AnyBulkWriteOperation<RawDocument> => ({
  replaceOne: { filter: { _id: documentId(doc.clientId, doc.salesOrderNumber) }, replacement: doc, upsert: true },
});

// Outside the clock: each recorded batch folded onto the states before it, from memory (the
// projector keeps or reads them), into the documents the projector wrote, per partition.
let states: LoadedStates = { orderStatus: new Map(), shipments: new Map() };
const writesByPartition = new Map<number, { orderStatus: AnyBulkWriteOperation<RawDocument>[]; shipments: AnyBulkWriteOperation<RawDocument>[] }[]>();
let documents = 0;
for (const batch of projected.batches) {
  const items = batch.flatMap((m) => {
    const parsed = parseErpEvent(m.value ?? '');
    return parsed.ok ? [{ event: parsed.event, source: m }] : [];
  });
  const folded = projectBatch(states, items);
  const { effects } = folded;
  states = folded.states;
  const writes = {
    orderStatus: effects.orderStatus.map((c) => upsert({ ...c.after, changedAt: new Date() })),
    shipments: effects.shipments.map((c) => upsert({ ...c.after, shipmentDates: [] })),
  };
  documents += writes.orderStatus.length + writes.shipments.length;
  const partition = batch[0]?.partition ?? 0;
  writesByPartition.set(partition, writesByPartition.get(partition) ?? []);
  writesByPartition.get(partition)?.push(writes);
}

/** Sequential commands of `updatesPerCommand`, as the projector writes (FerretDB needs it; see writes.ts). */
async function bulkUpsert(collection: Collection<RawDocument>, ops: AnyBulkWriteOperation<RawDocument>[]) {
  for (let start = 0; start < ops.length; start += updatesPerCommand) {
    await collection.bulkWrite(ops.slice(start, start + updatesPerCommand), { ordered: true });
  }
}
/**
 * On the clock: partitions' batches written by `lanes` writers side by side, each partition's
 * batches in order and both collections of a batch at once, into a fresh database.
 */
async function timeRawUpserts(lanes: number): Promise<number> {
  const db = mongo.db(`bench_raw_${run}_${lanes}`);
  await ensureIndexes(readModelCollections(db, 1));
  const names = collectionNames(1);
  const raw = { orderStatus: db.collection<RawDocument>(names.orderStatus), shipments: db.collection<RawDocument>(names.shipments) };
  const queue = [...writesByPartition.values()];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let writes = queue.shift(); writes; writes = queue.shift()) {
        for (const batch of writes) await Promise.all([bulkUpsert(raw.orderStatus, batch.orderStatus), bulkUpsert(raw.shipments, batch.shipments)]);
      }
    }),
  );
  const ms = performance.now() - started;
  await db.dropDatabase();
  return ms;
}
// The store's best of one writer and of as many as the projector's consumer runs at once
// (SQLite-backed FerretDB writes one at a time, so more writers can be slower).
const rawRuns = [1, defaultPartitionsConsumedConcurrently];
const rawMs: number[] = [];
for (const lanes of rawRuns) rawMs.push(await timeRawUpserts(lanes));
const writeMs = Math.min(...rawMs);

const rate = (seconds: number) => lines.length / seconds;
const consumeRate = rate(consumed.seconds);
const storeRate = lines.length / (writeMs / 1000);
const projectorRate = rate(projected.seconds);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
process.stdout.write(
  [
    `events: ${lines.length}; projector batches: ${projected.batches.length}; documents written: ${documents}`,
    `raw kafkajs consume (no-op):      ${fmt(consumeRate)} events/s`,
    `raw store bulk upserts (same docs): ${fmt(storeRate)} events/s (${fmt(documents / (writeMs / 1000))} documents/s; best of ${rawRuns
      .map((lanes, i) => `${lanes} writer${lanes > 1 ? 's' : ''}: ${fmt(lines.length / (rawMs[i]! / 1000))}`)
      .join(', ')} events/s)`,
    `projector:                         ${fmt(projectorRate)} events/s`,
    `ratio projector / min(raw):        ${(projectorRate / Math.min(consumeRate, storeRate)).toFixed(2)} (target >= 0.70)`,
    '',
  ].join('\n'),
);

const resultsFile = writeResults('projector', {
  events: lines.length,
  documents,
  consumeEventsPerSecond: consumeRate,
  storeEventsPerSecond: storeRate,
  projectorEventsPerSecond: projectorRate,
  ratio: projectorRate / Math.min(consumeRate, storeRate),
  // One process runs the projector and both raw phases, one after the other: its peak RSS.
  benchPeakRssMiB: process.resourceUsage().maxRSS / 1024,
});
process.stdout.write(`bench process peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB; figures in ${resultsFile}\n`);

await sink.close();
await projectedDb.dropDatabase();
await mongo.close();
const admin = kafka.admin();
await admin.connect();
await admin.deleteTopics({ topics: [topic, deadLetterTopic(topic)] }).catch(() => undefined);
await admin.disconnect();
