// Each lookup's time in the store (MongoOrderLookups, one call at a time), p50 and p99, at order
// books of several sizes, measured in one run and printed (never asserted): with every lookup read
// through an index, the figure at the largest size should stay within twice the one at the
// smallest. getOrderStatusTypes reads no order (its answer is the standard's fixed table,
// queries.md): its row times the whole SOAP request through the real app in process (parsing, the
// credential, checked against that size's database once and then cached, the answer). Clients keep 300 sales orders each, so that an answer is the same size at every size
// and only the store's share can change.
//
// Data: demo sales orders folded by the projections and bulk-inserted as the store's documents
// (bench/support/seed.ts), one database per size, reused when already seeded.
// Run: npx tsx bench/lookups.ts      Settings: BENCH_SIZES (default 3000,30000,300000),
// BENCH_SAMPLES (per lookup and size, default 200), MONGODB_URI.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ensureStack } from '../scripts/stack/stack.js';
import type { ShipmentQuery, StatusQuery } from '../contracts/lookups.js';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Db } from 'mongodb';
import { CachingAuthenticator } from '../services/domain/credentials/authenticator.js';
import { CredentialStore, credentialsCollection } from '../services/adapters/mongodb/credential-store.js';
import { hashPassword } from '../services/domain/credentials/password-hash.js';
import { createLogger } from '../services/plumbing/logging/logger.js';
import { buildApp } from '../services/query/app.js';
import { ORDER_STATUS_PATH } from '../services/query/versions/1.0.0/soap/index.js';
import { statusTypesRequest } from '../test/support/soap-requests.js';
import { readShipmentsWhole } from '../test/support/read-shipments.js';
import { connectMongo } from '../services/adapters/mongodb/connect.js';
import { MongoOrderLookups } from '../services/adapters/mongodb/lookups.js';
import { clientId, ensureSeeded } from './support/seed.js';
import { resultsDir, storeDescription, writeResults } from './support/results.js';
import { quantile, timed } from './support/stats.js';
import { lineChart } from './support/svg-chart.js';

const SIZES = (process.env.BENCH_SIZES ?? '3000,30000,300000').split(',').map((n) => Number(n.trim()));
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const ORDERS_PER_CLIENT = 300;
/** A lookup stops sampling after this long, whatever SAMPLES says. */
const MAX_MS_PER_LOOKUP = 30_000;
const SEED = 7;

for (const size of SIZES) if (!Number.isInteger(size) || size < ORDERS_PER_CLIENT) throw new Error(`BENCH_SIZES: ${size} is not a whole number of at least ${ORDERS_PER_CLIENT}`);

const started = Date.now();
const say = (line: string) => console.log(`[${String(Math.round((Date.now() - started) / 1000)).padStart(4)} s] ${line}`);

/** What a lookup runs against: the store's lookups, and the real app in process over them. */
interface Subject {
  lookups: MongoOrderLookups;
  app: FastifyInstance;
  credential: { id: string; password: string };
}

/** One lookup as a partner makes it, for one sample of a client's numbers. */
interface Lookup {
  name: string;
  run: (subject: Subject, sample: Sample) => Promise<unknown[]>;
}

interface Sample {
  clientId: string;
  purchaseOrderNumber: string;
  salesOrderNumber: string;
}

const hour = 3_600_000;
const status = (query: (s: Sample) => StatusQuery) => ({ lookups }: Subject, s: Sample) => lookups.orderStatus([s.clientId], query(s));
const shipments = (query: (s: Sample) => ShipmentQuery) => ({ lookups }: Subject, s: Sample) => readShipmentsWhole(lookups, [s.clientId], query(s));

/** A SOAP getOrderStatusTypes request through the real app; its answer's status types. */
async function statusTypes({ app, credential }: Subject): Promise<unknown[]> {
  const payload = statusTypesRequest(credential);
  const response = await app.inject({ method: 'POST', url: ORDER_STATUS_PATH, payload, headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '"getOrderStatusTypes"' } });
  const types = response.body.match(/<Status>/g) ?? [];
  if (response.statusCode !== 200 || types.length === 0) throw new Error(`getOrderStatusTypes answered HTTP ${response.statusCode}: ${response.body.slice(0, 300)}`);
  return types;
}

