// What the SOAP layer costs on top of the store, measured in one run and printed (never asserted):
//
//  (a) requests/second of SOAP getOrderStatusDetails queryType 1 through the real app over HTTP
//      (buildApp with MongoOrderLookups and CachingAuthenticator: XML parsing, credential check,
//      lookup, XML answer), and
//  (b) requests/second of a bare Fastify route running the same store query
//      (MongoOrderLookups.orderStatus for the same credential's clients and purchase orders) and
//      answering raw JSON: the limit. Printed with the ratio a/b (target >= 0.8).
//      Interleaved rounds (the order alternates), medians reported. The load comes from a worker
//      thread (keep-alive HTTP/1.1 over loopback, bounded concurrency); the servers share the main
//      thread. The authenticator cache (keyed per credential) is warmed before measuring and its
//      TTL outlasts the run, so scrypt runs once per credential, not per request; the number of
//      credential-store reads during the measured rounds is printed to show it.
//      Then (a)/(b) once more on a small store, where the store query costs what an indexed
//      lookup would: it shows the SOAP layer's own cost, which a slow store query hides.
//  (c) the server time of a 5,000-purchase-order answer: one client with more than 5,000 open
//      purchase orders, getOrderStatusDetails queryType 4 as SOAP vs the same data as JSON, with
//      the lookup and the serialization timed apart, plus both over HTTP through the real app
//      (SOAP and the JSON endpoint /api/partners/v1/orders/status).
//  (e) 2.0.0 beside 1.0.0: requests/second of SOAP getOrderStatus poSearch (OSS 2.0.0, issues and
//      product lines asked for) and of getOrderStatusDetails queryType 1 (OSS 1.0.0) for the same
//      purchase orders through the same app and read models, interleaved rounds; printed with the
//      ratio 2.0.0 / 1.0.0.
//
//  (f) the largest shipments answer (queryType 3 from long ago for CLIENT-BIG) sent as it is read
//      beside the same answer read whole before its first byte (the lookups' batches collected
//      first: how every answer was sent before), SOAP and JSON, 1.0.0 and 2.0.0 (JSON v1 and v2),
//      alternating: time to the first byte and to the last (curl, another process), and the
//      server's time per package, each version's figures beside the other's.
//
// Data: demo sales orders (default 50 clients, 100,000 sales orders, plus CLIENT-BIG for (c)),
// folded by the projections and bulk-inserted as the store's documents into the local stack's
// MongoDB-protocol server (ensureStack), or MONGODB_URI when set. A database already seeded with
// the same parameters is reused.
//
// Run: npx tsx bench/soap.ts     Quick: BENCH_ORDERS=5000 BENCH_BIG_ORDERS=2000 npx tsx bench/soap.ts
// BENCH_ONLY=largest runs (d) and (f) alone. BENCH_BASE=<checkout> (another checkout of ossn, its
// dependencies installed: the version a change started from) adds to (f) that checkout's `ossn serve`
// and this one's, each its own process over the same store, their first and last bytes side by side.
// Settings (environment): BENCH_ONLY, BENCH_CLIENTS, BENCH_ORDERS, BENCH_BIG_ORDERS, BENCH_SMALL_ORDERS (0: skip
// the small store), BENCH_ROUNDS, BENCH_CONCURRENCY, BENCH_ROUND_SECONDS, BENCH_REQUESTS (fixed
// requests per round and side), BENCH_BIG_RUNS, BENCH_LINKED_CLIENTS, BENCH_LOG_LEVEL, BENCH_DB (database
// name; the small store is <name>_small), MONGODB_URI.
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Db } from 'mongodb';
import { ensureStack } from '../scripts/stack/stack.js';
import type { LogLevel } from '../services/config/config.js';
import { CachingAuthenticator } from '../services/domain/credentials/authenticator.js';
import { CredentialStore, credentialsCollection } from '../services/adapters/mongodb/credential-store.js';
import { hashPassword } from '../services/domain/credentials/password-hash.js';
import { createLogger } from '../services/plumbing/logging/logger.js';
import { execFile, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { cappedInOneBatch, inOneBatch, readWhole, type OrderLookups, type OrderLookupsV2, type OrderStatusV2Query, type ShipmentQuery, type StatusQuery } from '../contracts/lookups.js';
import { orderStatusDetailsPayload } from '../services/query/versions/1.0.0/soap/order-status-tree.js';
import { renderEnvelope } from '../services/query/protocol/soap/envelope.js';
import { AnswerChunks } from '../services/query/http/answer-chunks.js';
import { orderStatusJson } from '../services/query/versions/1.0.0/json/answer-body.js';
import { ORDER_STATUS_JSON_PATH, SHIPMENTS_JSON_PATH } from '../services/query/versions/1.0.0/json/plugin.js';
import { ORDER_STATUS_PATH, SHIPMENT_NOTIFICATION_PATH } from '../services/query/versions/1.0.0/soap/index.js';
import { ORDER_STATUS_V2_URL, osnV2Request, ossV2Request, SHIPMENT_V2_URL, shipmentRequest, statusDetailsRequest } from '../test/support/soap-requests.js';
import { readShipmentsWhole } from '../test/support/read-shipments.js';
import { SHIPMENTS_JSON_V2_PATH } from '../services/query/versions/2.0.0/json/plugin.js';
import { connectMongo } from '../services/adapters/mongodb/connect.js';
import type { ReadModelCollections } from '../services/adapters/mongodb/documents.js';
import { MongoOrderLookups } from '../services/adapters/mongodb/lookups.js';
import { maxPurchaseOrdersPerAnswer } from '../projections/lookups/purchase-order-groups.js';
import { startRealApp, type RealApp } from '../test/clients/real-app.js';
import { TimedLookups } from './support/timed-lookups.js';
import { failureCount, LoadGenerator, rate, type LoadRequest, type LoadResult } from './support/load.js';
import { BIG_CLIENT, clientId, ensureSeeded, seededReadModelVersion, type SeedSummary } from './support/seed.js';
import { resultsDir, storeDescription, writeResults } from './support/results.js';
import { ossnEntry } from './support/ossn-entry.js';
import { startOssnProcess } from './support/ossn-process.js';
import { median, mib, ms, quantile, timed } from './support/stats.js';

// ---- settings

function integer(name: string, fallback: number, min = 0): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got '${raw}'`);
  return value;
}

const CLIENTS = integer('BENCH_CLIENTS', 50, 1);
const ORDERS = integer('BENCH_ORDERS', 100_000, 1);
// About a quarter of a client's sales orders make an open purchase order: 24,000 give > 5,000.
const BIG_ORDERS = integer('BENCH_BIG_ORDERS', 24_000);
const SMALL_ORDERS = integer('BENCH_SMALL_ORDERS', 400);
const ROUNDS = integer('BENCH_ROUNDS', 5, 1);
const CONCURRENCY = integer('BENCH_CONCURRENCY', 4, 1);
const ROUND_SECONDS = integer('BENCH_ROUND_SECONDS', 8, 1);
const FIXED_REQUESTS = process.env.BENCH_REQUESTS ? integer('BENCH_REQUESTS', 0, 1) : undefined;
const BIG_RUNS = integer('BENCH_BIG_RUNS', 5, 1);
const LINKED_CLIENTS = Math.min(integer('BENCH_LINKED_CLIENTS', 2, 1), CLIENTS);
const DATABASE = process.env.BENCH_DB || 'ossn_bench_soap';
const ONLY_LARGEST = process.env.BENCH_ONLY === 'largest';
const LOG_LEVEL = (process.env.BENCH_LOG_LEVEL ?? 'warn') as LogLevel;
const BASE = process.env.BENCH_BASE || undefined;
const SEED = 42;
/** Before every seeded change and shipment: a partner's first poll. */
const LONG_AGO = '2024-01-01T00:00:00Z';
const LARGEST_ANSWER_TARGET_MS = 200;
/** Issue 31's targets for the largest shipments answer sent as it is read. */
const FIRST_BYTE_TARGET_MS = 200;
const PER_PACKAGE_TARGET_US = 15;
/** Longer than any run: the authenticator never goes back to scrypt while measuring. */
const AUTH_CACHE_TTL_MS = 6 * 3_600_000;

const execFileAsync = promisify(execFile);
const started = Date.now();
const say = (line: string) => console.log(`[${String(Math.round((Date.now() - started) / 1000)).padStart(4)} s] ${line}`);
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

// ---- the two servers

interface Credential {
  id: string;
  password: string;
  clientIds: string[];
}

interface Stage {
  real: RealApp;
  /** The same app but its lookups read a whole answer before sending its first byte (ReadWhole). */
  whole: RealApp;
  bare: { app: FastifyInstance; url: string };
  lookups: TimedLookups;
  /** Server-side time (Fastify's reply.elapsedTime) of each answer since the last reset, per server. */
  serverMs: { real: number[]; bare: number[]; whole: number[] };
  /** Beside each server time: the duration of the latest lookup call (the request's own when one runs at a time). */
  lookupMs: { real: number[]; bare: number[] };
  /** Reads of the credential store by the authenticator: each is one scrypt verification. */
  credentialReads(): number;
  close(): Promise<void>;
}

async function resetCredentials(db: Db, credentials: Credential[]): Promise<void> {
  const store = new CredentialStore(credentialsCollection(db));
  await credentialsCollection(db).deleteMany({ _id: { $in: credentials.map((c) => c.id) } });
  for (const c of credentials) {
    await store.add({ id: c.id, passwordHash: await hashPassword(c.password), scopes: ['order_status', 'osn'], clientIds: c.clientIds });
  }
}

async function startStage(db: Db, collections: ReadModelCollections, credentials: Credential[]): Promise<Stage> {
  // Both servers run MongoOrderLookups; the wrapper only times its calls.
  const lookups = new TimedLookups(new MongoOrderLookups(collections));
  const store = new CredentialStore(credentialsCollection(db));
  let reads = 0;
  const authenticator = new CachingAuthenticator(
    {
      find: (id: string) => {
        reads++;
        return store.find(id);
      },
    },
    { ttlMs: AUTH_CACHE_TTL_MS },
  );
  const serverMs = { real: [] as number[], bare: [] as number[], whole: [] as number[] };
  const lookupMs = { real: [] as number[], bare: [] as number[] };

  const real = await startRealApp(
    {
      logger: createLogger('bench-soap', LOG_LEVEL),
      lookups,
      lookupsV2: new MongoOrderLookups(collections),
      authenticator,
    },
    {
      configure: (app) => {
        app.addHook('onResponse', async (_request, reply) => {
          serverMs.real.push(reply.elapsedTime);
          lookupMs.real.push(lookups.lastMs);
        });
      },
    },
  );

  const readWhole = new ReadWhole(new MongoOrderLookups(collections));
  const whole = await startRealApp(
    { logger: createLogger('bench-soap-whole', LOG_LEVEL), lookups: readWhole, lookupsV2: readWhole, authenticator },
    {
      configure: (app) => {
        app.addHook('onResponse', async (_request, reply) => void serverMs.whole.push(reply.elapsedTime));
      },
    },
  );

  // The limit: the same lookup for the same credential's clients, answered as JSON, nothing else.
  const clientsOf = new Map(credentials.map((c) => [c.id, c.clientIds]));
  const bareApp = Fastify({ loggerInstance: createLogger('bench-bare', LOG_LEVEL) as FastifyBaseLogger });
  bareApp.addHook('onResponse', async (_request, reply) => {
    serverMs.bare.push(reply.elapsedTime);
    lookupMs.bare.push(lookups.lastMs);
  });
  bareApp.get<{ Querystring: { as: string; queryType: string; referenceNumber?: string } }>('/bare/order-status', async (request) => {
    const query: StatusQuery = { queryType: Number(request.query.queryType), referenceNumber: request.query.referenceNumber };
    return lookups.orderStatus(clientsOf.get(request.query.as) ?? [], query);
  });
  const bareUrl = await bareApp.listen({ host: '127.0.0.1', port: 0 });

  return {
    real,
    whole,
    bare: { app: bareApp, url: bareUrl },
    lookups,
    serverMs,
    lookupMs,
    credentialReads: () => reads,
    async close() {
      await real.close();
      await whole.close();
      await bareApp.close();
    },
  };
}

// ---- requests

const SOAP_HEADERS = { 'content-type': 'text/xml; charset=utf-8', soapaction: '"getOrderStatusDetails"' };

function soapRequest(credential: Credential, queryType: number, referenceNumber?: string): LoadRequest {
  const body = statusDetailsRequest({ id: credential.id, password: credential.password, queryType: String(queryType), referenceNumber, statusTimeStamp: LONG_AGO });
  return { method: 'POST', path: ORDER_STATUS_PATH, body, headers: SOAP_HEADERS };
}

const SOAP_V2_HEADERS = { 'content-type': 'text/xml; charset=utf-8', soapaction: '"getOrderStatus"' };

function soapV2Request(credential: Credential, purchaseOrder: string): LoadRequest {
  const body = ossV2Request('GetOrderStatusRequest', {
    id: credential.id,
    password: credential.password,
    queryType: 'poSearch',
    referenceNumber: purchaseOrder,
    returnIssueDetailType: 'allIssues',
    returnProductDetail: 'true',
  });
  return { method: 'POST', path: ORDER_STATUS_V2_URL, body, headers: SOAP_V2_HEADERS };
}

function jsonRequest(credential: Credential, queryType: number, referenceNumber?: string): LoadRequest {
  const params = new URLSearchParams({ queryType: String(queryType), ...(referenceNumber === undefined ? {} : { referenceNumber }) });
  const authorization = `Basic ${Buffer.from(`${credential.id}:${credential.password}`).toString('base64')}`;
  return { method: 'GET', path: `${ORDER_STATUS_JSON_PATH}?${params}`, headers: { authorization } };
}

function bareRequest(credential: Credential, queryType: number, referenceNumber?: string): LoadRequest {
  const params = new URLSearchParams({ as: credential.id, queryType: String(queryType), ...(referenceNumber === undefined ? {} : { referenceNumber }) });
  return { method: 'GET', path: `/bare/order-status?${params}` };
}

/** One request each way, checked by hand before anything is measured. */
async function checkAnswers(stage: Stage, credential: Credential, po: string): Promise<void> {
  const { body } = soapRequest(credential, 1, po);
  const soap = await fetch(stage.real.url + ORDER_STATUS_PATH, { method: 'POST', headers: SOAP_HEADERS, body });
  const xml = await soap.text();
  if (soap.status !== 200 || !xml.includes(`<purchaseOrderNumber>${po}</purchaseOrderNumber>`)) {
    throw new Error(`the SOAP answer for ${po} is not as expected (HTTP ${soap.status}): ${xml.slice(0, 300)}`);
  }
  const bare = await fetch(stage.bare.url + bareRequest(credential, 1, po).path);
  const json = (await bare.json()) as Array<{ purchaseOrderNumber: string }>;
  if (bare.status !== 200 || json[0]?.purchaseOrderNumber !== po) throw new Error(`the bare answer for ${po} is not as expected (HTTP ${bare.status})`);
}

// ---- (e) 2.0.0 beside 1.0.0

interface VersionFigures {
  v1Rps: number;
  v2Rps: number;
  v1ServerMs: number;
  v2ServerMs: number;
  requestsPerRound: number;
  failures: number;
}

async function versions(stage: Stage, loader: LoadGenerator, credential: Credential, purchaseOrders: string[]): Promise<VersionFigures> {
  say(`(e) getOrderStatus poSearch (2.0.0) vs getOrderStatusDetails queryType 1 (1.0.0): ${purchaseOrders.length} purchase orders asked in turn, concurrency ${CONCURRENCY}`);
  const probe = soapV2Request(credential, purchaseOrders[0] as string);
  const answer = await fetch(stage.real.url + probe.path, { method: 'POST', headers: SOAP_V2_HEADERS, body: probe.body });
  const xml = await answer.text();
  if (answer.status !== 200 || !xml.includes(`${purchaseOrders[0]}</`) || xml.includes('ServiceMessage')) {
    throw new Error(`the 2.0.0 answer for ${purchaseOrders[0]} is not as expected (HTTP ${answer.status}): ${xml.slice(0, 400)}`);
  }
  const sides: RoundSide[] = [
    { name: '1.0.0', origin: stage.real.url, requests: purchaseOrders.map((po) => soapRequest(credential, 1, po)), server: () => stage.serverMs.real },
    { name: '2.0.0', origin: stage.real.url, requests: purchaseOrders.map((po) => soapV2Request(credential, po)), server: () => stage.serverMs.real },
  ];
  const { rps, serverMs, requestsPerRound, failures } = await interleavedRounds(loader, sides, 4 * CONCURRENCY);
  return {
    v1Rps: rps['1.0.0'] as number,
    v2Rps: rps['2.0.0'] as number,
    v1ServerMs: serverMs['1.0.0'] as number,
    v2ServerMs: serverMs['2.0.0'] as number,
    requestsPerRound,
    failures,
  };
}

/** One side of interleaved rounds: its requests (asked in turn), where they go, and the server times its answers record. */
interface RoundSide {
  name: string;
  origin: string;
  requests: LoadRequest[];
  server: () => number[];
}

interface RoundFigures {
  /** Per side, medians over the rounds. */
  rps: Record<string, number>;
  serverMs: Record<string, number>;
  requestsPerRound: number;
  failures: number;
}

/**
 * The sides measured against each other: two warm-up passes of each, not counted (JIT, sockets,
 * the authenticator's cache), `warmup` requests then four times as many; the second pass, warm,
 * sizes the rounds (a cold first pass runs at a fraction of the warm rate, and rounds sized on it
 * last a second, too short to outlast the machine's noise). Then ROUNDS rounds of about
 * ROUND_SECONDS per side at the slower side's warm rate (at least one request per lane), the order
 * of the sides rotating each round; per side the medians of the rounds. `beforeRounds` is called
 * once the warm-up is done.
 */
async function interleavedRounds(loader: LoadGenerator, sides: RoundSide[], warmup: number, beforeRounds?: () => void): Promise<RoundFigures> {
  const warmRps: number[] = [];
  for (const pass of [1, 2]) {
    for (const side of sides) {
      const requests = pass === 1 ? warmup : 4 * warmup;
      const result = await loader.run(side.origin, side.requests, requests, CONCURRENCY);
      if (pass === 2) warmRps.push(rate(result));
      say(`  warm-up ${pass} ${side.name}: ${requests} requests, ${rate(result).toFixed(1)} req/s`);
    }
  }
  const requestsPerRound = FIXED_REQUESTS ?? Math.max(CONCURRENCY, Math.min(20_000, Math.round(Math.min(...warmRps) * ROUND_SECONDS)));
  beforeRounds?.();

  const rps = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  const server = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  let failures = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
    for (const side of order) {
      side.server().length = 0;
      const result = await loader.run(side.origin, side.requests, requestsPerRound, CONCURRENCY);
      failures += failureCount(result);
      rps.get(side.name)!.push(rate(result));
      server.get(side.name)!.push(median(side.server()));
      say(`  round ${round}/${ROUNDS} ${side.name}: ${requestsPerRound} requests ${describeRun(result, side.server())}`);
    }
  }
  const medians = (values: Map<string, number[]>) => Object.fromEntries([...values].map(([name, of]) => [name, median(of)]));
  return { rps: medians(rps), serverMs: medians(server), requestsPerRound, failures };
}

// ---- (a) and (b)

interface ThroughputFigures {
  label: string;
  /** One request at a time: server time minus lookup time, medians. */
  soapRestMs: number;
  jsonRestMs: number;
  bareRestMs: number;
  sequentialRequests: number;
  soapRps: number;
  jsonRps: number;
  bareRps: number;
  soapServerMs: number;
  jsonServerMs: number;
  bareServerMs: number;
  storeQueryMs: number;
  requestsPerRound: number;
  credentialReads: number;
  failures: number;
}

function describeRun(result: LoadResult, server: number[]): string {
  const failures = failureCount(result);
  return (
    `${rate(result).toFixed(1).padStart(8)} req/s   latency p50 ${ms(quantile(result.latenciesMs, 0.5)).padStart(10)} p99 ${ms(quantile(result.latenciesMs, 0.99)).padStart(10)}` +
    `   server median ${ms(median(server)).padStart(10)}${failures > 0 ? `   FAILURES ${JSON.stringify(result.failures)}` : ''}`
  );
}

async function throughput(label: string, stage: Stage, loader: LoadGenerator, credential: Credential, purchaseOrders: string[]): Promise<ThroughputFigures> {
  say(`${label}: ${purchaseOrders.length} purchase orders of ${credential.clientIds.join(', ')} asked in turn, concurrency ${CONCURRENCY}`);
  await checkAnswers(stage, credential, purchaseOrders[0] as string);

  // The store query alone, one at a time: what both servers wait for.
  // Up to 5 samples, fewer when each takes seconds.
  const storeTimes: number[] = [];
  for (const po of purchaseOrders.slice(0, 5)) {
    storeTimes.push((await timed(() => stage.lookups.orderStatus(credential.clientIds, { queryType: 1, referenceNumber: po }))).ms);
    if (storeTimes.length >= 2 && storeTimes.reduce((a, b) => a + b, 0) > 10_000) break;
  }
  const storeQueryMs = median(storeTimes);
  say(`  store query alone (MongoOrderLookups.orderStatus, queryType 1, sequential): median ${ms(storeQueryMs)}`);

  const soap = purchaseOrders.map((po) => soapRequest(credential, 1, po));
  const json = purchaseOrders.map((po) => jsonRequest(credential, 1, po));
  const bare = purchaseOrders.map((po) => bareRequest(credential, 1, po));
  const sides: RoundSide[] = [
    { name: 'SOAP (a)', origin: stage.real.url, requests: soap, server: () => stage.serverMs.real },
    { name: 'JSON (a2)', origin: stage.real.url, requests: json, server: () => stage.serverMs.real },
    { name: 'bare (b)', origin: stage.bare.url, requests: bare, server: () => stage.serverMs.bare },
  ];

  // The authenticator's cache takes one scrypt for this credential in the warm-up: the reads counted are the rounds'.
  const warmup = Math.max(CONCURRENCY, Math.min(4 * CONCURRENCY, Math.ceil((2 * CONCURRENCY * 1000) / Math.max(storeQueryMs, 1))));
  let readsBefore = 0;
  const { rps, serverMs, requestsPerRound, failures } = await interleavedRounds(loader, sides, warmup, () => (readsBefore = stage.credentialReads()));
  const reads = stage.credentialReads() - readsBefore;

  // One request at a time: each answer's server time split into the lookup and the rest.
  const sequential = FIXED_REQUESTS ?? Math.max(3, Math.min(200, Math.round(6_000 / Math.max(storeQueryMs, 1))));
  const rest: Record<string, number[]> = { 'SOAP (a)': [], 'JSON (a2)': [], 'bare (b)': [] };
  const lookupShare: Record<string, number[]> = { 'SOAP (a)': [], 'JSON (a2)': [], 'bare (b)': [] };
  const serverShare: Record<string, number[]> = { 'SOAP (a)': [], 'JSON (a2)': [], 'bare (b)': [] };
  for (let i = 0; i < sequential; i++) {
    for (const side of sides) {
      const key = side.name === 'bare (b)' ? 'bare' : 'real';
      stage.serverMs[key].length = 0;
      stage.lookupMs[key].length = 0;
      await loader.run(side.origin, [side.requests[i % side.requests.length] as LoadRequest], 1, 1);
      const server = stage.serverMs[key][0] ?? NaN;
      const lookup = stage.lookupMs[key][0] ?? NaN;
      (serverShare[side.name] as number[]).push(server);
      (lookupShare[side.name] as number[]).push(lookup);
      (rest[side.name] as number[]).push(server - lookup);
    }
  }
  for (const side of sides) {
    say(
      `  one at a time, ${sequential} requests ${side.name}: server median ${ms(median(serverShare[side.name] as number[]), 2)} = lookup ${ms(median(lookupShare[side.name] as number[]), 2)}` +
        ` + the rest ${ms(median(rest[side.name] as number[]), 2)}`,
    );
  }

  return {
    label,
    soapRestMs: median(rest['SOAP (a)'] as number[]),
    jsonRestMs: median(rest['JSON (a2)'] as number[]),
    bareRestMs: median(rest['bare (b)'] as number[]),
    sequentialRequests: sequential,
    soapRps: rps['SOAP (a)'] as number,
    jsonRps: rps['JSON (a2)'] as number,
    bareRps: rps['bare (b)'] as number,
    soapServerMs: serverMs['SOAP (a)'] as number,
    jsonServerMs: serverMs['JSON (a2)'] as number,
    bareServerMs: serverMs['bare (b)'] as number,
    storeQueryMs,
    requestsPerRound,
    credentialReads: reads,
    failures,
  };
}

// ---- (c)

interface BigAnswerFigures {
  purchaseOrders: number;
  salesOrders: number;
  lookupMs: number;
  soapRenderMs: number;
  soapBytes: number;
  jsonMs: number;
  jsonBytes: number;
}

/** One request alone through the real app: the client's time, the server's, and the lookup's share. */
async function loneRequest(stage: Stage, loader: LoadGenerator, request: LoadRequest): Promise<{ clientMs: number; serverMs: number; lookupMs: number }> {
  stage.serverMs.real.length = 0;
  stage.lookupMs.real.length = 0;
  const result = await loader.run(stage.real.url, [request], 1, 1);
  if (failureCount(result) > 0) throw new Error(`${request.method} ${request.path.split('?')[0]} failed: ${JSON.stringify(result.failures)}`);
  // The client (another thread) may have read the whole answer before this thread ran the
  // server's onResponse hook: wait for its figures (else they were NaN, or the next request's).
  for (const waitUntil = Date.now() + 2_000; stage.serverMs.real.length === 0 && Date.now() < waitUntil; ) await new Promise((resolve) => setTimeout(resolve, 1));
  return { clientMs: result.elapsedMs, serverMs: stage.serverMs.real[0] ?? NaN, lookupMs: stage.lookupMs.real[0] ?? NaN };
}

async function bigAnswer(stage: Stage, loader: LoadGenerator, credential: Credential): Promise<BigAnswerFigures> {
  say(`(c) queryType 4 for ${BIG_CLIENT}: lookup, then SOAP vs JSON serialization, ${BIG_RUNS} runs each after a warm-up (over HTTP: the first of (d))`);
  const query: StatusQuery = { queryType: 4 };
  const lookupTimes: number[] = [];
  let views = await stage.lookups.orderStatus(credential.clientIds, query);
  for (let run = 0; run < BIG_RUNS; run++) {
    const { ms: t, value } = await timed(() => stage.lookups.orderStatus(credential.clientIds, query));
    lookupTimes.push(t);
    views = value;
  }
  say(`  lookup: ${views.length} purchase orders, median ${ms(median(lookupTimes))}`);

  const soapTimes: number[] = [];
  const jsonTimes: number[] = [];
  let soapBytes = 0;
  let jsonBytes = 0;
  for (let run = 0; run <= BIG_RUNS; run++) {
    const soap = await timed(() => renderEnvelope((out) => orderStatusDetailsPayload(views, out)));
    const json = await timed(() => {
      const out = new AnswerChunks();
      orderStatusJson(views)(out);
      return out.bytes();
    });
    soapBytes = Buffer.byteLength(soap.value);
    jsonBytes = json.value.length;
    if (run > 0) {
      soapTimes.push(soap.ms);
      jsonTimes.push(json.ms);
    }
  }
  say(`  SOAP render (payload shaping + XML): median ${ms(median(soapTimes))}, ${mib(soapBytes)}; JSON (the routes' writer): median ${ms(median(jsonTimes))}, ${mib(jsonBytes)}`);

  return {
    purchaseOrders: views.length,
    salesOrders: views.reduce((n, v) => n + v.details.length, 0),
    lookupMs: median(lookupTimes),
    soapRenderMs: median(soapTimes),
    soapBytes,
    jsonMs: median(jsonTimes),
    jsonBytes,
  };
}

// ---- (d) the largest answers

/** A partner's first polls (queryType 3 from long ago) and its open orders: answers of up to 5,000 purchase orders. */
const largestAnswers: { name: string; soap: (c: Credential) => LoadRequest; json: (c: Credential) => LoadRequest }[] = [
  { name: 'status queryType 4 (open orders)', soap: (c) => soapRequest(c, 4), json: (c) => jsonRequest(c, 4) },
  {
    name: 'status queryType 3 from long ago',
    soap: (c) => soapRequest(c, 3),
    json: (c) => ({ ...jsonRequest(c, 3), path: `${ORDER_STATUS_JSON_PATH}?queryType=3&statusTimeStamp=${LONG_AGO}` }),
  },
  {
    name: 'shipments queryType 3 from long ago',
    soap: (c) => ({
      method: 'POST',
      path: SHIPMENT_NOTIFICATION_PATH,
      body: shipmentRequest({ id: c.id, password: c.password, queryType: '3', shipmentDateTimeStamp: LONG_AGO }),
      headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '"getOrderShipmentNotification"' },
    }),
    json: (c) => ({ ...jsonRequest(c, 3), path: `${SHIPMENTS_JSON_PATH}?queryType=3&shipmentDateTimeStamp=${LONG_AGO}` }),
  },
];

