// The SOAP and JSON twins of each lookup return the same orders for the same arguments
// (queries.md), checked over the demo data set in the real MongoDB-protocol server, with a real
// credential (scrypt hash in the store, the caching authenticator).
import type { FastifyInstance } from 'fastify';
import type { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoEvents } from '../../../../ossn/demo-events/demo-events.js';
import { foldEvents } from '../../../../../projections/fold.js';
import type { OrderStatusState, ShipmentsState } from '../../../../../projections/state.js';
import { servers, uniqueNames } from '../../../../../test/support/servers.js';
import { CachingAuthenticator } from '../../../../domain/credentials/authenticator.js';
import { CredentialStore, credentialsCollection } from '../../../../adapters/mongodb/credential-store.js';
import { demoClientIds, demoCredentialId, ensureDemoCredential } from '../../../../domain/credentials/demo-credential.js';
import { connectMongo } from '../../../../adapters/mongodb/connect.js';
import { ensureIndexes, readModelCollections } from '../../../../adapters/mongodb/documents.js';
import { MongoOrderLookups } from '../../../../adapters/mongodb/lookups.js';
import { writeEffects } from '../../../../adapters/mongodb/writes.js';
import { buildApp } from '../../../app.js';
import { answerBody, ORDER_STATUS_URL, post, SHIPMENT_URL, shipmentRequest, statusDetailsRequest } from '../../../../../test/support/soap-requests.js';
import { basic } from '../../../../../test/support/json-requests.js';

let mongo: MongoClient;
let app: FastifyInstance;
let login: { id: string; password: string };
let statuses: OrderStatusState[];
let shipments: ShipmentsState[];

beforeAll(async () => {
  mongo = await connectMongo(servers().mongodbUri, 'json-twins-test');
  const db = mongo.db(uniqueNames('json-twins').database);
  const collections = readModelCollections(db, 1);
  await ensureIndexes(collections);
  // Three clients: the demo credential is linked to the first two only.
  const folded = foldEvents(generateDemoEvents({ clients: 3, orders: 60, seed: 42 }));
  statuses = [...folded.orderStatus.values()];
  shipments = [...folded.shipments.values()];
  await writeEffects(collections, { orderStatus: statuses.map((after) => ({ after })), shipments: shipments.map((after) => ({ after })) });

  const store = new CredentialStore(credentialsCollection(db));
  login = { id: demoCredentialId, password: 'twins-demo-password' };
  await ensureDemoCredential(store, login.password);
  app = await buildApp({
    logger: pino({ level: 'silent' }),
    publicBaseUrl: 'http://x',
    lookups: new MongoOrderLookups(collections),
    authenticator: new CachingAuthenticator(store),
  });
});
afterAll(async () => {
  await app?.close();
  await mongo?.close();
});


type Node = Record<string, unknown>;
const list = (node: unknown, ...path: string[]): Node[] => {
  let at: unknown = node;
  for (const key of path) at = (at as Node | undefined)?.[key];
  return (at as Node[] | undefined) ?? [];
};
const body = (xml: string, element: string): Node => {
  const answer = answerBody(xml);
  expect(answer['Fault']).toBeUndefined();
  return answer[element] as Node;
};

// Both answers in one comparable form: the JSON fields, with SOAP text read as numbers, booleans, instants.
const time = (value: unknown) => (value === undefined ? undefined : new Date(String(value)).getTime());
const bool = (value: unknown) => (value === undefined ? undefined : String(value) === 'true');
const num = (value: unknown) => (value === undefined ? undefined : Number(value));
const clean = <T extends Node>(node: T): T => Object.fromEntries(Object.entries(node).filter(([, v]) => v !== undefined)) as T;

function statusDetail(d: Node) {
  return clean({
    factoryOrderNumber: d['factoryOrderNumber'],
    statusID: num(d['statusID']),
    statusName: d['statusName'],
    expectedShipDate: time(d['expectedShipDate']),
    expectedDeliveryDate: time(d['expectedDeliveryDate']),
    responseRequired: bool(d['responseRequired']),
    validTimestamp: time(d['validTimestamp']),
  });
}

function address(a: Node) {
  return clean({ address1: a['address1'], address2: a['address2'], city: a['city'], region: a['region'], postalCode: a['postalCode'], country: a['country'] });
}

