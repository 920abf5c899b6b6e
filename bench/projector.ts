// npm run bench:projector [-- --events N] [--writers 1,3]
// Loads N events into a fresh topic, then measures in one run:
//  - the raw kafkajs consume rate with a no-op handler (in this process, its batches recorded);
//  - the projector's rate: `ossn projector`, the real command in its own process, from its
//    'projector consuming' log line until its consumer group has committed the whole topic;
//  - the raw store bulk-upsert rate of the same documents (the recorded batches folded outside the
//    clock, written one unordered bulk write per batch and collection, by one writer and by as many side by side
//    as the projector consumes partitions at once, or the counts --writers names; the best counts).
// Prints the three and projector / min(raw consume, raw store) (target at least 0.8), and the
// peak resident memory of each process: the projector, this bench, and the stack's Kafka and MongoDB.
//
// npm run bench:projector -- --cluster [--events N]  (some 3 minutes at the 100,000 events of the default)
// The same measures, in one run, on the one-member stack (KAFKA_BROKERS and MONGODB_URI, else the
// local stack) and on the local cluster (3-member replica set, 3 brokers; ensureClusterStack, which
// reads OSSN_STACK_DIR and OSSN_STACK_CACHE_DIR), every write with majority write concern as ossn
// writes (connect.ts): the projector's events/s and its ratio to the raw store writes on the same
// servers, and the cluster's figures over the one member's. Figures in bench/results/projector-cluster.json.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { AnyBulkWriteOperation, Collection, Document } from 'mongodb';
import { generateDemoEvents } from '../services/ossn/demo-events/demo-events.js';
import { parseErpEvent } from '../contracts/erp-events.js';
import { deadLetterTopic } from '../contracts/transport.js';
import { ensureClusterStack, clusterStatus } from '../scripts/stack/cluster.js';
import { ensureStack, stackStatus, type ServerStatus } from '../scripts/stack/stack.js';
import { createKafka } from '../services/adapters/kafka/client.js';
import { consumeBatches, defaultPartitionsConsumedConcurrently, type BatchHandler } from '../services/adapters/kafka/consumer.js';
import type { SourceMessage } from '../services/adapters/kafka/messages.js';
import { connectProducer } from '../services/adapters/kafka/producer.js';
import { waitUntilCaughtUp } from '../services/adapters/kafka/progress.js';
import { ensureTopics } from '../services/adapters/kafka/topics.js';
import { createLogger } from '../services/plumbing/logging/logger.js';
import { projectBatch } from '../services/projector/project-batch.js';
import { connectMongo } from '../services/adapters/mongodb/connect.js';
import { collectionNames, documentId, ensureIndexes, readModelCollections } from '../services/adapters/mongodb/documents.js';
import type { LoadedStates } from '../projections/batch.js';
import { MemoryWatch } from './support/process-memory.js';
import { resultsDir, writeResults } from './support/results.js';

const { values } = parseArgs({
  options: { events: { type: 'string' }, partitions: { type: 'string' }, writers: { type: 'string' }, cluster: { type: 'boolean' } },
});
const onCluster = values.cluster === true;
const eventCount = Number(values.events ?? process.env.BENCH_EVENTS ?? 100_000);
const partitions = Number(values.partitions ?? 6);
const writerCounts = (values.writers ?? `1,${defaultPartitionsConsumedConcurrently}`).split(',').map(Number);
for (const n of [eventCount, partitions, ...writerCounts]) if (!Number.isInteger(n) || n < 1) throw new Error(`--events, --partitions and --writers take whole numbers of at least 1, got ${n}`);
const logger = createLogger('bench', 'warn');

/** Servers to measure on: their addresses, and their processes whose memory is watched. */
interface Target {
  /** '' for the stack the bench measures by default; else a word for file names and lines. */
  name: string;
  env: { KAFKA_BROKERS: string; MONGODB_URI: string };
  servers: ServerStatus[];
}

const oneMember: Target = {
  name: '',
  env: process.env.KAFKA_BROKERS && process.env.MONGODB_URI ? { KAFKA_BROKERS: process.env.KAFKA_BROKERS, MONGODB_URI: process.env.MONGODB_URI } : await ensureStack(),
  servers: await stackStatus(),
};

