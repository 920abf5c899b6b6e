// npm run bench:projector [-- --events N] [--writers 1,3]
// Loads N events into a fresh topic, then measures in one run:
//  - the raw kafkajs consume rate with a no-op handler (in this process, its batches recorded);
//  - the projector's rate: `ossn projector`, the real command in its own process, from its
//    'projector consuming' log line until its consumer group has committed the whole topic;
//  - the raw store bulk-upsert rate of the same documents (the recorded batches folded outside the
//    clock, written one unordered bulk write per batch and collection, by one writer and by as many side by side
//    as the projector consumes partitions at once, or the counts --writers names; the best counts).
// Prints the three and projector / min(raw consume, raw store), and the peak resident memory of
// each process: the projector, this bench, and the stack's Kafka and MongoDB. The raw store writes
// the projector's own batches (it logs each at debug level: 'batch written'), so that the two write
// the same documents whatever the projector's fetch size; beside the rates, in the same run:
// document writes per event, mongod's CPU per written document (read from /proc before and after
// each phase) projector ÷ raw, and the projector process's own CPU per event.
// --fetch-mib 1,8 runs the projector (and the raw writes of its batches) once per fetch size per
// partition (OSSN_FETCH_MAX_BYTES_PER_PARTITION, in MiB), side by side; the default is the projector's own.
// --base <checkout> then runs another checkout's `ossn projector` (the version a change started
// from, its dependencies installed) over the same topic, with its own defaults: its events/s,
// document writes per event (counted by mongod's opcounters, as it logs no batches; this
// checkout's are counted both ways beside), mongod's CPU per document and the projector's own
// CPU per event, beside this checkout's.
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
import { sampleCpu, type WatchedCpu } from './support/cpu.js';
import { defaultFetchMaxBytes, defaultFetchMaxBytesPerPartition } from '../services/config/config.js';
import { loadavg } from 'node:os';
import { resultsDir, writeResults } from './support/results.js';
import { ossnEntry } from './support/ossn-entry.js';

const { values } = parseArgs({
  options: { events: { type: 'string' }, partitions: { type: 'string' }, writers: { type: 'string' }, cluster: { type: 'boolean' }, 'fetch-mib': { type: 'string' }, base: { type: 'string' } },
});
const onCluster = values.cluster === true;
const eventCount = Number(values.events ?? process.env.BENCH_EVENTS ?? 100_000);
const partitions = Number(values.partitions ?? 6);
const writerCounts = (values.writers ?? `1,${defaultPartitionsConsumedConcurrently}`).split(',').map(Number);
const fetchMiBs = (values['fetch-mib'] ?? String(defaultFetchMaxBytesPerPartition / 2 ** 20)).split(',').map(Number);
for (const n of [eventCount, partitions, ...writerCounts, ...fetchMiBs]) {
  if (!Number.isInteger(n) || n < 1) throw new Error(`--events, --partitions, --writers and --fetch-mib take whole numbers of at least 1, got ${n}`);
}
if (onCluster && values.base !== undefined) throw new Error('--base measures on the one-member stack; leave out --cluster');
const baseEntry = values.base === undefined ? undefined : ossnEntry(values.base);
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

/** One projector run (one fetch size) and the raw store writes of its batches. */
interface FetchRun {
  fetchMiBPerPartition: number;
  batches: number;
  documents: number;
  documentsPerEvent: number;
  storeEventsPerSecond: number;
  storeDocumentsPerSecond: number;
  /** Events/s of each writer count of storeWriters. */
  storeEventsPerSecondByWriters: number[];
  projectorEventsPerSecond: number;
  ratio: number;
  /** mongod's CPU per written document (µs): the projector's phase, the raw store's best, and their ratio. */
  mongodMicrosPerDocument: { projector: number; raw: number; ratio: number };
  /** The projector process's own CPU per event (µs): all its threads, and its main thread alone. */
  projectorMicrosPerEvent: { total: number; mainThread: number };
}