function shipmentTree(notifications: Node[], soap: boolean) {
  const pick = (node: Node, soapPath: string[], jsonKey: string) => (soap ? list(node, ...soapPath) : list(node, jsonKey));
  return notifications.map((n) => ({
    purchaseOrderNumber: n['purchaseOrderNumber'],
    complete: bool(String(n['complete'])),
    salesOrders: pick(n, ['SalesOrderArray', 'SalesOrder'], 'salesOrders').map((so) => ({
      salesOrderNumber: so['salesOrderNumber'],
      complete: bool(String(so['complete'])),
      locations: pick(so, ['ShipmentLocationArray', 'ShipmentLocation'], 'locations').map((l) => ({
        id: num(l['id']),
        complete: bool(String(l['complete'])),
        shipFrom: address((soap ? l['ShipFromAddress'] : l['shipFromAddress']) as Node),
        shipTo: address((soap ? l['ShipToAddress'] : l['shipToAddress']) as Node),
        packages: pick(l, ['PackageArray', 'Package'], 'packages').map((p) =>
          clean({
            id: num(p['id']),
            trackingNumber: p['trackingNumber'],
            shipmentDate: time(p['shipmentDate']),
            carrier: p['carrier'],
            shipmentMethod: p['shipmentMethod'],
            weight: num(p['weight']),
            weightUOM: p['weightUOM'],
          }),
        ),
      })),
    })),
  }));
}

async function bothStatus(args: Record<string, string>) {
  const soapArgs = { statusTimeStamp: '2000-01-01T00:00:00Z', ...args, id: login.id, password: login.password };
  const soapRes = await post(app, ORDER_STATUS_URL, statusDetailsRequest(soapArgs));
  expect(soapRes.statusCode).toBe(200);
  const soap = list(body(soapRes.body, 'GetOrderStatusDetailsResponse'), 'OrderStatusArray', 'OrderStatus').map((o) => ({
    purchaseOrderNumber: o['purchaseOrderNumber'],
    details: list(o, 'OrderStatusDetailArray', 'OrderStatusDetail').map(statusDetail),
  }));
  const jsonRes = await app.inject({ url: `/api/partners/v1/orders/status?${new URLSearchParams(args)}`, headers: { authorization: basic(login.id, login.password) } });
  expect(jsonRes.statusCode).toBe(200);
  const json = (jsonRes.json().orders as Node[]).map((o) => ({ purchaseOrderNumber: o['purchaseOrderNumber'], details: list(o, 'details').map(statusDetail) }));
  return { soap, json };
}

async function bothShipments(args: Record<string, string>) {
  const soapRes = await post(app, SHIPMENT_URL, shipmentRequest({ shipmentDateTimeStamp: undefined, ...args, id: login.id, password: login.password }));
  expect(soapRes.statusCode).toBe(200);
  const soap = shipmentTree(list(body(soapRes.body, 'GetOrderShipmentNotificationResponse'), 'OrderShipmentNotificationArray', 'OrderShipmentNotification'), true);
  const jsonRes = await app.inject({ url: `/api/partners/v1/orders/shipments?${new URLSearchParams(args)}`, headers: { authorization: basic(login.id, login.password) } });
  expect(jsonRes.statusCode).toBe(200);
  return { soap, json: shipmentTree(jsonRes.json().shipments as Node[], false) };
}

const linked = <T extends { clientId: string }>(states: T[]) => states.filter((s) => demoClientIds.includes(s.clientId));

/** What identifies an answer's orders: each purchase order with its sales orders and their statuses, in answer order. */
const orderKeys = (orders: { purchaseOrderNumber: unknown; details: { factoryOrderNumber?: unknown; statusID?: unknown }[] }[]) =>
  orders.map((o) => ({ purchaseOrderNumber: o.purchaseOrderNumber, details: o.details.map((d) => ({ factoryOrderNumber: d.factoryOrderNumber, statusID: d.statusID })) }));
/** The same from the reference fold's states: by purchase order, client and sales order (binary order, as the store sorts). */
function expectedOrders(states: OrderStatusState[]) {
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const sorted = [...states].sort((a, b) => order(a.purchaseOrderNumber!, b.purchaseOrderNumber!) || order(a.clientId, b.clientId) || order(a.salesOrderNumber, b.salesOrderNumber));
  const groups = new Map<string, OrderStatusState[]>();
  for (const s of sorted) groups.set(s.purchaseOrderNumber!, [...(groups.get(s.purchaseOrderNumber!) ?? []), s]);
  return [...groups].map(([purchaseOrderNumber, members]) => ({
    purchaseOrderNumber,
    details: members.map((s) => ({ factoryOrderNumber: s.salesOrderNumber, statusID: s.statusId })),
  }));
}
const sample = <T>(items: T[], n: number) => items.filter((_, i) => i % Math.max(1, Math.floor(items.length / n)) === 0).slice(0, n);

