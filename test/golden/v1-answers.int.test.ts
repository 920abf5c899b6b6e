// The 1.0.0 answers, byte for byte: SOAP and JSON, every queryType of both services and a few
// refusals, over one fixed event stream (events.jsonl, recorded from the demo generator before
// 2.0.0 was built) written to MongoDB as the projector writes it and read by the real lookups.
// The answers recorded on main before 2.0.0 (answers.json) must come back unchanged whatever
// is added beside them. GOLDEN_RECORD=1 records them again; without it a missing file fails.
// Beside them, oss-osn-2.0.0.md §9.3: the same answers over the stream with contract v2 content
// woven in (E) and over v1(E), and queryType 3 pollers shown nothing new by contract v2 events alone
// (2.0.0's too, for a package sent again with only OSN 2.1.0's shipReferences: docs/design/queries.md).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { setTimeout } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { Db, MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseErpEvent } from '../../contracts/parse-erp-event.js';
import { erpEventTypesV1, type ErpEvent } from '../../contracts/erp-events.js';
import { foldEvents, type FoldResult } from '../../projections/fold.js';
import { connectMongo } from '../../services/adapters/mongodb/connect.js';
import { ensureIndexes, readModelCollections } from '../../services/adapters/mongodb/documents.js';
import { MongoOrderLookups } from '../../services/adapters/mongodb/lookups.js';
import { changeTimeOverlapMs } from '../../services/adapters/mongodb/changed-since.js';
import { loadStates, writeEffects } from '../../services/adapters/mongodb/writes.js';
import { projectBatch } from '../../services/projector/project-batch.js';
import type { Credential } from '../../services/domain/credentials/credential.js';
import { buildApp } from '../../services/query/app.js';
import { basic } from '../support/json-requests.js';
import { FakeAuthenticator } from '../support/fake-ports.js';
import { servers, uniqueNames } from '../support/servers.js';
import {
  ORDER_STATUS_URL,
  ORDER_STATUS_V2_URL,
  osnV2Request,
  ossV2Request,
  post,
  SHIPMENT_V2_URL,
  SHIPMENT_URL,
  shipmentRequest,
  statusDetailsRequest,
  statusTypesRequest,
} from '../support/soap-requests.js';
import { V2_ONLY_SALES_ORDER, v1Of, withV2Content } from './v2-interleaved.js';
import { readWhole } from '../../contracts/lookups.js';
import { SHIPMENTS_JSON_V2_PATH } from '../../services/query/versions/2.0.0/json/plugin.js';

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
const databases: Db[] = [];
const apps: FastifyInstance[] = [];

/** A fresh database of this file's own, dropped after it. */
function freshDatabase(prefix: string): Db {
  const database = mongo.db(uniqueNames(prefix).database);
  databases.push(database);
  return database;
}

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
  // The 2.0.0 endpoints are served beside 1.0.0's, from the same lookups, as in production.
  const lookups = new MongoOrderLookups(collections);
  const app = await buildApp({
    logger: pino({ level: 'silent' }),
    publicBaseUrl: 'https://partners.example.com',
    lookups,
    lookupsV2: lookups,
    authenticator: new FakeAuthenticator(ACCOUNTS),
  });
  apps.push(app);
  return app;
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
});

afterAll(async () => {
  for (const app of apps) await app.close();
  for (const database of databases) await database.dropDatabase().catch(() => undefined);
  await mongo?.close();
});

async function recordedAnswers(): Promise<Record<string, Answer>> {
  expect(existsSync(ANSWERS_FILE), 'no golden answers: record them with GOLDEN_RECORD=1 on main').toBe(true);
  return JSON.parse(await readFile(ANSWERS_FILE, 'utf8')) as Record<string, Answer>;
}