interface LargestAnswerFigures {
  name: string;
  purchaseOrders: number;
  soapBytes: number;
  jsonBytes: number;
  soapMs: number;
  jsonMs: number;
  soapServerMs: number;
  jsonServerMs: number;
  lookupMs: number;
  /** Server time besides the lookup: parsing, credential, serialization, sending. */
  soapRestMs: number;
  jsonRestMs: number;
}

/** Each largest answer over HTTP through the real app, SOAP and JSON alternating, one in flight at a time: p50 of BIG_RUNS after a warm-up. */
async function largestAnswer(stage: Stage, loader: LoadGenerator, credential: Credential): Promise<LargestAnswerFigures[]> {
  const figures: LargestAnswerFigures[] = [];
  for (const answer of largestAnswers) {
    const soap: number[] = [];
    const json: number[] = [];
    const soapServer: number[] = [];
    const jsonServer: number[] = [];
    const lookup: number[] = [];
    const soapRest: number[] = [];
    const jsonRest: number[] = [];
    const soapRequestOnce = answer.soap(credential);
    const jsonRequestOnce = answer.json(credential);
    for (let run = 0; run <= BIG_RUNS; run++) {
      // Both through the real app, one after the other: each answer is the only one in flight.
      const s = await loneRequest(stage, loader, soapRequestOnce);
      const j = await loneRequest(stage, loader, jsonRequestOnce);
      if (run === 0) continue;
      soap.push(s.clientMs);
      json.push(j.clientMs);
      soapServer.push(s.serverMs);
      jsonServer.push(j.serverMs);
      lookup.push(s.lookupMs, j.lookupMs);
      soapRest.push(s.serverMs - s.lookupMs);
      jsonRest.push(j.serverMs - j.lookupMs);
    }
    // The answer itself, once more, to say how large it is (the load generator keeps no bodies).
    const soapBody = await (await fetch(stage.real.url + soapRequestOnce.path, { method: 'POST', headers: soapRequestOnce.headers, body: soapRequestOnce.body })).text();
    const jsonBody = await (await fetch(stage.real.url + jsonRequestOnce.path, { headers: jsonRequestOnce.headers })).text();
    const purchaseOrders = (soapBody.match(/<(?:\w+:)?purchaseOrderNumber>/g) ?? []).length;
    figures.push({
      name: answer.name,
      purchaseOrders,
      soapBytes: Buffer.byteLength(soapBody),
      jsonBytes: Buffer.byteLength(jsonBody),
      soapMs: median(soap),
      jsonMs: median(json),
      soapServerMs: median(soapServer),
      jsonServerMs: median(jsonServer),
      lookupMs: median(lookup),
      soapRestMs: median(soapRest),
      jsonRestMs: median(jsonRest),
    });
    say(`  ${answer.name}: ${purchaseOrders} purchase orders; over HTTP p50 SOAP ${ms(median(soap))}, JSON ${ms(median(json))} (lookup ${ms(median(lookup))})`);
  }
  return figures;
}

