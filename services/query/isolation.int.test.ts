import type { FastifyInstance } from 'fastify';
import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { sampleEvent, sampleShipFrom, sampleShipTo } from '../../test/fixtures/sample-events.js';
import type { StatusId } from '../../contracts/status-types.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { CachingAuthenticator } from '../domain/credentials/authenticator.js';
import { CredentialStore, credentialsCollection } from '../adapters/mongodb/credential-store.js';
import { hashPassword } from '../domain/credentials/password-hash.js';
import { createLogger } from '../plumbing/logging/logger.js';
import { projectBatch } from '../projector/project-batch.js';
import { connectMongo } from '../adapters/mongodb/connect.js';
import { documentId, ensureIndexes, readModelCollections } from '../adapters/mongodb/documents.js';
import { MongoOrderLookups } from '../adapters/mongodb/lookups.js';
import { loadStates, writeEffects } from '../adapters/mongodb/writes.js';
import { buildApp } from './app.js';
import type { Scope } from '../domain/credentials/credential.js';
import { answerBody, faultOf, ORDER_STATUS_URL, post, SHIPMENT_URL, shipmentRequest, statusDetailsRequest, statusTypesRequest } from '../../test/support/soap-requests.js';

// Partner isolation through the real query app: real credentials (scrypt hashes in MongoDB, the
// caching authenticator) and real lookups over read models projected from ERP events. Every
// tracking number names its client, so an answer that leaks another client's shipment shows it.

const env = testEnvironment();
let mongo: MongoClient;
let app: FastifyInstance;

const partners: Record<string, { password: string; scopes: Scope[]; clientIds: string[]; active?: boolean }> = {
  acme: { password: 'pw-acme', scopes: ['order_status', 'osn'], clientIds: ['C1'] },
  globex: { password: 'pw-globex', scopes: ['order_status', 'osn'], clientIds: ['C2'] },
  broker: { password: 'pw-broker', scopes: ['order_status', 'osn'], clientIds: ['C1', 'C2'] },
  statusOnly: { password: 'pw-status', scopes: ['order_status'], clientIds: ['C1'] },
  osnOnly: { password: 'pw-osn', scopes: ['osn'], clientIds: ['C1'] },
  retired: { password: 'pw-retired', scopes: ['order_status'], clientIds: ['C1'], active: false },
  nobody: { password: 'pw-nobody', scopes: ['order_status', 'osn'], clientIds: ['C9'] },
};

let sequence = 0;
function salesOrder(clientId: string, salesOrderNumber: string) {
  const envelope = { clientId, salesOrderNumber };
  return {
    status: (statusId: StatusId, purchaseOrderNumber?: string) =>
      sampleEvent('SalesOrderStatusChanged', ++sequence, { statusId, ...(purchaseOrderNumber ? { purchaseOrderNumber } : {}) }, envelope),
    /** A location with one package; its tracking number names client and sales order. */
    shipped: (shipmentDate: string): ErpEvent[] => [
      sampleEvent('ShipmentLocationRecorded', ++sequence, { locationId: 1, shipFrom: sampleShipFrom, shipTo: sampleShipTo }, envelope),
      sampleEvent('PackageShipped', ++sequence, { locationId: 1, packageId: 1, trackingNumber: `TRK-${clientId}-${salesOrderNumber}`, shipmentDate }, envelope),
    ],
  };
}

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'isolation-test');
  const db = mongo.db(uniqueNames('isolation').database);
  const collections = readModelCollections(db, 1);
  await ensureIndexes(collections);

  // C1 and C2 share the sales order number SO-1 and the purchase order number PO-SHARED; C3 is
  // linked to no credential at all.
  const events: ErpEvent[] = [
    salesOrder('C1', 'SO-1').status(20, 'PO-1'),
    ...salesOrder('C1', 'SO-1').shipped('2025-05-02T00:00:00Z'),
    salesOrder('C1', 'SO-2').status(60, 'PO-SHARED'),
    ...salesOrder('C1', 'SO-2').shipped('2025-05-03T00:00:00Z'),
    salesOrder('C1', 'SO-3').status(80, 'PO-SHARED'),
    salesOrder('C2', 'SO-1').status(40, 'PO-2'),
    ...salesOrder('C2', 'SO-1').shipped('2025-05-04T00:00:00Z'),
    salesOrder('C2', 'SO-5').status(10, 'PO-SHARED'),
    ...salesOrder('C2', 'SO-5').shipped('2025-05-05T00:00:00Z'),
    salesOrder('C3', 'SO-1').status(10, 'PO-1'),
    ...salesOrder('C3', 'SO-1').shipped('2025-05-06T00:00:00Z'),
    salesOrder('C3', 'SO-9').status(10, 'PO-SHARED'),
    ...salesOrder('C3', 'SO-9').shipped('2025-05-07T00:00:00Z'),
  ];
  const keys = [...new Set(events.map((e) => documentId(e.clientId, e.salesOrderNumber)))];
  const batch = projectBatch(
    await loadStates(collections, keys),
    events.map((event) => ({ event, source: event })),
  );
  expect(batch.rejected).toEqual([]);
  await writeEffects(collections, batch.effects);

  const store = new CredentialStore(credentialsCollection(db));
  for (const [id, p] of Object.entries(partners)) {
    await store.add({ id, passwordHash: await hashPassword(p.password), scopes: p.scopes, clientIds: p.clientIds });
    if (p.active === false) await store.setActive(id, false);
  }

  app = await buildApp({
    logger: createLogger('isolation-test', 'silent'),
    publicBaseUrl: 'https://partners.example.com',
    lookups: new MongoOrderLookups(collections),
    authenticator: new CachingAuthenticator(new CredentialStore(credentialsCollection(db))),
  });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await mongo?.close();
});


