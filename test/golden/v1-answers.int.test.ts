// The 1.0.0 answers, byte for byte: SOAP and JSON, every queryType of both services and a few
// refusals, over one fixed event stream (events.jsonl, recorded from the demo generator before
// 2.0.0 was built) written to MongoDB as the projector writes it and read by the real lookups.
// The answers recorded on main before 2.0.0 (answers.json) must come back unchanged whatever
// is added beside them. GOLDEN_RECORD=1 records them again; without it a missing file fails.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { setTimeout } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { Db, MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseErpEvent } from '../../contracts/parse-erp-event.js';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { foldEvents, type FoldResult } from '../../projections/fold.js';
import { connectMongo } from '../../services/adapters/mongodb/connect.js';
import { ensureIndexes, readModelCollections } from '../../services/adapters/mongodb/documents.js';
import { MongoOrderLookups } from '../../services/adapters/mongodb/lookups.js';
import { writeEffects } from '../../services/adapters/mongodb/writes.js';
import type { Credential } from '../../services/domain/credentials/credential.js';
import { buildApp } from '../../services/query/app.js';
import { basic } from '../support/json-requests.js';
import { FakeAuthenticator } from '../support/fake-ports.js';
import { servers, uniqueNames } from '../support/servers.js';
import { ORDER_STATUS_URL, post, SHIPMENT_URL, shipmentRequest, statusDetailsRequest, statusTypesRequest } from '../support/soap-requests.js';

const HERE = new URL('./1.0.0/', import.meta.url);
const EVENTS_FILE = new URL('events.jsonl', HERE);
const ANSWERS_FILE = new URL('answers.json', HERE);
const RECORD = process.env.GOLDEN_RECORD === '1';

const LINKED = ['CLIENT-001', 'CLIENT-002'];
const PARTNER = { id: 'golden', password: 'golden-secret' };
const ACCOUNTS = {
  golden: { password: PARTNER.password, credential: { id: 'golden', scopes: ['order_status', 'osn'], clientIds: LINKED } },
} satisfies Record<string, { password: string; credential: Credential }>;
const LONG_AGO = '2000-01-01T00:00:00Z';
const FUTURE = '2999-01-01T00:00:00Z';

let mongo: MongoClient;
let db: Db;
let app: FastifyInstance;

/** The fixed stream: read through the contract, as the projector reads it. */
export async function goldenEvents(): Promise<ErpEvent[]> {
  const lines = (await readFile(EVENTS_FILE, 'utf8')).split('\n').filter((line) => line.length > 0);
  return lines.map((line) => {
    const read = parseErpEvent(line);
    if (!read.ok) throw new Error(`golden event refused: ${line}`);
    return read.event;
  });
}

/** Writes the folded read models into a fresh database and serves them with the real lookups. */
export async function serveFolded(events: ErpEvent[], folded: FoldResult, database: Db): Promise<FastifyInstance> {
  const collections = readModelCollections(database, 1);
  await ensureIndexes(collections);
  // One write per sales order, in the order of their last events, each on a later millisecond of
  // the store's clock: queryType 3 answers in change-time order, which is then the same every run.
  const lastEvent = new Map(events.map((event, index) => [`${event.clientId}:${event.salesOrderNumber}`, index]));
  const byLastEvent = <S>(states: Map<string, S>) => [...states].sort(([a], [b]) => (lastEvent.get(a) ?? 0) - (lastEvent.get(b) ?? 0)).map(([, s]) => s);
  for (const after of byLastEvent(folded.orderStatus)) {
    await writeEffects(collections, { orderStatus: [{ after }], shipments: [] });
    await setTimeout(2);
  }
  for (const after of byLastEvent(folded.shipments)) {
    await writeEffects(collections, { orderStatus: [], shipments: [{ after }] });
    await setTimeout(2);
  }
  return buildApp({
    logger: pino({ level: 'silent' }),
    publicBaseUrl: 'https://partners.example.com',
    lookups: new MongoOrderLookups(collections),
    authenticator: new FakeAuthenticator(ACCOUNTS),
  });
}

interface Answer {
  status: number;
  body: string;
}