// ---- (f) the largest shipments answer, sent as it is read vs read whole first

/** Lookups that read a shipments answer whole before handing on its first batch (1.0.0 and 2.0.0): how every answer was sent before. */
class ReadWhole implements OrderLookups, OrderLookupsV2 {
  constructor(private readonly inner: MongoOrderLookups) {}
  orderStatus(clientIds: string[], query: StatusQuery, signal?: AbortSignal) {
    return this.inner.orderStatus(clientIds, query, signal);
  }
  shipmentNotificationBatches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal) {
    return inOneBatch(readShipmentsWhole(this.inner, clientIds, query, signal));
  }
  orderStatusV2(clientIds: string[], query: OrderStatusV2Query, signal?: AbortSignal) {
    return this.inner.orderStatusV2(clientIds, query, signal);
  }
  issues(clientIds: string[], issueId: string, signal?: AbortSignal) {
    return this.inner.issues(clientIds, issueId, signal);
  }
  async shipmentNotificationV2Batches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal) {
    return cappedInOneBatch(await readWhole(await this.inner.shipmentNotificationV2Batches(clientIds, query, signal)));
  }
  async shipmentNotificationV21Batches(clientIds: string[], query: ShipmentQuery, signal?: AbortSignal) {
    return cappedInOneBatch(await readWhole(await this.inner.shipmentNotificationV21Batches(clientIds, query, signal)));
  }
}