type Node = Record<string, unknown>;
const list = (value: unknown): Node[] => (Array.isArray(value) ? (value as Node[]) : []);

/** Status answers as [PO, [[SO, statusID], ...]] in answer order. */
function statusOutline(xml: string): [string, [string, string][]][] {
  const response = answerBody(xml)['GetOrderStatusDetailsResponse'] as Node;
  const array = response['OrderStatusArray']; // an empty element parses as ''
  const orders = typeof array === 'object' && array !== null ? list((array as Node)['OrderStatus']) : [];
  return orders.map((o) => [
    o['purchaseOrderNumber'] as string,
    list((o['OrderStatusDetailArray'] as Node)['OrderStatusDetail']).map((d) => [d['factoryOrderNumber'] as string, d['statusID'] as string]),
  ]);
}

/** Shipment answers as [PO, [[SO, tracking numbers...], ...]] in answer order. */
function shipmentOutline(xml: string): [string, [string, string[]][]][] {
  const response = answerBody(xml)['GetOrderShipmentNotificationResponse'] as Node;
  const orders = list((response['OrderShipmentNotificationArray'] as Node | undefined)?.['OrderShipmentNotification']);
  return orders.map((o) => [
    o['purchaseOrderNumber'] as string,
    list((o['SalesOrderArray'] as Node | undefined)?.['SalesOrder']).map((s) => [
      s['salesOrderNumber'] as string,
      list((s['ShipmentLocationArray'] as Node)['ShipmentLocation']).flatMap((l) =>
        list((l['PackageArray'] as Node | undefined)?.['Package']).map((p) => p['trackingNumber'] as string),
      ),
    ]),
  ]);
}

const login = (id: string, password = partners[id]?.password ?? 'x') => ({ id, password });

async function status(id: string, fields: Record<string, string>, password?: string) {
  const response = await post(app, ORDER_STATUS_URL, statusDetailsRequest({ ...login(id, password), ...fields }));
  expect(response.statusCode, response.body).toBe(200);
  return response.body;
}

async function shipments(id: string, fields: Record<string, string>, password?: string) {
  const response = await post(app, SHIPMENT_URL, shipmentRequest({ ...login(id, password), ...fields }));
  expect(response.statusCode, response.body).toBe(200);
  return response.body;
}

const byPo = (po: string) => ({ queryType: '1', referenceNumber: po });
const bySo = (so: string) => ({ queryType: '2', referenceNumber: so });
const changedSince = (iso: string) => ({ queryType: '3', statusTimeStamp: iso });
const shippedSince = (iso: string) => ({ queryType: '3', shipmentDateTimeStamp: iso });
const open = { queryType: '4' };
const longAgo = '2000-01-01T00:00:00Z';

