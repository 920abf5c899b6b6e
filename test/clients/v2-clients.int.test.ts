// Generic SOAP clients against the 2.0.0 endpoints of the real app, end to end: zeep 4.3.3 (strict)
// loads both served 2.0.0 WSDLs, calls every operation (each OSS queryType and flag, OSN 1, 2 and 3)
// and parses every answer, which must hold what the real MongoDB lookups find; node-soap sends an
// OSN 2.0.0 request its own way (fields in the service namespace) and gets the same answer.
// The data set is the demo one (contract v1 events): it has no ERP issues, product lines or
// contacts, so getIssue is answered 301 and allOpenIssues an empty answer here; the answers' other
// parts are tested against the XSDs in services/query/v2.
import { randomBytes } from 'node:crypto';
import type { Db, MongoClient } from 'mongodb';
import soap from 'soap';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderStatusV2Query, ShipmentQuery } from '../../contracts/lookups.js';
import type { FoldResult } from '../../projections/fold.js';
import { callZeep, type ZeepOutcome } from '../../scripts/python/zeep-client.js';
import { ensurePythonVenv } from '../../scripts/python/venv.js';
import { connectMongo } from '../../services/adapters/mongodb/connect.js';
import { MongoOrderLookups } from '../../services/adapters/mongodb/lookups.js';
import { CachingAuthenticator } from '../../services/domain/credentials/authenticator.js';
import { CredentialStore, credentialsCollection } from '../../services/domain/credentials/credential-store.js';
import { createLogger } from '../../services/plumbing/logging/logger.js';
import { ORDER_STATUS_V2_PATH, SHIPMENT_NOTIFICATION_V2_PATH } from '../../services/query/v2/soap/plugin.js';
import { servers, uniqueNames } from '../support/servers.js';
import { addCredential, seedDemoReadModels } from './demo-store.js';
import { startRealApp, type RealApp } from './real-app.js';

const LINKED = ['CLIENT-001', 'CLIENT-002'];
const PARTNER = { id: 'partner-v2-clients', password: randomBytes(12).toString('base64url') };
const LOGIN = { wsVersion: '2.0.0', id: PARTNER.id, password: PARTNER.password };

let mongo: MongoClient;
let db: Db;
let lookups: MongoOrderLookups;
let folded: FoldResult;
let real: RealApp;
let seededFrom: Date;

const ossWsdl = () => `${real.url}${ORDER_STATUS_V2_PATH}?wsdl`;
const osnWsdl = () => `${real.url}${SHIPMENT_NOTIFICATION_V2_PATH}?wsdl`;

beforeAll(async () => {
  mongo = await connectMongo(servers().mongodbUri, 'v2-clients-test');
  db = mongo.db(uniqueNames('v2-clients').database);
  seededFrom = new Date(Date.now() - 60_000);
  const seeded = await seedDemoReadModels(db, { clients: 3, orders: 40, seed: 20_260_102 });
  folded = seeded.folded;
  lookups = new MongoOrderLookups(seeded.collections);
  await addCredential(db, { ...PARTNER, scopes: ['order_status', 'osn'], clientIds: LINKED });
  real = await startRealApp({
    logger: createLogger('v2-clients-test', 'warn'),
    lookups,
    lookupsV2: lookups,
    authenticator: new CachingAuthenticator(new CredentialStore(credentialsCollection(db))),
  });
}, 180_000);

afterAll(async () => {
  await real?.close();
  await db?.dropDatabase().catch(() => undefined);
  await mongo?.close();
});

// ---- what to ask for, from the folded demo data

const linkedStatuses = () => [...folded.orderStatus.values()].filter((s) => LINKED.includes(s.clientId) && s.purchaseOrderNumber !== undefined);

function aPurchaseOrder(): string {
  const po = linkedStatuses()[0]?.purchaseOrderNumber;
  if (!po) throw new Error('the demo data set has no purchase order of a linked client');
  return po;
}

function aSalesOrder(): string {
  const so = linkedStatuses()[1]?.salesOrderNumber;
  if (!so) throw new Error('the demo data set has no sales order of a linked client');
  return so;
}

function shipped() {
  const s = [...folded.shipments.values()].find((x) => LINKED.includes(x.clientId) && x.purchaseOrderNumber !== undefined && x.locations.some((l) => l.packages.length > 0));
  if (!s?.purchaseOrderNumber) throw new Error('the demo data set has no shipped purchase order');
  return { po: s.purchaseOrderNumber, so: s.salesOrderNumber };
}