const LOOKUPS: Lookup[] = [
  { name: 'status qT1 (purchase order)', run: status((s) => ({ queryType: 1, referenceNumber: s.purchaseOrderNumber })) },
  { name: 'status qT2 (sales order)', run: status((s) => ({ queryType: 2, referenceNumber: s.salesOrderNumber })) },
  // A poll 6 hours after the previous one; changes are spread over 30 days.
  { name: 'status qT3 (changes, 6 h)', run: status(() => ({ queryType: 3, statusTimeStamp: new Date(Date.now() - 6 * hour) })) },
  { name: 'status qT4 (open orders)', run: status(() => ({ queryType: 4 })) },
  { name: 'shipments qT1 (purchase order)', run: shipments((s) => ({ queryType: 1, referenceNumber: s.purchaseOrderNumber })) },
  { name: 'shipments qT2 (sales order)', run: shipments((s) => ({ queryType: 2, referenceNumber: s.salesOrderNumber })) },
  { name: 'shipments qT3 (shipped, 3 days)', run: shipments(() => ({ queryType: 3, shipmentDateTimeStamp: new Date(Date.now() - 72 * hour) })) },
  { name: 'status types (whole SOAP request)', run: statusTypes },
];

/** The real app over this database's lookups, with one credential for the sampled clients. */
async function subjectFor(db: Db, lookups: MongoOrderLookups, clientIds: string[]): Promise<Subject> {
  const credential = { id: 'bench-lookups', password: randomBytes(18).toString('base64url') };
  const store = new CredentialStore(credentialsCollection(db));
  await credentialsCollection(db).deleteOne({ _id: credential.id });
  await store.add({ id: credential.id, passwordHash: await hashPassword(credential.password), scopes: ['order_status', 'osn'], clientIds });
  const app = await buildApp({
    logger: createLogger('bench-lookups', 'warn'),
    publicBaseUrl: 'http://127.0.0.1',
    lookups,
    // Cached past the run: scrypt once per credential, as for a partner polling all day.
    authenticator: new CachingAuthenticator(store, { ttlMs: 6 * hour }),
  });
  await app.ready();
  return { lookups, app, credential };
}

interface Figure {
  lookup: string;
  size: number;
  samples: number;
  p50Ms: number;
  p99Ms: number;
  meanAnswerPurchaseOrders: number;
}

async function samplesOf(collections: Awaited<ReturnType<typeof ensureSeeded>>['collections'], clients: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let i = 0; samples.length < 100 && i < 400; i++) {
    const client = clientId((i * 7919) % clients);
    const docs = await collections.orderStatus.find({ clientId: client, purchaseOrderNumber: { $exists: true } }, { projection: { _id: 0, purchaseOrderNumber: 1, salesOrderNumber: 1 } }).limit(3).toArray();
    const doc = docs[i % Math.max(docs.length, 1)];
    if (doc?.purchaseOrderNumber) samples.push({ clientId: client, purchaseOrderNumber: doc.purchaseOrderNumber, salesOrderNumber: doc.salesOrderNumber });
  }
  if (samples.length === 0) throw new Error('no sales order with a purchase order number to look up');
  return samples;
}