/** Every lookup a partner can make, one request each: the answers' XML. */
async function everything(id: string): Promise<string[]> {
  const references = [byPo('PO-1'), byPo('PO-2'), byPo('PO-3'), byPo('PO-SHARED'), bySo('SO-1'), bySo('SO-5'), bySo('SO-9')];
  return Promise.all([
    ...[...references, changedSince(longAgo), open].map((q) => status(id, q)),
    ...[...references, shippedSince(longAgo)].map((q) => shipments(id, q)),
  ]);
}

describe('a partner sees only the orders of the clients its credential is linked to', () => {
  it('acme (C1) never sees C2 or C3, whatever it asks', async () => {
    for (const body of await everything('acme')) {
      expect(body).not.toMatch(/TRK-C[23]/);
      expect(body).not.toContain('PO-2');
      expect(body).not.toContain('SO-5');
      expect(body).not.toContain('SO-9');
    }
    expect(statusOutline(await status('acme', byPo('PO-2')))).toEqual([]);
    expect(statusOutline(await status('acme', bySo('SO-1')))).toEqual([['PO-1', [['SO-1', '20']]]]);
    expect(statusOutline(await status('acme', byPo('PO-SHARED')))).toEqual([['PO-SHARED', [['SO-2', '60'], ['SO-3', '80']]]]);
    expect(statusOutline(await status('acme', changedSince(longAgo)))).toEqual([
      ['PO-1', [['SO-1', '20']]],
      ['PO-SHARED', [['SO-2', '60'], ['SO-3', '80']]],
    ]);
    expect(statusOutline(await status('acme', open))).toEqual([
      ['PO-1', [['SO-1', '20']]],
      ['PO-SHARED', [['SO-2', '60']]],
    ]);
    expect(shipmentOutline(await shipments('acme', bySo('SO-1')))).toEqual([['PO-1', [['SO-1', ['TRK-C1-SO-1']]]]]);
    expect(shipmentOutline(await shipments('acme', byPo('PO-2')))).toEqual([]);
    expect(shipmentOutline(await shipments('acme', shippedSince(longAgo)))).toEqual([
      ['PO-1', [['SO-1', ['TRK-C1-SO-1']]]],
      ['PO-SHARED', [['SO-2', ['TRK-C1-SO-2']]]],
    ]);
  });

  it('globex (C2) never sees C1 or C3, whatever it asks', async () => {
    for (const body of await everything('globex')) {
      expect(body).not.toMatch(/TRK-C[13]/);
      expect(body).not.toContain('PO-1<');
      expect(body).not.toMatch(/SO-[239]</);
    }
    expect(statusOutline(await status('globex', bySo('SO-1')))).toEqual([['PO-2', [['SO-1', '40']]]]);
    expect(statusOutline(await status('globex', byPo('PO-1')))).toEqual([]);
    expect(statusOutline(await status('globex', open))).toEqual([
      ['PO-2', [['SO-1', '40']]],
      ['PO-SHARED', [['SO-5', '10']]],
    ]);
    expect(shipmentOutline(await shipments('globex', shippedSince(longAgo)))).toEqual([
      ['PO-2', [['SO-1', ['TRK-C2-SO-1']]]],
      ['PO-SHARED', [['SO-5', ['TRK-C2-SO-5']]]],
    ]);
  });

  it('a credential linked to clients without orders gets empty answers', async () => {
    for (const body of await everything('nobody')) {
      expect(body).not.toContain('TRK-');
      expect(body).not.toMatch(/<[^>]*purchaseOrderNumber>/);
    }
  });

  it('the same purchase order number under two clients: two elements only for a credential linked to both', async () => {
    expect(statusOutline(await status('broker', byPo('PO-SHARED')))).toEqual([
      ['PO-SHARED', [['SO-2', '60'], ['SO-3', '80']]],
      ['PO-SHARED', [['SO-5', '10']]],
    ]);
    expect(statusOutline(await status('globex', byPo('PO-SHARED')))).toEqual([['PO-SHARED', [['SO-5', '10']]]]);
    expect(shipmentOutline(await shipments('broker', byPo('PO-SHARED')))).toEqual([
      ['PO-SHARED', [['SO-2', ['TRK-C1-SO-2']]]],
      ['PO-SHARED', [['SO-5', ['TRK-C2-SO-5']]]],
    ]);
    expect(shipmentOutline(await shipments('acme', byPo('PO-SHARED')))).toEqual([['PO-SHARED', [['SO-2', ['TRK-C1-SO-2']]]]]);
    // The sales order number both clients use: one element each, only for broker.
    expect(statusOutline(await status('broker', bySo('SO-1')))).toEqual([
      ['PO-1', [['SO-1', '20']]],
      ['PO-2', [['SO-1', '40']]],
    ]);
    expect(shipmentOutline(await shipments('broker', bySo('SO-1')))).toEqual([
      ['PO-1', [['SO-1', ['TRK-C1-SO-1']]]],
      ['PO-2', [['SO-1', ['TRK-C2-SO-1']]]],
    ]);
    for (const body of await everything('broker')) expect(body).not.toMatch(/TRK-C3|SO-9</);
  });
});