function medianShipmentDate(): string {
  const dates = [...folded.shipments.values()]
    .filter((s) => LINKED.includes(s.clientId))
    .flatMap((s) => s.locations.flatMap((l) => l.packages.map((p) => p.shipmentDate.getTime())))
    .sort((a, b) => a - b);
  return new Date(dates[Math.floor(dates.length / 2)] ?? 0).toISOString();
}

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] => (value === null || value === undefined ? [] : Array.isArray(value) ? (value as Json[]) : [value as Json]);
const inner = (value: unknown, item: string): Json[] => list((value as Json | null | undefined)?.[item]);

/** Purchase orders with their sales orders and statuses, as zeep or node-soap parsed them. */
function statusesFromWire(answer: unknown) {
  return inner((answer as Json)['OrderStatusArray'], 'OrderStatus').map((o) => ({
    po: o['purchaseOrderNumber'],
    details: inner(o['OrderStatusDetailArray'], 'OrderStatusDetail').map((d) => [d['salesOrderNumber'], d['status']]),
  }));
}

async function expectedStatuses(query: OrderStatusV2Query) {
  const answer = await lookups.orderStatusV2(LINKED, query);
  return answer.orders.map((o) => ({ po: o.purchaseOrderNumber, details: o.details.map((d) => [d.salesOrderNumber, d.status]) }));
}

const poOf = (answer: unknown) => inner((answer as Json)['OrderShipmentNotificationArray'], 'OrderShipmentNotification').map((n) => n['purchaseOrderNumber']);

async function expectedShipments(query: ShipmentQuery) {
  return (await lookups.shipmentNotificationsV2(LINKED, query)).orders.map((o) => o.purchaseOrderNumber);
}

const messagesOf = (answer: unknown) => inner((answer as Json)['ServiceMessageArray'], 'ServiceMessage').map((m) => [m['code'], m['severity']]);

interface StatusCase {
  name: string;
  args: () => Json;
  query: () => OrderStatusV2Query;
  nonEmpty: boolean;
}

const STATUS_CASES: StatusCase[] = [
  {
    name: 'poSearch with every issue and the product lines',
    args: () => ({ queryType: 'poSearch', referenceNumber: aPurchaseOrder(), returnIssueDetailType: 'allIssues', returnProductDetail: true }),
    query: () => ({ queryType: 'poSearch', referenceNumber: aPurchaseOrder(), returnIssueDetailType: 'allIssues', returnProductDetail: true }),
    nonEmpty: true,
  },
  {
    name: 'soSearch',
    args: () => ({ queryType: 'soSearch', referenceNumber: aSalesOrder() }),
    query: () => ({ queryType: 'soSearch', referenceNumber: aSalesOrder(), returnIssueDetailType: 'noIssues', returnProductDetail: false }),
    nonEmpty: true,
  },
  {
    name: 'lastUpdate since before the data was written, open issues',
    args: () => ({ queryType: 'lastUpdate', statusTimeStamp: seededFrom.toISOString(), returnIssueDetailType: 'openIssues' }),
    query: () => ({ queryType: 'lastUpdate', statusTimeStamp: seededFrom, returnIssueDetailType: 'openIssues', returnProductDetail: false }),
    nonEmpty: true,
  },
  {
    name: 'lastUpdate in the future (an empty answer)',
    args: () => ({ queryType: 'lastUpdate', statusTimeStamp: '2100-01-01T00:00:00Z' }),
    query: () => ({ queryType: 'lastUpdate', statusTimeStamp: new Date('2100-01-01T00:00:00Z'), returnIssueDetailType: 'noIssues', returnProductDetail: false }),
    nonEmpty: false,
  },
  {
    name: 'allOpen, products asked for',
    args: () => ({ queryType: 'allOpen', returnProductDetail: true }),
    query: () => ({ queryType: 'allOpen', returnIssueDetailType: 'noIssues', returnProductDetail: true }),
    nonEmpty: true,
  },
  {
    name: 'allOpenIssues',
    args: () => ({ queryType: 'allOpenIssues' }),
    query: () => ({ queryType: 'allOpenIssues', returnIssueDetailType: 'openIssues', returnProductDetail: false }),
    nonEmpty: false,
  },
];