it('answers 1.0.0 requests, SOAP and JSON, byte for byte as recorded on main before 2.0.0', async () => {
  const events = await goldenEvents();
  const folded = foldEvents(events);
  expect(folded.rejected).toEqual([]);
  const app = await serveFolded(events, folded, freshDatabase('golden-v1'));
  const answers = await askAll(app, folded);
  expect(Object.keys(answers).length).toBeGreaterThan(100);

  if (RECORD) await writeFile(ANSWERS_FILE, `${JSON.stringify(answers, null, 1)}\n`);
  expect(existsSync(ANSWERS_FILE), 'no golden answers: record them with GOLDEN_RECORD=1 on main').toBe(true);
  const golden = JSON.parse(await readFile(ANSWERS_FILE, 'utf8')) as Record<string, Answer>;
  expect(Object.keys(answers)).toEqual(Object.keys(golden));
  for (const [name, answer] of Object.entries(golden)) expect(answers[name], name).toEqual(answer);
}, 120_000);

it('answers 1.0.0 requests over a stream with contract v2 content (E) and over v1(E) byte for byte as recorded', async () => {
  const e = withV2Content(await goldenEvents());
  const v1e = v1Of(e);
  const foldedE = foldEvents(e);
  const foldedV1 = foldEvents(v1e);
  expect(foldedE.rejected).toEqual([]);
  expect(foldedV1.rejected).toEqual([]);
  // E holds contract v2 content of every kind, v1(E) none of it; the renumbered sequences stay in v1(E).
  const newTypes = e.filter((event) => !(erpEventTypesV1 as string[]).includes(event.type));
  expect(new Set(newTypes.map((event) => event.type))).toEqual(new Set(['IssueRecorded', 'SalesOrderLinesRecorded', 'OrderContactsRecorded']));
  expect(v1e).toHaveLength(e.length - newTypes.length);
  expect(v1e.every((event) => event.schemaVersion === 1 && event.sequence % 10 === 0)).toBe(true);
  const statesE = [...foldedE.orderStatus.values()];
  expect(statesE.filter((s) => s.statusV2 && s.additionalExplanation && s.lines?.length && s.contacts?.length && s.issues?.some((i) => i.source === 'erp')).length).toBeGreaterThan(3);
  const locationsE = [...foldedE.shipments.values()].flatMap((s) => s.locations);
  expect(locationsE.some((l) => l.customerPickup === true && l.shipTo.regionV2 === 'ONT' && l.packages.some((p) => p.carrierService && p.items?.some((i) => i.uom)))).toBe(true);
  expect(locationsE.some((l) => l.packages.some((p) => p.shipReferences?.length === 2))).toBe(true);
  expect(JSON.stringify([...foldedV1.orderStatus.values(), ...foldedV1.shipments.values()])).not.toMatch(/statusV2|regionV2|customerPickup|carrierService|"uom"|"lines"|"contacts"|shipReferences/);

  const golden = await recordedAnswers();
  const appE = await serveFolded(e, foldedE, freshDatabase('golden-v2-e'));
  const appV1 = await serveFolded(v1e, foldedV1, freshDatabase('golden-v2-v1e'));
  // The same requests (references from v1(E)): the sales order E alone knows, from v2 events only, is asked below.
  for (const [name, server] of [['E', appE], ['v1(E)', appV1]] as const) {
    const answers = await askAll(server, foldedV1);
    expect(Object.keys(answers), name).toEqual(Object.keys(golden));
    for (const [request, answer] of Object.entries(golden)) expect(answers[request], `${name}: ${request}`).toEqual(answer);
  }

  // A sales order that only v2 events made (no status, no purchase order number) is unknown to 1.0.0.
  const login = { id: PARTNER.id, password: PARTNER.password };
  const unknown = (await post(appE, ORDER_STATUS_URL, statusDetailsRequest({ ...login, queryType: '2', referenceNumber: 'SO-UNKNOWN' }))).body;
  const v2Only = await post(appE, ORDER_STATUS_URL, statusDetailsRequest({ ...login, queryType: '2', referenceNumber: V2_ONLY_SALES_ORDER.salesOrderNumber }));
  expect(v2Only.body).toBe(unknown);
  const v2OnlyJson = await appE.inject({ url: `/api/partners/v1/orders/status?queryType=2&referenceNumber=${V2_ONLY_SALES_ORDER.salesOrderNumber}`, headers: { authorization: basic(PARTNER.id, PARTNER.password) } });
  expect(v2OnlyJson.body).toBe('{"orders":[]}');

  // While the store E was written to holds the v2 content: 2.0.0 finds an ERP issue there.
  const withIssue = statesE.find((s) => LINKED.includes(s.clientId) && s.purchaseOrderNumber && s.issues?.some((i) => i.source === 'erp'))!;
  const issueId = withIssue.issues!.find((i) => i.source === 'erp')!.issueId;
  const issueAnswer = await post(appE, ORDER_STATUS_V2_URL, ossV2Request('GetIssueRequest', { ...login, issueId }));
  expect(issueAnswer.body).toContain(`<issueId>${issueId}</issueId>`);
}, 120_000);