/** (f)'s answer of 2.0.0, SOAP and the JSON v2 twin. */
const shipmentsV2 = {
  soap: (c: Credential): LoadRequest => ({
    method: 'POST',
    path: SHIPMENT_V2_URL,
    body: osnV2Request({ id: c.id, password: c.password, queryType: '3', shipmentDateTimestamp: LONG_AGO }),
    headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '"getOrderShipmentNotification"' },
  }),
  json: (c: Credential): LoadRequest => ({ ...jsonRequest(c, 3), path: `${SHIPMENTS_JSON_V2_PATH}?queryType=3&shipmentDateTimestamp=${LONG_AGO}` }),
};

interface TransferTimes {
  firstByteMs: number;
  totalMs: number;
  serverMs: number;
}

/** One request by curl (another process, so that its clock runs while the server works): times to the first byte and to the last; the server's own where it records them. */
async function curlTimes(url: string, request: LoadRequest, serverMs?: number[]): Promise<TransferTimes> {
  if (serverMs === undefined) return transferTimes(url, request);
  serverMs.length = 0;
  const times = await transferTimes(url, request);
  for (const waitUntil = Date.now() + 2_000; serverMs.length === 0 && Date.now() < waitUntil; ) await new Promise((resolve) => setTimeout(resolve, 1));
  return { ...times, serverMs: serverMs[0] ?? NaN };
}