describe('zeep 4.3.3 (strict) against the 2.0.0 endpoints of the real app', () => {
  let python: string;

  beforeAll(async () => {
    python = await ensurePythonVenv();
  }, 900_000);

  const answerOf = (outcome: ZeepOutcome): unknown => {
    if ('fault' in outcome) throw new Error(`zeep got a fault: ${outcome.fault.faultcode} ${outcome.fault.faultstring}`);
    return outcome.answer;
  };

  it.each(STATUS_CASES)('getOrderStatus $name: the lookups’ orders', async (c) => {
    const expected = await expectedStatuses(c.query());
    if (c.nonEmpty) expect(expected.length).toBeGreaterThan(0);
    const answer = answerOf(await callZeep(python, ossWsdl(), 'getOrderStatus', { ...LOGIN, ...c.args() }));
    expect(statusesFromWire(answer)).toEqual(expected);
    expect(messagesOf(answer)).toEqual([]);
  });

  it('getOrderStatus of another client’s or no purchase order: 301 in the answer', async () => {
    const answer = answerOf(await callZeep(python, ossWsdl(), 'getOrderStatus', { ...LOGIN, queryType: 'poSearch', referenceNumber: 'PO-NOBODY' }));
    expect(messagesOf(answer)).toEqual([[301, 'Error']]);
  });

  it('getIssue: 301 for an issue the credential’s clients do not have', async () => {
    const answer = answerOf(await callZeep(python, ossWsdl(), 'getIssue', { ...LOGIN, issueId: 'ISSUE-NOBODY' }));
    expect(messagesOf(answer)).toEqual([[301, 'Error']]);
    expect((answer as Json)['IssueArray']).toBeNull();
  });

  it('getServiceMethods: the three operations', async () => {
    const answer = answerOf(await callZeep(python, ossWsdl(), 'getServiceMethods', LOGIN));
    expect((answer as Json)['ServiceMethodArray']).toEqual({ serviceMethod: ['getOrderStatus', 'getIssue', 'getServiceMethods'] });
  });

  it('a wrong password: 105 in the answer, no fault', async () => {
    const answer = answerOf(await callZeep(python, ossWsdl(), 'getServiceMethods', { ...LOGIN, password: `${PARTNER.password}-wrong` }));
    expect(messagesOf(answer)).toEqual([[105, 'Error']]);
  });

  it.each([
    ['1, a shipped purchase order', () => ({ queryType: 1, referenceNumber: shipped().po }), (): ShipmentQuery => ({ queryType: 1, referenceNumber: shipped().po })],
    ['2, its sales order', () => ({ queryType: 2, referenceNumber: shipped().so }), (): ShipmentQuery => ({ queryType: 2, referenceNumber: shipped().so })],
    ['3, since the median shipment date', () => ({ queryType: 3, shipmentDateTimestamp: medianShipmentDate() }), (): ShipmentQuery => ({ queryType: 3, shipmentDateTimeStamp: new Date(medianShipmentDate()) })],
  ])('getOrderShipmentNotification %s: the lookups’ purchase orders', async (_name, args, query) => {
    const expected = await expectedShipments(query());
    expect(expected.length).toBeGreaterThan(0);
    const answer = answerOf(await callZeep(python, osnWsdl(), 'getOrderShipmentNotification', { ...LOGIN, ...args() }));
    expect(poOf(answer)).toEqual(expected);
  });
});

describe('node-soap against the OSN 2.0.0 endpoint', () => {
  it('reads the served WSDL, sends its fields in the service namespace, parses the answer', async () => {
    const osn = await soap.createClientAsync(osnWsdl());
    const { po } = shipped();
    const [answer] = (await osn.getOrderShipmentNotificationAsync({ ...LOGIN, queryType: 1, referenceNumber: po })) as [unknown];
    expect(osn.lastEndpoint).toBe(`${real.url}${SHIPMENT_NOTIFICATION_V2_PATH}`);
    // The fields in M, not in SharedObjects where the XSD puts them: read all the same.
    expect(osn.lastRequest).toMatch(/<(\w+):referenceNumber xmlns:\1="http:\/\/www\.promostandards\.org\/WSDL\/OrderShipmentNotificationService\/2\.0\.0\/">/);
    expect(poOf(answer)).toEqual(await expectedShipments({ queryType: 1, referenceNumber: po }));
  });
});