it('1.0.0 queryType 3 (SOAP and JSON, statuses and shipments) shows a poller nothing new when only contract v2 changes came after its poll', async () => {
  const events = await goldenEvents();
  const folded = foldEvents(events);
  const database = freshDatabase('golden-v2-poll');
  const app = await serveFolded(events, folded, database);
  const collections = readModelCollections(database, 1);
  const lastShipped = Math.max(...[...folded.shipments.values()].flatMap((s) => s.locations.flatMap((l) => l.packages.map((p) => p.shipmentDate.getTime()))));
  // A poll taken more than the 5 s overlap (plus a second for the clocks) after the v1 states were
  // written: what the poll asks from cannot reach back to them, only to what is written after it.
  await setTimeout(changeTimeOverlapMs + 1_000);
  const pollTime = new Date();
  expect(lastShipped).toBeLessThan(pollTime.getTime()); // no package matches by its shipmentDate alone

  // Contract v2 alone, through the projector's write path: issues, lines and contacts on sales
  // orders with and without shipments, and a location recorded again with only v2 fields added.
  const answerable = [...folded.orderStatus.values()].filter((s) => LINKED.includes(s.clientId) && s.purchaseOrderNumber !== undefined);
  const withLocation = [...folded.shipments.values()].find((s) => LINKED.includes(s.clientId) && s.purchaseOrderNumber && s.locations.some((l) => l.packages.length > 0))!;
  const touched = [...new Set([...answerable.slice(0, 4), folded.orderStatus.get(`${withLocation.clientId}:${withLocation.salesOrderNumber}`)!])];
  const nextSequence = (clientId: string, salesOrderNumber: string) =>
    Math.max(folded.orderStatus.get(`${clientId}:${salesOrderNumber}`)?.sequence ?? 0, folded.shipments.get(`${clientId}:${salesOrderNumber}`)?.sequence ?? 0) + 1;
  const v2Events = touched.flatMap(({ clientId, salesOrderNumber }, i) => {
    const base = nextSequence(clientId, salesOrderNumber);
    const envelope = (type: string, offset: number, data: Record<string, unknown>) => ({
      eventId: `00000000-0000-4000-9000-${(i * 10 + offset).toString(16).padStart(12, '0')}`,
      type,
      schemaVersion: 2,
      clientId,
      salesOrderNumber,
      sequence: base + offset,
      occurredAt: '2026-11-01T12:00:00Z',
      data,
    });
    return [
      envelope('IssueRecorded', 0, { issueId: `ISS-POLL-${i}`, issueStatus: 'Open', issueCategory: 'artHold' }),
      envelope('SalesOrderLinesRecorded', 1, { lines: [{ salesOrderLineNumber: '1', productId: 'MUG-11OZ', quantityOrdered: { value: 6, uom: 'EA' } }] }),
      envelope('OrderContactsRecorded', 2, { contacts: [{ contactType: 'Order', email: 'orders@buyer.example' }] }),
    ];
  });
  const location = withLocation.locations.find((l) => l.packages.length > 0)!;
  const relocated = {
    eventId: '00000000-0000-4000-9000-0000000000ff',
    type: 'ShipmentLocationRecorded',
    schemaVersion: 2,
    clientId: withLocation.clientId,
    salesOrderNumber: withLocation.salesOrderNumber,
    sequence: nextSequence(withLocation.clientId, withLocation.salesOrderNumber) + 3,
    occurredAt: '2026-11-01T12:00:01Z',
    data: {
      locationId: location.locationId,
      shipFrom: { ...location.shipFrom, attentionTo: 'Dock 4' },
      shipTo: { ...location.shipTo, companyName: 'Buyer Inc', regionV2: 'IDA' },
      ...(location.shipmentDestinationType ? { shipmentDestinationType: location.shipmentDestinationType } : {}),
      customerPickup: true,
    },
  };
  // One of its packages sent again as it was, with OSN 2.1.0's shipReferences added: news to 2.1.0 alone.
  const { packageId, shipmentDate, ...sameAsShipped } = location.packages[0]!;
  const referenced = {
    ...relocated,
    eventId: '00000000-0000-4000-9000-0000000000fe',
    type: 'PackageShipped',
    sequence: relocated.sequence + 1,
    data: { ...sameAsShipped, locationId: location.locationId, packageId, shipmentDate: shipmentDate.toISOString(), shipReferences: ['REF-AFTER-POLL'] },
  };
  const projected = await project(collections, [...v2Events, relocated, referenced]);
  expect(projected.effects.orderStatus).toHaveLength(touched.length);
  expect(projected.effects.shipments).toHaveLength(1);

  const golden = await recordedAnswers();
  const since = pollTime.toISOString();
  const nothingNew = async () => {
    expect((await ask(app, 'oss', since)).body).toBe(golden[`soap oss {"queryType":"3","statusTimeStamp":"${FUTURE}"}`]!.body);
    expect((await ask(app, 'osn', since)).body).toBe(golden[`soap osn {"queryType":"3","shipmentDateTimeStamp":"${FUTURE}"}`]!.body);
    expect((await ask(app, 'status', since)).body).toBe(golden[`json status {"queryType":"3","statusTimeStamp":"${FUTURE}"}`]!.body);
    expect((await ask(app, 'shipments', since)).body).toBe(golden[`json shipments {"queryType":"3","shipmentDateTimeStamp":"${FUTURE}"}`]!.body);
  };
  await nothingNew();
  // Nor does 2.0.0's queryType 3, SOAP or JSON: byte for byte its answer to a poll from the future.
  const osnV2 = (at: string) => post(app, SHIPMENT_V2_URL, osnV2Request({ id: PARTNER.id, password: PARTNER.password, queryType: '3', shipmentDateTimestamp: at }));
  const shipmentsV2 = (at: string) =>
    app.inject({ url: `${SHIPMENTS_JSON_V2_PATH}?${new URLSearchParams({ queryType: '3', shipmentDateTimestamp: at })}`, headers: { authorization: basic(PARTNER.id, PARTNER.password) } });
  expect((await osnV2(since)).body).toBe((await osnV2(FUTURE)).body);
  expect((await shipmentsV2(since)).body).toBe((await shipmentsV2(FUTURE)).body);
  // 2.1.0's lookup does answer the package, with its references.
  const v21 = await readWhole(await new MongoOrderLookups(collections).shipmentNotificationV21Batches(LINKED, { queryType: 3, shipmentDateTimeStamp: pollTime }));
  expect(v21.orders.flatMap((o) => o.salesOrders.flatMap((s) => s.shipments.flatMap((l) => l.packages.map((p) => [s.salesOrderNumber, p.id, p.shipReferences]))))).toEqual([
    [withLocation.salesOrderNumber, packageId, ['REF-AFTER-POLL']],
  ]);
  // 2.0.0's lastUpdate does see them: the writes happened after the poll time.
  const lastUpdate = await post(app, ORDER_STATUS_V2_URL, ossV2Request('GetOrderStatusRequest', { id: PARTNER.id, password: PARTNER.password, queryType: 'lastUpdate', statusTimeStamp: since }));
  expect([...lastUpdate.body.matchAll(/<salesOrderNumber>([^<]*)</g)].map((m) => m[1]).sort()).toEqual(touched.map((s) => s.salesOrderNumber).sort());

  // The same poll does show a status change and a new package written after it (so the times above could show news).
  const status = touched[0]!;
  const statusChange = { ...v2Events[0]!, eventId: '00000000-0000-4000-9000-000000000100', type: 'SalesOrderStatusChanged', schemaVersion: 1, clientId: status.clientId, salesOrderNumber: status.salesOrderNumber, sequence: 1_000, data: { purchaseOrderNumber: status.purchaseOrderNumber, statusId: 60 } };
  const shipped = { ...relocated, eventId: '00000000-0000-4000-9000-000000000101', type: 'PackageShipped', schemaVersion: 1, sequence: 1_001, data: { locationId: location.locationId, packageId: 999, trackingNumber: 'TRK-AFTER-POLL', shipmentDate: '2026-10-01T00:00:00Z' } };
  await project(collections, [statusChange, shipped]);
  expect((await ask(app, 'oss', since)).body).toMatch(new RegExp(`<factoryOrderNumber>${status.salesOrderNumber}</factoryOrderNumber><statusID>60</statusID>`));
  expect((await ask(app, 'status', since)).json<{ orders: unknown[] }>().orders).toHaveLength(1);
  expect((await ask(app, 'osn', since)).body).toContain('TRK-AFTER-POLL');
  expect((await ask(app, 'shipments', since)).body).toContain('TRK-AFTER-POLL');
}, 120_000);