describe('order status', () => {
  it('queryType 4 (open orders) and 3 (changed since) answer the same non-trivial lists', async () => {
    const cases: [Record<string, string>, boolean][] = [
      [{ queryType: '4' }, true],
      [{ queryType: '3', statusTimeStamp: '2000-01-01T00:00:00Z' }, true],
      [{ queryType: '3', statusTimeStamp: '2999-01-01T00:00:00Z' }, false],
    ];
    for (const [args, expectOrders] of cases) {
      const { soap, json } = await bothStatus(args);
      expect(json).toEqual(soap);
      expect(json.length > 20).toBe(expectOrders);
    }
  });

  it('queryType 1 per purchase order number and 2 per sales order number', async () => {
    const withPo = linked(statuses).filter((s) => s.purchaseOrderNumber);
    const poNumbers = sample([...new Set(withPo.map((s) => s.purchaseOrderNumber!))], 12);
    for (const referenceNumber of [...poNumbers, 'PO-NONE']) {
      const { soap, json } = await bothStatus({ queryType: '1', referenceNumber });
      expect(json).toEqual(soap);
      expect(orderKeys(json)).toEqual(expectedOrders(withPo.filter((s) => s.purchaseOrderNumber === referenceNumber)));
    }

    // Answered only with a purchase order number, and only for the credential's clients.
    const withoutPo = linked(statuses).find((s) => !s.purchaseOrderNumber);
    const otherClient = statuses.find((s) => !demoClientIds.includes(s.clientId) && s.purchaseOrderNumber);
    expect([withoutPo, otherClient]).toEqual([expect.anything(), expect.anything()]);
    const soNumbers = [...sample(withPo.map((s) => s.salesOrderNumber), 12), withoutPo!.salesOrderNumber, otherClient!.salesOrderNumber];
    for (const referenceNumber of soNumbers) {
      const { soap, json } = await bothStatus({ queryType: '2', referenceNumber });
      expect(json).toEqual(soap);
      expect(orderKeys(json)).toEqual(expectedOrders(withPo.filter((s) => s.salesOrderNumber === referenceNumber)));
    }
  });

  it('other queryTypes: both empty', async () => {
    const { soap, json } = await bothStatus({ queryType: '7' });
    expect([soap, json]).toEqual([[], []]);
  });
});

describe('shipment notification', () => {
  it('queryType 3 (shipped since) from the start and from the middle of the data set', async () => {
    const dates = linked(shipments)
      .flatMap((s) => s.locations.flatMap((l) => l.packages.map((p) => p.shipmentDate.getTime())))
      .sort((a, b) => a - b);
    expect(dates.length).toBeGreaterThan(10);
    const middle = new Date(dates[Math.floor(dates.length / 2)]!).toISOString();
    for (const since of ['2000-01-01T00:00:00Z', middle]) {
      const { soap, json } = await bothShipments({ queryType: '3', shipmentDateTimeStamp: since });
      expect(json).toEqual(soap);
      expect(json.length).toBeGreaterThan(3);
    }
  });

  it('queryType 1 per purchase order number and 2 per sales order number', async () => {
    const shipped = linked(shipments).filter((s) => s.purchaseOrderNumber && s.locations.length > 0);
    // Each answer holds the purchase order asked for (or the sales order's), with that sales order in it.
    const salesOrdersOf = (tree: ReturnType<typeof shipmentTree>) => tree.map((n) => ({ purchaseOrderNumber: n.purchaseOrderNumber, salesOrders: n.salesOrders.map((so) => so.salesOrderNumber) }));
    for (const referenceNumber of [...sample([...new Set(shipped.map((s) => s.purchaseOrderNumber!))], 10), 'PO-NONE']) {
      const { soap, json } = await bothShipments({ queryType: '1', referenceNumber });
      expect(json).toEqual(soap);
      const expected = shipped.filter((s) => s.purchaseOrderNumber === referenceNumber).map((s) => s.salesOrderNumber);
      expect(salesOrdersOf(json).map((n) => n.purchaseOrderNumber)).toEqual(expected.length > 0 ? [referenceNumber] : []);
      expect(salesOrdersOf(json).flatMap((n) => n.salesOrders)).toEqual(expect.arrayContaining(expected));
    }
    for (const so of sample(shipped, 10)) {
      const { soap, json } = await bothShipments({ queryType: '2', referenceNumber: so.salesOrderNumber });
      expect(json).toEqual(soap);
      expect(salesOrdersOf(json)).toEqual([{ purchaseOrderNumber: so.purchaseOrderNumber, salesOrders: [so.salesOrderNumber] }]);
    }
  });

  it('queryType 4 and others: both empty', async () => {
    for (const queryType of ['4', '9']) {
      const { soap, json } = await bothShipments({ queryType, referenceNumber: 'x' });
      expect([soap, json]).toEqual([[], []]);
    }
  });
});
