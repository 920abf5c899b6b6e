// npm run bench:guard-writes [-- --events N] [--batch N] [--rounds N]
// Where the projector's sequence guard costs mongod least: the same folded batches (the demo
// events, N of them, folded in batches of --batch events onto the states before them, outside
// the clock) written into a fresh database by each of
//  - raw:            replaceOne {_id} upserts of the whole documents, no guard, no server times;
//  - filter:         writeEffects with the guard in the filter {_id, sequence} (as before 2026-12);
//  - filter-hinted:  the same, hinted to the _id index;
//  - update:         writeEffects with an _id-only filter and the guard in the update pipeline's $cond;
//  - a/b:            order status documents guarded as a, shipments documents as b;
// in interleaved rounds, reading the stack's mongod CPU time from /proc before and after each.
// Prints mongod CPU µs per written document (best of the rounds) and each ÷ raw.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { AnyBulkWriteOperation, Collection, Document } from 'mongodb';
import { generateDemoEvents } from '../services/ossn/demo-events/demo-events.js';
import { ensureStack, stackStatus } from '../scripts/stack/stack.js';
import { connectMongo } from '../services/adapters/mongodb/connect.js';
import { documentId, ensureIndexes, readModelCollections } from '../services/adapters/mongodb/documents.js';
import { writeEffects, type GuardPlacement } from '../services/adapters/mongodb/writes.js';
import { projectBatch } from '../services/projector/project-batch.js';
import type { BatchEffects, LoadedStates } from '../projections/batch.js';
import { sampleCpu } from './support/cpu.js';
import { writeResults } from './support/results.js';

const { values } = parseArgs({ options: { events: { type: 'string' }, batch: { type: 'string' }, rounds: { type: 'string' } } });
const eventCount = Number(values.events ?? 40_000);
const batchSize = Number(values.batch ?? 2_000);
const rounds = Number(values.rounds ?? 3);
for (const n of [eventCount, batchSize, rounds]) if (!Number.isInteger(n) || n < 1) throw new Error(`--events, --batch and --rounds take whole numbers of at least 1, got ${n}`);

const env = await ensureStack();
const mongod = (await stackStatus()).find((s) => s.name === 'mongodb')?.pid;
if (mongod === undefined) throw new Error("the stack's mongod is not running (npm run stack:status)");
const mongo = await connectMongo(env.MONGODB_URI, 'bench-guard-writes');

// Outside the clock: the batches folded onto the states before them, as the projector folds.
const perClient = Math.ceil(eventCount / 9 / 50) + 1;
const events = generateDemoEvents({ clients: 50, orders: perClient, seed: 42 }).slice(0, eventCount);
let states: LoadedStates = { orderStatus: new Map(), shipments: new Map() };
const batches: BatchEffects[] = [];
let documents = 0;
let updates = 0;
for (let i = 0; i < events.length; i += batchSize) {
  const folded = projectBatch(states, events.slice(i, i + batchSize).map((event) => ({ event, source: undefined })));
  states = folded.states;
  batches.push(folded.effects);
  for (const changes of [folded.effects.orderStatus, folded.effects.shipments]) {
    documents += changes.length;
    updates += changes.filter((c) => c.before).length;
  }
}

// 'a/b': order status documents guarded as a, shipments documents as b.
type Variant = 'raw' | GuardPlacement | `${GuardPlacement}/${GuardPlacement}`;
const variants: Variant[] = ['raw', 'filter', 'filter-hinted', 'update', 'update/filter', 'filter/update'];
type Raw = Document & { _id: string };
const replace = (doc: Document & { clientId: string; salesOrderNumber: string }): AnyBulkWriteOperation<Raw> => ({
  replaceOne: { filter: { _id: documentId(doc.clientId, doc.salesOrderNumber) }, replacement: doc, upsert: true },
});

async function writeAll(variant: Variant, database: string): Promise<void> {
  const collections = readModelCollections(mongo.db(database), 1);
  await ensureIndexes(collections);
  for (const effects of batches) {
    if (variant === 'raw') {
      const statuses = effects.orderStatus.map((c) => replace({ ...c.after, changedAt: new Date() }));
      const shipments = effects.shipments.map((c) => replace({ ...c.after, lastNewsAt: new Date() }));
      await Promise.all([
        statuses.length > 0 ? (collections.orderStatus as unknown as Collection<Raw>).bulkWrite(statuses, { ordered: false }) : undefined,
        shipments.length > 0 ? (collections.shipments as unknown as Collection<Raw>).bulkWrite(shipments, { ordered: false }) : undefined,
      ]);
    } else {
      const [status, shipments] = (variant.includes('/') ? variant.split('/') : [variant, variant]) as GuardPlacement[];
      await Promise.all([
        writeEffects(collections, { orderStatus: effects.orderStatus, shipments: [] }, undefined, status),
        writeEffects(collections, { orderStatus: [], shipments: effects.shipments }, undefined, shipments),
      ]);
    }
  }
}

const perDocument = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
const seconds = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
process.stderr.write(`bench: ${events.length} events in ${batches.length} batches: ${documents} document writes (${updates} updates); load ${loadavg().map((n) => n.toFixed(2)).join(' ')}\n`);
for (let round = 0; round < rounds; round++) {
  for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
    const database = `bench_guard_${variant.replace(/\W/g, '_')}_${process.pid}`;
    await mongo.db(database).dropDatabase();
    const before = sampleCpu([{ name: 'mongod', pid: mongod }]).total.mongod ?? 0;
    const started = performance.now();
    await writeAll(variant, database);
    const took = (performance.now() - started) / 1000;
    const cpu = (sampleCpu([{ name: 'mongod', pid: mongod }]).total.mongod ?? 0) - before;
    perDocument[variant].push((cpu / documents) * 1e6);
    seconds[variant].push(took);
    process.stderr.write(`bench: round ${round + 1} ${variant}: ${((cpu / documents) * 1e6).toFixed(0)} µs mongod CPU per document, ${took.toFixed(1)} s\n`);
    await mongo.db(database).dropDatabase();
  }
}
await mongo.close();

const best = (xs: number[]) => Math.min(...xs);
const raw = best(perDocument.raw);
const lines = variants.map(
  (v) => `${v.padEnd(15)} ${best(perDocument[v]).toFixed(0).padStart(5)} µs mongod CPU per document  ÷ raw ${(best(perDocument[v]) / raw).toFixed(2)}  (${best(seconds[v]).toFixed(1)} s best)`,
);
process.stdout.write(`${events.length} events, ${documents} document writes (${updates} updates), best of ${rounds} interleaved rounds; load ${loadavg().map((n) => n.toFixed(2)).join(' ')}\n${lines.join('\n')}\n`);
const file = writeResults('guard-writes', {
  events: events.length,
  batchEvents: batchSize,
  documents,
  updates,
  rounds,
  mongodCpuMicrosPerDocument: Object.fromEntries(variants.map((v) => [v, perDocument[v]])),
  seconds,
});
process.stdout.write(`figures in ${file}\n`);