/** Another checkout's projector (--base), its writes counted by mongod. */
interface BaseRun {
  checkout: string;
  projectorEventsPerSecond: number;
  documents: number;
  documentsPerEvent: number;
  mongodMicrosPerDocument: { projector: number; raw: number; ratio: number };
  projectorMicrosPerEvent: { total: number; mainThread: number };
  /** This checkout's last run: documents by its 'batch written' lines and by mongod's opcounters. */
  countedHere: { byBatches: number; byOpcounters: number };
}

interface Figures extends Omit<FetchRun, 'fetchMiBPerPartition'> {
  events: number;
  consumeEventsPerSecond: number;
  storeWriters: number[];
  /** Every fetch size's run; the figures above are the last one's. */
  runs: FetchRun[];
  /** The --base checkout's projector over the same topic, with the last run's raw store figures. */
  base?: BaseRun;
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

  // Every message by partition and offset: the projector's batches are cut out of them.
  const byPosition = new Map<number, Map<string, SourceMessage>>();
  for (const batch of consumed.batches) {
    for (const message of batch) {
      if (!byPosition.has(message.partition)) byPosition.set(message.partition, new Map());
      byPosition.get(message.partition)?.set(message.offset, message);
    }
  }
  const consumeRate = total / consumed.seconds;
  const mongods: WatchedCpu[] = target.servers.filter((server) => server.name.startsWith('mongo') && server.pid !== undefined).map((server) => ({ name: server.name, pid: server.pid as number }));
  const mongodSeconds = () => Object.values(sampleCpu(mongods).total).reduce((sum, seconds) => sum + seconds, 0);
  /**
   * Insert and update statements the server has run so far, all clients' (a projector that logs no
   * batches is counted this way: each of its statements writes one document; nothing else writes meanwhile).
   */
  const mongodWrites = async () => {
    const { opcounters } = (await mongo.db('admin').command({ serverStatus: 1 })) as { opcounters: { insert: number; update: number } };
    return opcounters.insert + opcounters.update;
  };

  /** A batch as the projector wrote it (its 'batch written' debug line). */
  interface WrittenBatch {
    partition: number;
    firstOffset: string;
    lastOffset: string;
    documents: number;
  }