async function measure(size: number, uri: string): Promise<Figure[]> {
  const mongo = await connectMongo(uri, 'bench-lookups');
  try {
    const clients = Math.round(size / ORDERS_PER_CLIENT);
    const seedStarted = Date.now();
    const seeded = await ensureSeeded(mongo.db(`ossn_bench_lookups_${size}`), { clients, orders: size, bigOrders: 0, seed: SEED }, (line) => say(`  ${line}`));
    say(`size ${size}: ${seeded.summary.statusDocuments} sales orders, ${seeded.summary.shipmentDocuments} shipment documents, ${clients} clients${seeded.reused ? ' (reused)' : ` (seeded in ${Math.round((Date.now() - seedStarted) / 1000)} s)`}`);
    const samples = await samplesOf(seeded.collections, clients);
    const subject = await subjectFor(mongo.db(`ossn_bench_lookups_${size}`), new MongoOrderLookups(seeded.collections), [...new Set(samples.map((s) => s.clientId))]);
    const figures: Figure[] = [];
    for (const lookup of LOOKUPS) {
      for (let i = 0; i < 5; i++) await lookup.run(subject, samples[i % samples.length]!); // warm-up
      const times: number[] = [];
      let answered = 0;
      const began = Date.now();
      for (let i = 0; i < SAMPLES && Date.now() - began < MAX_MS_PER_LOOKUP; i++) {
        const { ms, value } = await timed(() => lookup.run(subject, samples[i % samples.length]!));
        times.push(ms);
        answered += value.length;
      }
      times.sort((a, b) => a - b);
      const figure = { lookup: lookup.name, size, samples: times.length, p50Ms: quantile(times, 0.5), p99Ms: quantile(times, 0.99), meanAnswerPurchaseOrders: answered / times.length };
      say(`  ${lookup.name.padEnd(32)} p50 ${figure.p50Ms.toFixed(2).padStart(8)} ms  p99 ${figure.p99Ms.toFixed(2).padStart(8)} ms  (${figure.samples} calls, ${figure.meanAnswerPurchaseOrders.toFixed(1)} ${lookup.run === statusTypes ? "status types" : "purchase orders"} an answer)`);
      figures.push(figure);
    }
    await subject.app.close();
    return figures;
  } finally {
    await mongo.close();
  }
}

function table(figures: Figure[]): string {
  const sizes = [...new Set(figures.map((f) => f.size))];
  const smallest = Math.min(...sizes);
  const largest = Math.max(...sizes);
  const header = `| lookup | ${sizes.map((s) => `p50 / p99 at ${s.toLocaleString('en-US')} (ms)`).join(' | ')} | p50 at ${largest.toLocaleString('en-US')} ÷ at ${smallest.toLocaleString('en-US')} |`;
  const rows = LOOKUPS.map((l) => {
    const of = (size: number) => figures.find((f) => f.lookup === l.name && f.size === size);
    const cells = sizes.map((size) => {
      const f = of(size);
      return f ? `${f.p50Ms.toFixed(2)} / ${f.p99Ms.toFixed(2)}` : '—';
    });
    const ratio = (of(largest)?.p50Ms ?? NaN) / (of(smallest)?.p50Ms ?? NaN);
    return `| ${l.name} | ${cells.join(' | ')} | ${ratio.toFixed(2)} ${ratio <= 2 ? '(≤ 2: met)' : '(> 2: NOT met)'} |`;
  });
  return [header, `| --- | ${sizes.map(() => '---').join(' | ')} | --- |`, ...rows].join('\n');
}

async function main(): Promise<void> {
  const uri = process.env.MONGODB_URI || (await ensureStack({ log: (line) => say(`stack: ${line}`) })).MONGODB_URI;
  say(`store: ${uri.replace(/\/\/[^@/]*@/, '//***@')}; sizes ${SIZES.join(', ')}; ${SAMPLES} calls per lookup and size`);
  const figures: Figure[] = [];
  for (const size of SIZES) figures.push(...(await measure(size, uri)));

  const markdown = table(figures);
  console.log('\n==== bench/lookups.ts results: time in the store, one call at a time ====');
  console.log(markdown);
  const file = writeResults('lookups', { store: await storeDescription(uri), ordersPerClient: ORDERS_PER_CLIENT, figures, table: markdown });
  const chart = lineChart(
    'Lookup time in the store (p50) against the order book',
    'sales orders in the store',
    'p50 ms (log)',
    LOOKUPS.map((l) => ({ name: l.name, points: figures.filter((f) => f.lookup === l.name).map((f) => ({ x: f.size, y: f.p50Ms })) })),
  );
  writeFileSync(resolve(resultsDir, 'lookups.svg'), chart);
  console.log(`figures in ${file}, chart in ${resolve(resultsDir, 'lookups.svg')}; total ${Math.round((Date.now() - started) / 1000)} s`);
}

await main();