/** Reads the events as the projector does and writes their effects through the store's write path. */
async function project(collections: ReturnType<typeof readModelCollections>, sent: object[]) {
  const events = sent.map((event) => {
    const read = parseErpEvent(JSON.stringify(event));
    if (!read.ok) throw new Error(`refused: ${JSON.stringify(event)}: ${read.errors.join('; ')}`);
    return read.event;
  });
  const keys = [...new Set(events.map((event) => `${event.clientId}:${event.salesOrderNumber}`))];
  const batch = projectBatch(await loadStates(collections, keys), events.map((event) => ({ event, source: event })));
  expect(batch.rejected).toEqual([]);
  await writeEffects(collections, batch.effects);
  return batch;
}

/** A 1.0.0 queryType 3 request since `since`: SOAP or JSON, statuses or shipments. */
function ask(server: FastifyInstance, what: 'oss' | 'osn' | 'status' | 'shipments', since: string) {
  const login = { id: PARTNER.id, password: PARTNER.password };
  const headers = { authorization: basic(PARTNER.id, PARTNER.password) };
  switch (what) {
    case 'oss':
      return post(server, ORDER_STATUS_URL, statusDetailsRequest({ ...login, queryType: '3', statusTimeStamp: since }));
    case 'osn':
      return post(server, SHIPMENT_URL, shipmentRequest({ ...login, queryType: '3', shipmentDateTimeStamp: since }));
    case 'status':
      return server.inject({ url: `/api/partners/v1/orders/status?${new URLSearchParams({ queryType: '3', statusTimeStamp: since })}`, headers });
    case 'shipments':
      return server.inject({ url: `/api/partners/v1/orders/shipments?${new URLSearchParams({ queryType: '3', shipmentDateTimeStamp: since })}`, headers });
  }
}