  /**
   * `ossn projector` over the topic into a fresh database: the seconds from its 'projector consuming'
   * line (connected, about to join its group) until the group has committed every event, its
   * batches, the documents mongod counts written, and the CPU it and mongod spent meanwhile. Its
   * log goes to bench/results/projector-process.log. Without a fetch size it fetches its default.
   */
  async function timeProjectorProcess(database: string, group: string, fetchMiB: number | undefined, entry = ossnEntry()) {
    // Without a fetch size, none from this process's environment either: the projector's own defaults.
    const { OSSN_FETCH_MAX_BYTES_PER_PARTITION: _perPartition, OSSN_FETCH_MAX_BYTES: _perFetch, ...inherited } = process.env;
    const fetchSizes =
      fetchMiB === undefined
        ? {}
        : {
            OSSN_FETCH_MAX_BYTES_PER_PARTITION: String(fetchMiB * 2 ** 20),
            OSSN_FETCH_MAX_BYTES: String(Math.max(defaultFetchMaxBytes, fetchMiB * 2 ** 20 * partitions)),
          };
    const child = spawn(process.execPath, [entry, 'projector'], {
      env: {
        ...inherited,
        KAFKA_BROKERS: env.KAFKA_BROKERS,
        MONGODB_URI: env.MONGODB_URI,
        MONGODB_DATABASE: database,
        OSSN_TOPIC: topic,
        OSSN_TOPIC_PARTITIONS: String(partitions),
        OSSN_CONSUMER_GROUP: group,
        OSSN_METRICS_PORT: '0',
        ...fetchSizes,
        // 'batch written', one line a batch: what the raw store writes again.
        LOG_LEVEL: 'debug',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pid = child.pid as number;
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    memory.watch({ name: 'projector', pid });
    const logName = `projector-process${target.name ? `-${target.name}` : ''}.log`;
    const log = createWriteStream(resolve(resultsDir, logName));
    child.stderr.pipe(log, { end: false });
    let started = 0;
    let cpuAtStart = { projector: 0, projectorMain: 0, mongod: 0 };
    let writesAtStart = 0;
    const batches: WrittenBatch[] = [];
    const consuming = new Promise<void>((ready, failed) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.includes('"batch written"')) {
          batches.push(JSON.parse(line) as WrittenBatch);
          return;
        }
        log.write(`${line}\n`);
        if (!started && line.includes('"projector consuming"')) {
          started = performance.now();
          const sample = sampleCpu([{ name: 'projector', pid }]);
          cpuAtStart = { projector: sample.total.projector ?? 0, projectorMain: sample.mainThread.projector ?? 0, mongod: mongodSeconds() };
          // Counted from the same mark as the CPU: it has joined no group yet, so written nothing.
          mongodWrites().then((writes) => {
            writesAtStart = writes;
            ready();
          }, failed);
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
      const seconds = (performance.now() - started) / 1000;
      const sample = sampleCpu([{ name: 'projector', pid }]);
      const cpu = {
        projector: (sample.total.projector ?? 0) - cpuAtStart.projector,
        projectorMain: (sample.mainThread.projector ?? 0) - cpuAtStart.projectorMain,
        mongod: mongodSeconds() - cpuAtStart.mongod,
      };
      return { seconds, batches, cpu, writes: (await mongodWrites()) - writesAtStart };
    } finally {
      memory.forget('projector');
      child.kill('SIGTERM');
      const code = await exited;
      log.end();
      if (code !== 0) say(`ossn projector exited with code ${code}`);
    }
  }

  type RawDocument = Document & { _id: string };
  const upsert = (doc: Document & { clientId: string; salesOrderNumber: string }): AnyBulkWriteOperation<RawDocument> => ({
    replaceOne: { filter: { _id: documentId(doc.clientId, doc.salesOrderNumber) }, replacement: doc, upsert: true },
  });
  type RawWrites = { orderStatus: AnyBulkWriteOperation<RawDocument>[]; shipments: AnyBulkWriteOperation<RawDocument>[] };

  /**
   * Outside the clock: each of the projector's batches folded onto the states before it, from
   * memory (the projector keeps or reads them), into the documents the projector writes, per partition.
   */
  function foldBatches(written: WrittenBatch[]): { writesByPartition: Map<number, RawWrites[]>; documents: number } {
    let states: LoadedStates = { orderStatus: new Map(), shipments: new Map() };
    const writesByPartition = new Map<number, RawWrites[]>();
    let documents = 0;
    for (const { partition, firstOffset, lastOffset } of written) {
      const messages = byPosition.get(partition) as Map<string, SourceMessage>;
      const items = [];
      for (let offset = BigInt(firstOffset); offset <= BigInt(lastOffset); offset++) {
        const message = messages.get(String(offset));
        const parsed = message && parseErpEvent(message.value ?? '');
        if (parsed?.ok) items.push({ event: parsed.event, source: message });
      }
      const folded = projectBatch(states, items);
      const { effects } = folded;
      states = folded.states;
      const writes = {
        orderStatus: effects.orderStatus.map((c) => upsert({ ...c.after, changedAt: new Date() })),
        shipments: effects.shipments.map((c) => upsert({ ...c.after, lastNewsAt: new Date() })),
      };
      documents += writes.orderStatus.length + writes.shipments.length;
      writesByPartition.set(partition, [...(writesByPartition.get(partition) ?? []), writes]);
    }
    return { writesByPartition, documents };
  }

  /** One unordered bulk write of a batch's documents, as the projector writes them (see writes.ts). */
  async function bulkUpsert(collection: Collection<RawDocument>, ops: AnyBulkWriteOperation<RawDocument>[]) {
    if (ops.length > 0) await collection.bulkWrite(ops, { ordered: false });
  }
  /**
   * On the clock: partitions' batches written by `lanes` writers side by side, each partition's
   * batches in order and both collections of a batch at once, into a fresh database. Returns the
   * milliseconds and mongod's CPU seconds.
   */
  async function timeRawUpserts(lanes: number, writesByPartition: Map<number, RawWrites[]>, documents: number): Promise<{ ms: number; mongodCpu: number }> {
    const db = mongo.db(`bench_raw_${run}_${lanes}`);
    await ensureIndexes(readModelCollections(db, 1));
    const names = collectionNames(1);
    const raw = { orderStatus: db.collection<RawDocument>(names.orderStatus), shipments: db.collection<RawDocument>(names.shipments) };
    const queue = [...writesByPartition.values()];
    let written = 0;
    const progress = setInterval(() => say(`  raw store, ${lanes} writer${lanes > 1 ? 's' : ''}: ${written} of ${documents} documents written`), 60_000);
    const cpuBefore = mongodSeconds();
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
    const mongodCpu = mongodSeconds() - cpuBefore;
    await db.dropDatabase();
    return { ms, mongodCpu };
  }

  const runs: FetchRun[] = [];
  let lastWritesCounted = 0;
  for (const fetchMiB of fetchMiBs) {
    say(`projector: ossn projector in its own process, fetching ${fetchMiB} MiB a partition`);
    const projectedDatabase = `bench_projector_${run}_${fetchMiB}`;
    const projected = await timeProjectorProcess(projectedDatabase, `bench-projector-${run}-${fetchMiB}`, fetchMiB);
    await mongo.db(projectedDatabase).dropDatabase();
    const projectorDocuments = projected.batches.reduce((sum, b) => sum + b.documents, 0);
    lastWritesCounted = projected.writes;
    say(`projector took ${projected.seconds.toFixed(1)} s, ${projected.batches.length} batches; raw store bulk upserts of its batches`);
    const { writesByPartition, documents } = foldBatches(projected.batches);
    if (documents !== projectorDocuments) say(`  the raw fold makes ${documents} documents of the projector's batches, the projector wrote ${projectorDocuments}`);
    // The store's best over the writer counts asked for.
    const rawRuns: { ms: number; mongodCpu: number }[] = [];
    for (const lanes of writerCounts) {
      say(`raw store: ${lanes} writer${lanes > 1 ? 's' : ''}`);
      rawRuns.push(await timeRawUpserts(lanes, writesByPartition, documents));
    }
    const writeMs = Math.min(...rawRuns.map((r) => r.ms));
    const storeRate = total / (writeMs / 1000);
    const projectorRate = total / projected.seconds;
    const mongodProjector = (projected.cpu.mongod / projectorDocuments) * 1e6;
    const mongodRaw = Math.min(...rawRuns.map((r) => (r.mongodCpu / documents) * 1e6));
    runs.push({
      fetchMiBPerPartition: fetchMiB,
      batches: projected.batches.length,
      documents: projectorDocuments,
      documentsPerEvent: projectorDocuments / total,
      storeEventsPerSecond: storeRate,
      storeDocumentsPerSecond: documents / (writeMs / 1000),
      storeEventsPerSecondByWriters: rawRuns.map((r) => total / (r.ms / 1000)),
      projectorEventsPerSecond: projectorRate,
      ratio: projectorRate / Math.min(consumeRate, storeRate),
      mongodMicrosPerDocument: { projector: mongodProjector, raw: mongodRaw, ratio: mongodProjector / mongodRaw },
      projectorMicrosPerEvent: { total: (projected.cpu.projector / total) * 1e6, mainThread: (projected.cpu.projectorMain / total) * 1e6 },
    });
  }

  let base: BaseRun | undefined;
  if (baseEntry !== undefined) {
    say(`projector: the --base checkout's ossn projector (${values.base}), its own fetch sizes`);
    const database = `bench_projector_${run}_base`;
    const projected = await timeProjectorProcess(database, `bench-projector-${run}-base`, undefined, baseEntry);
    await mongo.db(database).dropDatabase();
    const last = runs.at(-1) as FetchRun;
    const mongodProjector = (projected.cpu.mongod / projected.writes) * 1e6;
    base = {
      checkout: values.base as string,
      projectorEventsPerSecond: total / projected.seconds,
      documents: projected.writes,
      documentsPerEvent: projected.writes / total,
      mongodMicrosPerDocument: { projector: mongodProjector, raw: last.mongodMicrosPerDocument.raw, ratio: mongodProjector / last.mongodMicrosPerDocument.raw },
      projectorMicrosPerEvent: { total: (projected.cpu.projector / total) * 1e6, mainThread: (projected.cpu.projectorMain / total) * 1e6 },
      countedHere: { byBatches: last.documents, byOpcounters: lastWritesCounted },
    };
  }

  const peakRssMiB = memory.peaksMiB();
  memory.stop();

  await producer.close();
  await mongo.close();
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [topic, deadLetterTopic(topic)] }).catch(() => undefined);
  await admin.disconnect();
  const { fetchMiBPerPartition: _, ...last } = runs.at(-1) as FetchRun;
  return {
    ...last,
    events: total,
    consumeEventsPerSecond: consumeRate,
    storeWriters: writerCounts,
    runs,
    ...(base && { base }),
    // Sampled every second: the projector process, this bench (raw consume, folding, raw writes), the stack's servers.
    peakRssMiB,
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const memoryLine = (peaks: Record<string, number>) => Object.entries(peaks).map(([name, mib]) => `${name} ${mib.toFixed(0)}`).join(', ');

if (!onCluster) {
  const figures = await benchOn(oneMember);
  const { events: total, consumeEventsPerSecond: consumeRate, storeWriters: rawRuns } = figures;
  const runLines = figures.runs.flatMap((r) => [
    `fetching ${r.fetchMiBPerPartition} MiB a partition: ${r.batches} batches, ${r.documents} documents written, ${r.documentsPerEvent.toFixed(3)} document writes per event`,
    `  raw store bulk upserts (same docs): ${fmt(r.storeEventsPerSecond)} events/s (${fmt(r.storeDocumentsPerSecond)} documents/s; best of ${rawRuns
      .map((lanes, i) => `${lanes} writer${lanes > 1 ? 's' : ''}: ${fmt(r.storeEventsPerSecondByWriters[i]!)}`)
      .join(', ')} events/s)`,
    `  projector:                         ${fmt(r.projectorEventsPerSecond)} events/s; ratio projector / min(raw) ${r.ratio.toFixed(2)}`,
    `  mongod CPU per written document:   projector ${r.mongodMicrosPerDocument.projector.toFixed(0)} µs, raw ${r.mongodMicrosPerDocument.raw.toFixed(0)} µs, projector ÷ raw ${r.mongodMicrosPerDocument.ratio.toFixed(2)}`,
    `  projector's own CPU per event:     ${r.projectorMicrosPerEvent.total.toFixed(0)} µs (main thread ${r.projectorMicrosPerEvent.mainThread.toFixed(0)} µs)`,
  ]);
  const { base } = figures;
  const baseLines = base
    ? [
        `the --base checkout (${base.checkout}), its own fetch sizes: ${base.documents} documents written (mongod's count; this checkout's last run ${base.countedHere.byBatches} by its batches, ${base.countedHere.byOpcounters} by mongod's), ${base.documentsPerEvent.toFixed(3)} document writes per event`,
        `  projector:                         ${fmt(base.projectorEventsPerSecond)} events/s (this checkout ÷ base ${(figures.projectorEventsPerSecond / base.projectorEventsPerSecond).toFixed(2)})`,
        `  mongod CPU per written document:   projector ${base.mongodMicrosPerDocument.projector.toFixed(0)} µs, ÷ the raw ${base.mongodMicrosPerDocument.raw.toFixed(0)} µs above ${base.mongodMicrosPerDocument.ratio.toFixed(2)}`,
        `  projector's own CPU per event:     ${base.projectorMicrosPerEvent.total.toFixed(0)} µs (main thread ${base.projectorMicrosPerEvent.mainThread.toFixed(0)} µs)`,
      ]
    : [];
  process.stdout.write(
    [
      `events: ${total}; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`,
      `raw kafkajs consume (no-op):      ${fmt(consumeRate)} events/s`,
      ...runLines,
      ...baseLines,
      '',
    ].join('\n'),
  );
  process.stdout.write(`peak resident memory (MiB): ${memoryLine(figures.peakRssMiB)}\n`);
  const resultsFile = writeResults('projector', {
    events: total,
    documents: figures.documents,
    consumeEventsPerSecond: consumeRate,
    storeEventsPerSecond: figures.storeEventsPerSecond,
    storeWriters: rawRuns,
    projectorEventsPerSecond: figures.projectorEventsPerSecond,
    ratio: figures.ratio,
    runs: figures.runs,
    base: figures.base,
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