interface Figures {
  events: number;
  documents: number;
  batches: number;
  consumeEventsPerSecond: number;
  storeEventsPerSecond: number;
  storeDocumentsPerSecond: number;
  storeWriters: number[];
  /** Events/s of each writer count of storeWriters. */
  storeEventsPerSecondByWriters: number[];
  projectorEventsPerSecond: number;
  ratio: number;
  peakRssMiB: Record<string, number>;
}

/** The three measures on `target`, on a topic and databases of this run's own, dropped after. */
async function benchOn(target: Target): Promise<Figures> {
  const { env } = target;
  const label = target.name ? `${target.name}: ` : '';
  const say = (line: string) => process.stderr.write(`bench: ${label}${line}\n`);
  const memory = new MemoryWatch();
  memory.watch({ name: 'bench', pid: process.pid });
  for (const server of target.servers) {
    if (server.pid !== undefined && server.name !== 'redis') memory.watch({ name: server.name, pid: server.pid, group: true });
  }
  const kafka = createKafka(env.KAFKA_BROKERS.split(','), 'bench-projector', logger);
  const mongo = await connectMongo(env.MONGODB_URI, 'bench-projector');
  const run = randomBytes(3).toString('hex');
  const topic = `bench.projector.${run}`;

  // About 9 events per sales order in the demo data: size the data set to give at least N events.
  const perClient = Math.ceil(eventCount / 9 / 50) + 1;
  const events = generateDemoEvents({ clients: 50, orders: perClient, seed: 42 }).slice(0, eventCount);
  const total = events.length;
  say(`loading ${total} events into ${topic} (${partitions} partitions)`);
  await ensureTopics(kafka, topic, partitions);
  const producer = await connectProducer(kafka);
  for (let i = 0; i < total; i += 5_000) {
    await producer.send(topic, events.slice(i, i + 5_000).map((e) => ({ key: `${e.clientId}:${e.salesOrderNumber}`, value: JSON.stringify(e) })));
    if ((i / 5_000) % 40 === 39) say(`  ${i + 5_000} loaded`);
  }
  events.length = 0;

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

  say('projector: ossn projector in its own process');
  const projectedDatabase = `bench_projector_${run}`;
  const projected = await timeProjectorProcess(projectedDatabase, `bench-projector-${run}`);

  /**
   * `ossn projector` over the topic into a fresh database: the seconds from its 'projector consuming'
   * line (connected, about to join its group) until the group has committed every event. Its log
   * goes to bench/results/projector-process.log.
   */
  async function timeProjectorProcess(database: string, group: string): Promise<{ seconds: number }> {
    const entry = fileURLToPath(new URL('../bin/ossn.mjs', import.meta.url));
    const child = spawn(process.execPath, [entry, 'projector'], {
      env: {
        ...process.env,
        KAFKA_BROKERS: env.KAFKA_BROKERS,
        MONGODB_URI: env.MONGODB_URI,
        MONGODB_DATABASE: database,
        OSSN_TOPIC: topic,
        OSSN_TOPIC_PARTITIONS: String(partitions),
        OSSN_CONSUMER_GROUP: group,
        OSSN_METRICS_PORT: '0',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    memory.watch({ name: 'projector', pid: child.pid as number });
    const logName = `projector-process${target.name ? `-${target.name}` : ''}.log`;
    const log = createWriteStream(resolve(resultsDir, logName));
    child.stderr.pipe(log, { end: false });
    let started = 0;
    const consuming = new Promise<void>((ready, failed) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        log.write(`${line}\n`);
        if (!started && line.includes('"projector consuming"')) {
          started = performance.now();
          ready();
        }
      });
      void exited.then((code) => failed(new Error(`ossn projector exited (code ${code}) before consuming; see bench/results/${logName}`)));
    });
    try {
      await consuming;
      // Asked ten times a second, with progress every minute. The raw consume's clock stops at its
      // last batch; this one stops when the last commit is seen, which a poll every 500 ms (as
      // before) saw 250 ms late on average: 2% of the projector's time at 200,000 events.
      let polls = 0;
      await waitUntilCaughtUp(kafka, group, topic, 4 * 3_600_000, {
        everyMs: 100,
        onLag: (left) => {
          if (++polls % 600 === 0) say(`  projector: ${total - Number(left)} of ${total} events committed`);
        },
      });
      return { seconds: (performance.now() - started) / 1000 };
    } finally {
      memory.forget('projector');
      child.kill('SIGTERM');
      const code = await exited;
      log.end();
      if (code !== 0) say(`ossn projector exited with code ${code}`);
    }
  }

  say(`projector took ${projected.seconds.toFixed(1)} s; raw store bulk upserts of the same documents`);
  const projectedDb = mongo.db(projectedDatabase);
  type RawDocument = Document & { _id: string };
  const upsert = (doc: Document & { clientId: string; salesOrderNumber: string }): AnyBulkWriteOperation<RawDocument> => ({
    replaceOne: { filter: { _id: documentId(doc.clientId, doc.salesOrderNumber) }, replacement: doc, upsert: true },
  });

  // Outside the clock: each recorded batch folded onto the states before it, from memory (the
  // projector keeps or reads them), into the documents the projector writes, per partition. A batch
  // is let go once folded: a million messages and their documents at once would be twice the memory.
  let states: LoadedStates = { orderStatus: new Map(), shipments: new Map() };
  const writesByPartition = new Map<number, { orderStatus: AnyBulkWriteOperation<RawDocument>[]; shipments: AnyBulkWriteOperation<RawDocument>[] }[]>();
  let documents = 0;
  for (let i = 0; i < consumed.batches.length; i++) {
    const batch = consumed.batches[i] as SourceMessage[];
    consumed.batches[i] = [];
    const items = batch.flatMap((m) => {
      const parsed = parseErpEvent(m.value ?? '');
      return parsed.ok ? [{ event: parsed.event, source: m }] : [];
    });
    const folded = projectBatch(states, items);
    const { effects } = folded;
    states = folded.states;
    const writes = {
      orderStatus: effects.orderStatus.map((c) => upsert({ ...c.after, changedAt: new Date() })),
      shipments: effects.shipments.map((c) => upsert({ ...c.after, lastNewsAt: new Date() })),
    };
    documents += writes.orderStatus.length + writes.shipments.length;
    const partition = batch[0]?.partition ?? 0;
    writesByPartition.set(partition, writesByPartition.get(partition) ?? []);
    writesByPartition.get(partition)?.push(writes);
  }

  /** One unordered bulk write of a batch's documents, as the projector writes them (see writes.ts). */
  async function bulkUpsert(collection: Collection<RawDocument>, ops: AnyBulkWriteOperation<RawDocument>[]) {
    if (ops.length > 0) await collection.bulkWrite(ops, { ordered: false });
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
    let written = 0;
    const progress = setInterval(() => say(`  raw store, ${lanes} writer${lanes > 1 ? 's' : ''}: ${written} of ${documents} documents written`), 60_000);
    const started = performance.now();
    try {
      await Promise.all(
        Array.from({ length: lanes }, async () => {
          for (let writes = queue.shift(); writes; writes = queue.shift()) {
            for (const batch of writes) {
              await Promise.all([bulkUpsert(raw.orderStatus, batch.orderStatus), bulkUpsert(raw.shipments, batch.shipments)]);
              written += batch.orderStatus.length + batch.shipments.length;
            }
          }
        }),
      );
    } finally {
      clearInterval(progress);
    }
    const ms = performance.now() - started;
    await db.dropDatabase();
    return ms;
  }
  // The store's best over the writer counts asked for.
  const rawRuns = writerCounts;
  const rawMs: number[] = [];
  for (const lanes of rawRuns) {
    say(`raw store: ${lanes} writer${lanes > 1 ? 's' : ''}`);
    rawMs.push(await timeRawUpserts(lanes));
  }
  const writeMs = Math.min(...rawMs);

  const rate = (seconds: number) => total / seconds;
  const consumeRate = rate(consumed.seconds);
  const storeRate = total / (writeMs / 1000);
  const projectorRate = rate(projected.seconds);
  const peakRssMiB = memory.peaksMiB();
  memory.stop();

  await producer.close();
  await projectedDb.dropDatabase();
  await mongo.close();
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [topic, deadLetterTopic(topic)] }).catch(() => undefined);
  await admin.disconnect();
  return {
    events: total,
    documents,
    batches: consumed.batches.length,
    consumeEventsPerSecond: consumeRate,
    storeEventsPerSecond: storeRate,
    storeDocumentsPerSecond: documents / (writeMs / 1000),
    storeWriters: rawRuns,
    storeEventsPerSecondByWriters: rawMs.map((ms) => total / (ms / 1000)),
    projectorEventsPerSecond: projectorRate,
    ratio: projectorRate / Math.min(consumeRate, storeRate),
    // Sampled every second: the projector process, this bench (raw consume, folding, raw writes), the stack's servers.
    peakRssMiB,
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const memoryLine = (peaks: Record<string, number>) => Object.entries(peaks).map(([name, mib]) => `${name} ${mib.toFixed(0)}`).join(', ');

if (!onCluster) {
  const figures = await benchOn(oneMember);
  const { events: total, consumeEventsPerSecond: consumeRate, storeEventsPerSecond: storeRate, projectorEventsPerSecond: projectorRate, storeWriters: rawRuns } = figures;
  process.stdout.write(
    [
      `events: ${total}; batches: ${figures.batches}; documents written: ${figures.documents}`,
      `raw kafkajs consume (no-op):      ${fmt(consumeRate)} events/s`,
      `raw store bulk upserts (same docs): ${fmt(storeRate)} events/s (${fmt(figures.storeDocumentsPerSecond)} documents/s; best of ${rawRuns
        .map((lanes, i) => `${lanes} writer${lanes > 1 ? 's' : ''}: ${fmt(figures.storeEventsPerSecondByWriters[i]!)}`)
        .join(', ')} events/s)`,
      `projector:                         ${fmt(projectorRate)} events/s`,
      `ratio projector / min(raw):        ${figures.ratio.toFixed(2)} (target >= 0.80)`,
      '',
    ].join('\n'),
  );
  process.stdout.write(`peak resident memory (MiB): ${memoryLine(figures.peakRssMiB)}\n`);
  const resultsFile = writeResults('projector', {
    events: total,
    documents: figures.documents,
    consumeEventsPerSecond: consumeRate,
    storeEventsPerSecond: storeRate,
    storeWriters: rawRuns,
    projectorEventsPerSecond: projectorRate,
    ratio: figures.ratio,
    // Sampled every second: the projector process, this bench (raw consume, folding, raw writes), the stack's servers.
    peakRssMiB: figures.peakRssMiB,
  });
  process.stdout.write(`figures in ${resultsFile}\n`);
} else {
  const clusterEnv = await ensureClusterStack();
  const cluster: Target = { name: 'cluster', env: clusterEnv, servers: await clusterStatus() };
  const single = await benchOn({ ...oneMember, name: 'one-member' });
  const clustered = await benchOn(cluster);
  // Against the store's raw writes on the same servers: what the projector makes of the writes the servers take.
  const toRaw = (f: Figures) => f.projectorEventsPerSecond / f.storeEventsPerSecond;
  const row = (name: string, f: Figures) =>
    `${name.padEnd(34)}${fmt(f.projectorEventsPerSecond).padStart(8)} events/s  raw store ${fmt(f.storeEventsPerSecond).padStart(7)} events/s  projector/raw ${toRaw(f).toFixed(2)}`;
  process.stdout.write(
    [
      `events: ${single.events} (${single.documents} documents) on each; majority write concern, journalled, everywhere`,
      row('one-member replica set, 1 broker:', single),
      row('3-member replica set, 3 brokers:', clustered),
      `cluster / one member: projector ${(clustered.projectorEventsPerSecond / single.projectorEventsPerSecond).toFixed(2)}, raw store ${(
        clustered.storeEventsPerSecond / single.storeEventsPerSecond
      ).toFixed(2)}`,
      `peak resident memory (MiB), one member: ${memoryLine(single.peakRssMiB)}`,
      `peak resident memory (MiB), cluster: ${memoryLine(clustered.peakRssMiB)}`,
      '',
    ].join('\n'),
  );
  const resultsFile = writeResults('projector-cluster', {
    writeConcern: 'majority, journalled',
    oneMember: { ...single, projectorToRawStore: toRaw(single) },
    cluster: { ...clustered, projectorToRawStore: toRaw(clustered) },
    clusterToOneMember: {
      projector: clustered.projectorEventsPerSecond / single.projectorEventsPerSecond,
      rawStore: clustered.storeEventsPerSecond / single.storeEventsPerSecond,
    },
  });
  process.stdout.write(`figures in ${resultsFile}\n`);
}