describe('authentication and scopes', () => {
  const requests = (id: string, password: string | undefined) => [
    post(app, ORDER_STATUS_URL, statusDetailsRequest({ id, password, queryType: '1', referenceNumber: 'PO-1' })),
    post(app, ORDER_STATUS_URL, statusTypesRequest({ id, password })),
    post(app, SHIPMENT_URL, shipmentRequest({ id, password, queryType: '1', referenceNumber: 'PO-1' })),
  ];

  it('an inactive credential, a wrong password and an unknown id get the identical fault on every operation', async () => {
    const attempts: [string, string | undefined][] = [
      ['retired', 'pw-retired'], // right password, disabled credential
      ['acme', 'pw-globex'], // another credential's password
      ['acme', 'PW-ACME'],
      ['acme', undefined], // no password element
      ['statusOnly', 'wrong'], // wrong password, and no osn scope: still no scope is revealed
      ['ghost', 'pw-acme'], // unknown id
      ['ACME', 'pw-acme'], // ids are exact
    ];
    const expected = await Promise.all(requests('ghost', 'nothing'));
    expect(faultOf(expected[0]!.body)).toEqual({ code: 'soap:Client', message: 'Invalid id or password' });
    for (const [id, password] of attempts) {
      const answers = await Promise.all(requests(id, password));
      answers.forEach((answer, i) => {
        expect(answer.statusCode, `${id}/${password}`).toBe(500);
        expect(answer.body, `${id}/${password}`).toBe(expected[i]!.body);
        expect(answer.headers['content-type']).toBe(expected[i]!.headers['content-type']);
      });
    }
  });

  it('a cached verification never lets a wrong password through', async () => {
    await status('acme', byPo('PO-1')); // acme is now cached
    const wrong = await post(app, ORDER_STATUS_URL, statusDetailsRequest({ id: 'acme', password: 'pw-broker', queryType: '4' }));
    expect(faultOf(wrong.body)?.message).toBe('Invalid id or password');
    // broker's password with acme's id does not give broker's clients either.
    const right = await status('broker', byPo('PO-2'));
    expect(statusOutline(right)).toEqual([['PO-2', [['SO-1', '40']]]]);
  });

  it('each operation needs its own scope', async () => {
    const osnForStatusOnly = await post(app, SHIPMENT_URL, shipmentRequest({ ...login('statusOnly'), queryType: '1', referenceNumber: 'PO-1' }));
    expect(osnForStatusOnly.statusCode).toBe(500);
    expect(faultOf(osnForStatusOnly.body)).toEqual({ code: 'soap:Client', message: 'Credential not permitted for scope: osn' });
    expect(osnForStatusOnly.body).not.toContain('TRK-');

    for (const request of [
      statusDetailsRequest({ ...login('osnOnly'), queryType: '1', referenceNumber: 'PO-1' }),
      statusTypesRequest(login('osnOnly')),
    ]) {
      const answer = await post(app, ORDER_STATUS_URL, request);
      expect(answer.statusCode).toBe(500);
      expect(faultOf(answer.body)).toEqual({ code: 'soap:Client', message: 'Credential not permitted for scope: order_status' });
      expect(answer.body).not.toContain('SO-1');
    }

    // Within their scope both answer, for their client only.
    expect(statusOutline(await status('statusOnly', byPo('PO-1')))).toEqual([['PO-1', [['SO-1', '20']]]]);
    expect((await post(app, ORDER_STATUS_URL, statusTypesRequest(login('statusOnly')))).statusCode).toBe(200);
    expect(shipmentOutline(await shipments('osnOnly', byPo('PO-1')))).toEqual([['PO-1', [['SO-1', ['TRK-C1-SO-1']]]]]);
  });
});