/** Every request of the golden set, by name, over the references the stream holds. */
export async function askAll(server: FastifyInstance, folded: FoldResult): Promise<Record<string, Answer>> {
  const login = { id: PARTNER.id, password: PARTNER.password };
  const auth = { authorization: basic(PARTNER.id, PARTNER.password) };
  const states = [...folded.orderStatus.values()].sort((a, b) => (a.clientId + a.salesOrderNumber < b.clientId + b.salesOrderNumber ? -1 : 1));
  const purchaseOrders = [...new Set(states.flatMap((s) => (s.purchaseOrderNumber ? [s.purchaseOrderNumber] : [])))].sort();
  const salesOrders = [...new Set(states.map((s) => s.salesOrderNumber))].sort();
  const answers: Record<string, Answer> = {};
  const soap = async (name: string, url: string, request: string) => {
    const res = await post(server, url, request);
    answers[`soap ${name}`] = { status: res.statusCode, body: res.body };
  };
  const json = async (name: string, path: string, query: Record<string, string>) => {
    const res = await server.inject({ url: `${path}?${new URLSearchParams(query)}`, headers: auth });
    answers[`json ${name}`] = { status: res.statusCode, body: res.body };
  };
  const status = (fields: Record<string, string>) => soap(`oss ${JSON.stringify(fields)}`, ORDER_STATUS_URL, statusDetailsRequest({ ...login, ...fields }));
  const shipments = (fields: Record<string, string>) =>
    soap(`osn ${JSON.stringify(fields)}`, SHIPMENT_URL, shipmentRequest({ ...login, ...fields }));
  const jsonStatus = (query: Record<string, string>) => json(`status ${JSON.stringify(query)}`, '/api/partners/v1/orders/status', query);
  const jsonShipments = (query: Record<string, string>) => json(`shipments ${JSON.stringify(query)}`, '/api/partners/v1/orders/shipments', query);

  for (const po of [...purchaseOrders, 'PO-UNKNOWN']) {
    await status({ queryType: '1', referenceNumber: po });
    await shipments({ queryType: '1', referenceNumber: po });
    await jsonStatus({ queryType: '1', referenceNumber: po });
    await jsonShipments({ queryType: '1', referenceNumber: po });
  }
  for (const so of [...salesOrders, 'SO-UNKNOWN']) {
    await status({ queryType: '2', referenceNumber: so });
    await shipments({ queryType: '2', referenceNumber: so });
    await jsonStatus({ queryType: '2', referenceNumber: so });
    await jsonShipments({ queryType: '2', referenceNumber: so });
  }
  for (const since of [LONG_AGO, FUTURE]) {
    await status({ queryType: '3', statusTimeStamp: since });
    await shipments({ queryType: '3', shipmentDateTimeStamp: since });
    await jsonStatus({ queryType: '3', statusTimeStamp: since });
    await jsonShipments({ queryType: '3', shipmentDateTimeStamp: since });
  }
  await status({ queryType: '4' });
  await jsonStatus({ queryType: '4' });
  await soap('oss getOrderStatusTypes', ORDER_STATUS_URL, statusTypesRequest(login));
  // Refusals: a queryType the service lacks, a missing reference, a wrong password.
  await status({ queryType: '9' });
  await shipments({ queryType: '1' });
  await status({ queryType: '4', password: 'wrong' });
  await jsonStatus({ queryType: '9' });
  await jsonShipments({ queryType: '2' });
  return answers;
}

beforeAll(async () => {
  mongo = await connectMongo(servers().mongodbUri, 'golden-v1-test');
  db = mongo.db(uniqueNames('golden-v1').database);
});

afterAll(async () => {
  await app?.close();
  await db?.dropDatabase().catch(() => undefined);
  await mongo?.close();
});

it('answers 1.0.0 requests, SOAP and JSON, byte for byte as recorded on main before 2.0.0', async () => {
  const events = await goldenEvents();
  const folded = foldEvents(events);
  expect(folded.rejected).toEqual([]);
  app = await serveFolded(events, folded, db);
  const answers = await askAll(app, folded);
  expect(Object.keys(answers).length).toBeGreaterThan(100);

  if (RECORD) await writeFile(ANSWERS_FILE, `${JSON.stringify(answers, null, 1)}\n`);
  expect(existsSync(ANSWERS_FILE), 'no golden answers: record them with GOLDEN_RECORD=1 on main').toBe(true);
  const golden = JSON.parse(await readFile(ANSWERS_FILE, 'utf8')) as Record<string, Answer>;
  expect(Object.keys(answers)).toEqual(Object.keys(golden));
  for (const [name, answer] of Object.entries(golden)) expect(answers[name], name).toEqual(answer);
}, 120_000);