async function transferTimes(url: string, request: LoadRequest): Promise<TransferTimes> {
  const headers = Object.entries(request.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const body = request.body === undefined ? [] : ['--data-binary', String(request.body)];
  const { stdout } = await execFileAsync('curl', ['-sS', '-o', '/dev/null', '--fail', '-X', request.method, ...headers, ...body, '-w', '%{time_starttransfer} %{time_total}', url + request.path]);
  const [first, total] = stdout.trim().split(' ').map((s) => Number(s) * 1000) as [number, number];
  return { firstByteMs: first, totalMs: total, serverMs: NaN };
}

interface AsReadFigures {
  interface: string;
  purchaseOrders: number;
  packages: number;
  bytes: number;
  asRead: TransferTimes;
  readWhole: TransferTimes;
  /** With BENCH_BASE: `ossn serve` of this checkout and of the base, each its own process. */
  processes?: { thisCheckout: TransferTimes; base: TransferTimes };
}

/** The query services of BENCH_BASE: `ossn serve` of this checkout and of the base over the same store. */
interface ServeProcesses {
  thisCheckout: string;
  base: string;
}

const medianTimes = (times: TransferTimes[]): TransferTimes => ({
  firstByteMs: median(times.map((t) => t.firstByteMs)),
  totalMs: median(times.map((t) => t.totalMs)),
  serverMs: median(times.map((t) => t.serverMs)),
});

/** (f): the largest shipments answer, SOAP and JSON, 1.0.0 and 2.0.0, sent as read and read whole, alternating, one at a time: medians of BIG_RUNS after a warm-up. */
async function asReadVsWhole(stage: Stage, credential: Credential, processes?: ServeProcesses): Promise<AsReadFigures[]> {
  const answer = largestAnswers.find((a) => a.name.startsWith('shipments'));
  if (!answer) throw new Error('no shipments answer among the largest');
  const figures: AsReadFigures[] = [];
  const answers = [
    ['SOAP 1.0.0', answer.soap(credential)],
    ['SOAP 2.0.0', shipmentsV2.soap(credential)],
    ['JSON v1', answer.json(credential)],
    ['JSON v2', shipmentsV2.json(credential)],
  ] as const;
  for (const [name, request] of answers) {
    const asRead: TransferTimes[] = [];
    const readWhole: TransferTimes[] = [];
    const thisCheckout: TransferTimes[] = [];
    const base: TransferTimes[] = [];
    for (let run = 0; run <= BIG_RUNS; run++) {
      const a = await curlTimes(stage.real.url, request, stage.serverMs.real);
      const w = await curlTimes(stage.whole.url, request, stage.serverMs.whole);
      const p = processes && { thisCheckout: await curlTimes(processes.thisCheckout, request), base: await curlTimes(processes.base, request) };
      if (run === 0) continue;
      asRead.push(a);
      readWhole.push(w);
      if (p) {
        thisCheckout.push(p.thisCheckout);
        base.push(p.base);
      }
    }
    const body = await (await fetch(stage.real.url + request.path, { method: request.method, headers: request.headers, body: request.method === 'GET' ? undefined : request.body })).text();
    const soap = name.startsWith('SOAP');
    const purchaseOrders = soap ? (body.match(/<OrderShipmentNotification>/g) ?? []).length : (body.match(/"purchaseOrderNumber":/g) ?? []).length;
    const packages = soap ? (body.match(/<Package>/g) ?? []).length : (body.match(/"trackingNumber":/g) ?? []).length;
    figures.push({
      interface: name,
      purchaseOrders,
      packages,
      bytes: Buffer.byteLength(body),
      asRead: medianTimes(asRead),
      readWhole: medianTimes(readWhole),
      ...(processes && { processes: { thisCheckout: medianTimes(thisCheckout), base: medianTimes(base) } }),
    });
    say(`  ${name}: first byte ${ms(median(asRead.map((t) => t.firstByteMs)))} as read, ${ms(median(readWhole.map((t) => t.firstByteMs)))} read whole`);
  }
  return figures;
}

/** BENCH_BASE's `ossn serve` and this checkout's, each its own process over the bench's store, for (f). */
async function startServeProcesses(uri: string, base: string, children: ChildProcess[]): Promise<ServeProcesses> {
  const serve = async (entry: string, name: string) =>
    (
      await startOssnProcess({
        entry,
        command: 'serve',
        // info: its 'query service listening' line gives its URL.
        env: { MONGODB_URI: uri, MONGODB_DATABASE: DATABASE, READ_MODEL_VERSION: String(seededReadModelVersion), HOST: '127.0.0.1', PORT: '0', OPS_PORT: '0', LOG_LEVEL: 'info' },
        readyMessage: 'query service listening',
        logFile: resolve(resultsDir, `soap-serve-${name}.log`),
        timeoutMs: 120_000,
        spawned: (child) => children.push(child),
        // No Ctrl-C handler here: the terminal's signal stops them with the bench.
        ownProcessGroup: false,
      })
    ).url;
  const [thisCheckout, baseUrl] = await Promise.all([serve(ossnEntry(), 'this'), serve(ossnEntry(base), 'base')]);
  return { thisCheckout, base: baseUrl };
}

// ---- the run

function credentialFor(name: string, clientIds: string[]): Credential {
  return { id: `bench-${name}`, password: randomBytes(18).toString('base64url'), clientIds };
}

function purchaseOrdersOf(summary: SeedSummary, clients: string[]): string[] {
  // Interleaved across the linked clients, so every one is asked for.
  const lists = clients.map((c) => summary.purchaseOrders[c] ?? []);
  const out: string[] = [];
  for (let i = 0; out.length < 400 && lists.some((l) => i < l.length); i++) for (const l of lists) if (i < l.length) out.push(l[i] as string);
  if (out.length === 0) throw new Error(`no purchase orders for ${clients.join(', ')}`);
  return out;
}

function printThroughput(f: ThroughputFigures): void {
  const ratio = f.soapRps / f.bareRps;
  console.log(`  ${f.label}`);
  console.log(`    store query alone (sequential)       ${ms(f.storeQueryMs)}`);
  console.log(`    (a) SOAP getOrderStatusDetails qt 1  ${f.soapRps.toFixed(1).padStart(8)} req/s   server median ${ms(f.soapServerMs)}`);
  console.log(`    (b) bare Fastify JSON, same query    ${f.bareRps.toFixed(1).padStart(8)} req/s   server median ${ms(f.bareServerMs)}`);
  console.log(`    ratio a/b                            ${ratio.toFixed(3).padStart(8)}         (target >= 0.8: ${ratio >= 0.8 ? 'met' : 'NOT met'})`);
  const jsonRatio = f.jsonRps / f.bareRps;
  console.log(`    (a2) JSON /orders/status qt 1        ${f.jsonRps.toFixed(1).padStart(8)} req/s   server median ${ms(f.jsonServerMs)}`);
  console.log(`    ratio a2/b                           ${jsonRatio.toFixed(3).padStart(8)}         (target >= 0.9: ${jsonRatio >= 0.9 ? 'met' : 'NOT met'})`);
  console.log(
    `    server time besides the lookup, one request at a time (median of ${f.sequentialRequests}): SOAP ${ms(f.soapRestMs, 2)}, JSON ${ms(f.jsonRestMs, 2)}, bare ${ms(f.bareRestMs, 2)}` +
      ` -> the SOAP layer adds ${ms(f.soapRestMs - f.bareRestMs, 2)} per request, the JSON layer ${ms(f.jsonRestMs - f.bareRestMs, 2)}`,
  );
  if (f.storeQueryMs > 5 * Math.max(f.soapRestMs, 0.1)) {
    console.log('    note: the store query dominates both sides, so their rates are the store\'s; the line above is the SOAP layer\'s own cost');
  }
  console.log(`    medians of ${ROUNDS} interleaved rounds x ${f.requestsPerRound} requests per side, concurrency ${CONCURRENCY}; failures ${f.failures}`);
  console.log(`    credential-store reads (scrypt) during the measured rounds: ${f.credentialReads} (cache warmed in the warm-up, TTL ${AUTH_CACHE_TTL_MS / 3_600_000} h)`);
}

async function main(): Promise<void> {
  say(`node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${load()}`);
  const uri = process.env.MONGODB_URI || (await ensureStack({ log: (line) => say(`stack: ${line}`) })).MONGODB_URI;
  say(`store: ${uri.replace(/\/\/[^@/]*@/, '//***@')}`);
  const mongo = await connectMongo(uri, 'bench-soap');
  const loader = new LoadGenerator();
  const stages: Stage[] = [];
  const children: ChildProcess[] = [];
  try {
    const db = mongo.db(DATABASE);
    const seeded = await ensureSeeded(db, { clients: CLIENTS, orders: ORDERS, bigOrders: BIG_ORDERS, seed: SEED }, say);
    say(`data set: ${seeded.summary.statusDocuments} sales orders (${seeded.summary.shipmentDocuments} shipment documents); ${BIG_CLIENT} has ${seeded.summary.bigOpenPurchaseOrders} open purchase orders`);
    if (BIG_ORDERS > 0 && seeded.summary.bigOpenPurchaseOrders < maxPurchaseOrdersPerAnswer) {
      say(`  note: fewer than ${maxPurchaseOrdersPerAnswer} open purchase orders for ${BIG_CLIENT}; raise BENCH_BIG_ORDERS for a full-size answer`);
    }
    const linked = Array.from({ length: LINKED_CLIENTS }, (_, i) => clientId(i));
    const partner = credentialFor('partner', linked);
    const big = credentialFor('big', [BIG_CLIENT]);
    await resetCredentials(db, [partner, big]);
    const stage = await startStage(db, seeded.collections, [partner, big]);
    stages.push(stage);
    say(`real app on ${stage.real.url} (soap:address = that URL), bare route on ${stage.bare.url}`);

    const figures: ThroughputFigures[] = [];
    if (!ONLY_LARGEST) figures.push(await throughput(`full store (${seeded.summary.statusDocuments} sales orders)`, stage, loader, partner, purchaseOrdersOf(seeded.summary, linked)));
    const versionFigures = ONLY_LARGEST ? undefined : await versions(stage, loader, partner, purchaseOrdersOf(seeded.summary, linked));
    const bigFigures = BIG_ORDERS > 0 && !ONLY_LARGEST ? await bigAnswer(stage, loader, big) : undefined;
    if (BIG_ORDERS > 0) say(`(d) the largest answers for ${BIG_CLIENT}, over HTTP, ${BIG_RUNS} runs each after a warm-up`);
    const largest = BIG_ORDERS > 0 ? await largestAnswer(stage, loader, big) : [];
    // (c)'s answer over HTTP is (d)'s first: the same request, measured once.
    const openOrders = largest[0];
    if (BIG_ORDERS > 0) say(`(f) the largest shipments answer for ${BIG_CLIENT}, sent as it is read vs read whole first, ${BIG_RUNS} runs each after a warm-up`);
    const processes = BIG_ORDERS > 0 && BASE !== undefined ? await startServeProcesses(uri, BASE, children) : undefined;
    if (processes) say(`(f) also ossn serve of this checkout (${processes.thisCheckout}) and of ${BASE} (${processes.base}), each its own process`);
    const asRead = BIG_ORDERS > 0 ? await asReadVsWhole(stage, big, processes) : [];

    if (SMALL_ORDERS > 0 && !ONLY_LARGEST) {
      const smallDb = mongo.db(`${DATABASE}_small`);
      const small = await ensureSeeded(smallDb, { clients: LINKED_CLIENTS, orders: SMALL_ORDERS, bigOrders: 0, seed: SEED }, say);
      const smallPartner = credentialFor('partner', linked);
      await resetCredentials(smallDb, [smallPartner]);
      const smallStage = await startStage(smallDb, small.collections, [smallPartner]);
      stages.push(smallStage);
      figures.push(await throughput(`small store (${small.summary.statusDocuments} sales orders)`, smallStage, loader, smallPartner, purchaseOrdersOf(small.summary, linked)));
    }

    console.log('\n==== bench/soap.ts results ====');
    console.log(`machine: ${cpus().length} CPUs, load average now ${load()}; store ${await storeDescription(uri)}`);
    console.log('(a)/(b) SOAP vs bare JSON, same store query, over HTTP on loopback:');
    for (const f of figures) printThroughput(f);
    if (versionFigures) {
      const v = versionFigures;
      console.log(`(e) 2.0.0 getOrderStatus poSearch vs 1.0.0 getOrderStatusDetails queryType 1, ${seeded.summary.statusDocuments} sales orders (medians of ${ROUNDS} rounds of ${v.requestsPerRound}):`);
      console.log(`    1.0.0 ${v.v1Rps.toFixed(1).padStart(8)} req/s, server median ${ms(v.v1ServerMs)}`);
      console.log(`    2.0.0 ${v.v2Rps.toFixed(1).padStart(8)} req/s, server median ${ms(v.v2ServerMs)}`);
      console.log(`    2.0.0 / 1.0.0 ${(v.v2Rps / v.v1Rps).toFixed(2).padStart(6)}${v.failures > 0 ? `   FAILURES ${v.failures}` : ''}`);
    }
    if (bigFigures) {
      const b = bigFigures;
      console.log(`(c) ${BIG_CLIENT}, getOrderStatusDetails queryType 4: ${b.purchaseOrders} purchase orders, ${b.salesOrders} sales orders (medians of ${BIG_RUNS})`);
      console.log(`    lookup (MongoOrderLookups.orderStatus)  ${ms(b.lookupMs).padStart(12)}`);
      console.log(`    SOAP serialization (shape + XML)        ${ms(b.soapRenderMs).padStart(12)}   ${mib(b.soapBytes)}`);
      console.log(`    JSON serialization (the routes' writer) ${ms(b.jsonMs).padStart(12)}   ${mib(b.jsonBytes)}`);
      console.log(`    SOAP serialization / JSON               ${(b.soapRenderMs / b.jsonMs).toFixed(1).padStart(9)} x`);
      if (openOrders) {
        console.log(`    over HTTP, SOAP: client ${ms(openOrders.soapMs)}, server ${ms(openOrders.soapServerMs)} (besides the lookup ${ms(openOrders.soapRestMs)})`);
        console.log(`    over HTTP, JSON: client ${ms(openOrders.jsonMs)}, server ${ms(openOrders.jsonServerMs)} (besides the lookup ${ms(openOrders.jsonRestMs)})`);
      }
    }
    if (largest.length > 0) {
      console.log(`(d) ${BIG_CLIENT}'s largest answers over HTTP, p50 of ${BIG_RUNS} (target <= ${LARGEST_ANSWER_TARGET_MS} ms each):`);
      for (const l of largest) {
        const met = Math.max(l.soapMs, l.jsonMs) <= LARGEST_ANSWER_TARGET_MS ? 'met' : 'NOT met';
        console.log(`    ${l.name.padEnd(38)} ${String(l.purchaseOrders).padStart(5)} POs   SOAP ${ms(l.soapMs).padStart(10)} (${mib(l.soapBytes)})   JSON ${ms(l.jsonMs).padStart(10)} (${mib(l.jsonBytes)})   lookup ${ms(l.lookupMs)}   ${met}`);
        console.log(`    ${''.padEnd(38)}         server SOAP ${ms(l.soapServerMs)} (besides the lookup ${ms(l.soapRestMs)}), JSON ${ms(l.jsonServerMs)} (besides the lookup ${ms(l.jsonRestMs)})`);
      }
    }
    if (asRead.length > 0) {
      console.log(`(f) ${BIG_CLIENT}'s shipments queryType 3 from long ago, sent as it is read vs read whole first, medians of ${BIG_RUNS} (curl; target: first byte <= ${FIRST_BYTE_TARGET_MS} ms, <= ${PER_PACKAGE_TARGET_US} µs of server time a package):`);
      for (const f of asRead) {
        const line = (label: string, t: TransferTimes) =>
          `    ${f.interface.padEnd(10)} ${label.padEnd(11)} first byte ${ms(t.firstByteMs).padStart(10)}   last byte ${ms(t.totalMs).padStart(10)}   server ${ms(t.serverMs).padStart(10)} = ${((t.serverMs * 1000) / f.packages).toFixed(1).padStart(6)} µs a package`;
        console.log(`    ${f.interface}: ${f.purchaseOrders} purchase orders, ${f.packages} packages, ${mib(f.bytes)}`);
        console.log(line('as read', f.asRead));
        console.log(line('read whole', f.readWhole));
        if (f.processes) {
          const { thisCheckout, base } = f.processes;
          const processLine = (label: string, t: TransferTimes) => `    ${f.interface.padEnd(10)} ${label.padEnd(11)} first byte ${ms(t.firstByteMs).padStart(10)}   last byte ${ms(t.totalMs).padStart(10)}`;
          console.log(processLine('ossn serve', thisCheckout));
          console.log(`${processLine('base', base)}   (this checkout ÷ base: first byte ${(thisCheckout.firstByteMs / base.firstByteMs).toFixed(2)}, last byte ${(thisCheckout.totalMs / base.totalMs).toFixed(2)})`);
        }
      }
    }
    const file = writeResults('soap', {
      largestAnswers: largest,
      asRead,
      versions: versionFigures && { ...versionFigures, v2OverV1: versionFigures.v2Rps / versionFigures.v1Rps },
      salesOrders: seeded.summary.statusDocuments,
      throughput: figures.map((f) => ({ ...f, soapOverBare: f.soapRps / f.bareRps, jsonOverBare: f.jsonRps / f.bareRps })),
      bigAnswer: bigFigures &&
        openOrders && {
          ...bigFigures,
          soapHttpMs: openOrders.soapMs,
          jsonHttpMs: openOrders.jsonMs,
          soapHttpServerMs: openOrders.soapServerMs,
          jsonHttpServerMs: openOrders.jsonServerMs,
          soapOverJsonServer: openOrders.soapServerMs / openOrders.jsonServerMs,
        },
    });
    console.log(`figures in ${file}; total time ${Math.round((Date.now() - started) / 1000)} s`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    for (const stage of stages) await stage.close();
    await loader.close();
    await mongo.close();
  }
}

await main();
