// Partner isolation through the 2.0.0 endpoints and their JSON twins (oss-osn-2.0.0.md §9.4), as
// ../../isolation.int.test.ts does for 1.0.0: real credentials (scrypt hashes in MongoDB, the caching
// authenticator) and the real MongoDB lookups (1.0.0 and 2.0.0) over read models projected from
// contract v2 events. Two clients share purchase order, sales order and issue numbers, and a third
// that no credential is linked to shares them too; every text an answer can carry (tracking
// numbers, products, contacts, issue names) names its client, so a leak shows.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErpEvent } from '../../../../contracts/erp-events.js';
import type { StatusId } from '../../../../contracts/status-types.js';
import { sampleEvent, sampleShipFrom, sampleShipTo } from '../../../../test/fixtures/sample-events.js';
import { basic } from '../../../../test/support/json-requests.js';
import { answerBody, arrayOf, items, ORDER_STATUS_V2_URL, osnV2Request, ossV2Request, post, serviceMessagesOf, SHIPMENT_V2_URL } from '../../../../test/support/soap-requests.js';
import { testEnvironment, uniqueNames } from '../../../../test/support/servers.js';
import { connectMongo } from '../../../adapters/mongodb/connect.js';
import { documentId, ensureIndexes, readModelCollections } from '../../../adapters/mongodb/documents.js';
import { MongoOrderLookups } from '../../../adapters/mongodb/lookups.js';
import { loadStates, writeEffects } from '../../../adapters/mongodb/writes.js';
import { CachingAuthenticator } from '../../../domain/credentials/authenticator.js';
import { CredentialStore, credentialsCollection } from '../../../adapters/mongodb/credential-store.js';
import type { Scope } from '../../../domain/credentials/credential.js';
import { hashPassword } from '../../../domain/credentials/password-hash.js';
import { createLogger } from '../../../plumbing/logging/logger.js';
import { projectBatch } from '../../../projector/project-batch.js';
import { buildApp } from '../../app.js';

const env = testEnvironment();
let mongo: MongoClient;
let app: FastifyInstance;

const partners: Record<string, { password: string; scopes: Scope[]; clientIds: string[] }> = {
  acme: { password: 'pw-acme', scopes: ['order_status', 'osn'], clientIds: ['C1'] },
  globex: { password: 'pw-globex', scopes: ['order_status', 'osn'], clientIds: ['C2'] },
  broker: { password: 'pw-broker', scopes: ['order_status', 'osn'], clientIds: ['C1', 'C2'] },
  nobody: { password: 'pw-nobody', scopes: ['order_status', 'osn'], clientIds: ['C9'] },
};

let sequence = 0;
/** A sales order's events: a status, an issue, product lines, contacts, a location with one package; all texts name the client. */
function salesOrder(clientId: string, salesOrderNumber: string, statusId: StatusId, purchaseOrderNumber: string, issue: { issueId: string; issueStatus: 'Open' | 'Pending' | 'Closed' }): ErpEvent[] {
  const envelope = { clientId, salesOrderNumber };
  const mark = `${clientId}-${salesOrderNumber}`;
  return [
    sampleEvent('SalesOrderStatusChanged', ++sequence, { statusId, purchaseOrderNumber }, envelope),
    sampleEvent('IssueRecorded', ++sequence, { ...issue, issueCategory: 'artHold', issueName: `Issue of ${mark}`, productId: `P-${mark}` }, envelope),
    sampleEvent('SalesOrderLinesRecorded', ++sequence, { lines: [{ salesOrderLineNumber: '1', productId: `P-${mark}`, quantityOrdered: { value: 5, uom: 'EA' } }] }, envelope),
    sampleEvent('OrderContactsRecorded', ++sequence, { contacts: [{ contactType: 'Order', companyName: `Company ${mark}` }] }, envelope),
    { ...sampleEvent('ShipmentLocationRecorded', ++sequence, { locationId: 1, shipFrom: sampleShipFrom, shipTo: { ...sampleShipTo, attentionTo: `Desk ${mark}` }, customerPickup: true }, envelope), schemaVersion: 2 },
    {
      ...sampleEvent('PackageShipped', ++sequence, { locationId: 1, packageId: 1, trackingNumber: `TRK-${mark}`, shipmentDate: '2025-05-02T00:00:00Z', carrier: 'UPS', carrierService: `Svc ${mark}` }, envelope),
      schemaVersion: 2,
    },
  ] as ErpEvent[];
}

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'isolation-v2-test');
  const db = mongo.db(uniqueNames('isolation-v2').database);
  const collections = readModelCollections(db, 1);
  await ensureIndexes(collections);

  // C1 and C2 share SO-1, PO-SHARED and the issue id ISS-SHARED; C3, linked to no credential,
  // shares all of them and holds C1's own issue id ISS-C1 as well.
  const events: ErpEvent[] = [
    ...salesOrder('C1', 'SO-1', 20, 'PO-1', { issueId: 'ISS-SHARED', issueStatus: 'Open' }),
    ...salesOrder('C1', 'SO-2', 60, 'PO-SHARED', { issueId: 'ISS-C1', issueStatus: 'Pending' }),
    ...salesOrder('C1', 'SO-3', 80, 'PO-SHARED', { issueId: 'ISS-C1-DONE', issueStatus: 'Closed' }),
    ...salesOrder('C2', 'SO-1', 41, 'PO-2', { issueId: 'ISS-SHARED', issueStatus: 'Open' }),
    ...salesOrder('C2', 'SO-5', 10, 'PO-SHARED', { issueId: 'ISS-C2', issueStatus: 'Open' }),
    ...salesOrder('C3', 'SO-1', 10, 'PO-1', { issueId: 'ISS-SHARED', issueStatus: 'Open' }),
    ...salesOrder('C3', 'SO-9', 43, 'PO-SHARED', { issueId: 'ISS-C1', issueStatus: 'Open' }),
  ];
  const keys = [...new Set(events.map((e) => documentId(e.clientId, e.salesOrderNumber)))];
  const batch = projectBatch(
    await loadStates(collections, keys),
    events.map((event) => ({ event, source: event })),
  );
  expect(batch.rejected).toEqual([]);
  await writeEffects(collections, batch.effects);

  const store = new CredentialStore(credentialsCollection(db));
  for (const [id, p] of Object.entries(partners)) await store.add({ id, passwordHash: await hashPassword(p.password), scopes: p.scopes, clientIds: p.clientIds });

  const lookups = new MongoOrderLookups(collections);
  app = await buildApp({
    logger: createLogger('isolation-v2-test', 'silent'),
    publicBaseUrl: 'https://partners.example.com',
    lookups,
    lookupsV2: lookups,
    authenticator: new CachingAuthenticator(new CredentialStore(credentialsCollection(db))),
  });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await mongo?.close();
});

type Node = Record<string, unknown>;

/** An OSS answer (SOAP parsed or JSON) as [PO, [SO, status, issue ids, product ids, contact companies][]][]. */
const statusOutline = (response: Node) =>
  items(response, 'OrderStatusArray', 'OrderStatus').map((o) => [
    String(o['purchaseOrderNumber']),
    items(o, 'OrderStatusDetailArray', 'OrderStatusDetail').map((d) => [
      String(d['salesOrderNumber']),
      String(d['status']),
      items(d, 'IssueArray', 'Issue').map((i) => String(i['issueId'])),
      items(d, 'ProductArray', 'Product').map((p) => String(p['productId'])),
      items(d, 'OrderContactArray', 'Contact').map((c) => String((c['ContactDetails'] as Node | undefined)?.['companyName'])),
    ]),
  ]);

/** An OSN answer as [PO, [SO, tracking numbers][]][]. */
const shipmentOutline = (response: Node) =>
  items(response, 'OrderShipmentNotificationArray', 'OrderShipmentNotification').map((n) => [
    String(n['purchaseOrderNumber']),
    items(n, 'SalesOrderArray', 'SalesOrder').map((so) => [
      String(so['salesOrderNumber']),
      items(so, 'ShipmentArray', 'Shipment').flatMap((s) => items(s, 'PackageArray', 'Package').map((p) => String(p['trackingNumber']))),
    ]),
  ]);

/** getIssue's answer as [issueId, issueName][]. */
const issueOutline = (response: Node) => items(response, 'IssueArray', 'Issue').map((i) => [String(i['issueId']), String(i['issueName'])]);

const login = (id: string) => ({ id, password: partners[id]!.password });
const everything = { returnIssueDetailType: 'allIssues', returnProductDetail: 'true' };

interface Asked {
  soap: LightMyRequestResponse;
  json: LightMyRequestResponse;
  /** The SOAP answer's response element, parsed. */
  response: Node;
  /** The ServiceMessage codes, SOAP then JSON. */
  codes: [number[], number[]];
}

async function both(partner: string, soap: [string, string], response: string, jsonPath: string, fields: Record<string, string>): Promise<Asked> {
  const [soapRes, jsonRes] = await Promise.all([
    post(app, soap[0], soap[1]),
    app.inject({ url: `/api/partners/v2${jsonPath}?${new URLSearchParams(fields)}`, headers: { authorization: basic(partner, partners[partner]!.password) } }),
  ]);
  expect(soapRes.statusCode, soapRes.body).toBe(200);
  const parsed = (answerBody(soapRes.body)[response] as Node | '') || {};
  const jsonCodes = arrayOf(jsonRes.json<Node>()['ServiceMessageArray']).map((m) => Number(m['code']));
  return { soap: soapRes, json: jsonRes, response: parsed, codes: [serviceMessagesOf(soapRes.body).map((m) => m.code), jsonCodes] };
}

const status = (partner: string, fields: Record<string, string>) =>
  both(partner, [ORDER_STATUS_V2_URL, ossV2Request('GetOrderStatusRequest', { ...login(partner), ...fields })], 'GetOrderStatusResponse', '/orders/status', fields);
const issue = (partner: string, issueId: string) =>
  both(partner, [ORDER_STATUS_V2_URL, ossV2Request('GetIssueRequest', { ...login(partner), issueId })], 'GetIssueResponse', '/issues', { issueId });
const shipments = (partner: string, fields: Record<string, string>) =>
  both(partner, [SHIPMENT_V2_URL, osnV2Request({ ...login(partner), ...fields })], 'GetOrderShipmentNotificationResponse', '/orders/shipments', fields);

/** The same outline from SOAP and from JSON (the twins agree), returned once. */
async function outlined(asked: Promise<Asked>, outline: (response: Node) => unknown) {
  const a = await asked;
  const fromSoap = outline(a.response);
  expect(outline(a.json.json<Node>())).toEqual(fromSoap);
  return fromSoap;
}

const poSearch = (po: string) => ({ queryType: 'poSearch', referenceNumber: po, ...everything });
const soSearch = (so: string) => ({ queryType: 'soSearch', referenceNumber: so, ...everything });
const longAgo = '2000-01-01T00:00:00Z';
const lastUpdate = { queryType: 'lastUpdate', statusTimeStamp: longAgo, ...everything };
const allOpen = { queryType: 'allOpen', ...everything };
const allOpenIssues = { queryType: 'allOpenIssues', ...everything };
const byPo = (po: string) => ({ queryType: '1', referenceNumber: po });
const bySo = (so: string) => ({ queryType: '2', referenceNumber: so });
const shippedSince = { queryType: '3', shipmentDateTimestamp: longAgo };

const references = { pos: ['PO-1', 'PO-2', 'PO-SHARED', 'PO-NONE'], sos: ['SO-1', 'SO-2', 'SO-3', 'SO-5', 'SO-9', 'SO-NONE'], issues: ['ISS-SHARED', 'ISS-C1', 'ISS-C1-DONE', 'ISS-C2', 'ISS-NONE'] };

/** Every 2.0.0 request a partner can make over the data, SOAP and JSON: the bodies. */
async function everyAnswer(partner: string): Promise<string[]> {
  const asked = await Promise.all([
    ...[...references.pos.map(poSearch), ...references.sos.map(soSearch), lastUpdate, allOpen, allOpenIssues].map((f) => status(partner, f)),
    ...references.issues.map((id) => issue(partner, id)),
    ...[...references.pos.map(byPo), ...references.sos.map(bySo), shippedSince].map((f) => shipments(partner, f)),
  ]);
  return asked.flatMap((a) => [a.soap.body, a.json.body]);
}

/** Marks of the clients' own texts (tracking numbers, products, companies, issue names, carrier services). */
const marksOf = (...clients: string[]) => new RegExp(`\\b(${clients.join('|')})-SO-\\d`);

describe('2.0.0: a partner sees only the orders and issues of the clients its credential is linked to', () => {
  it('acme (C1) never sees C2 or C3 in any answer, SOAP or JSON', async () => {
    const bodies = await everyAnswer('acme');
    for (const body of bodies) expect(body).not.toMatch(marksOf('C2', 'C3'));
    // ... while its own data is there to see.
    for (const own of ['TRK-C1-SO-1', 'P-C1-SO-2', 'Company C1-SO-3', 'Issue of C1-SO-1', 'Svc C1-SO-2']) expect(bodies.join('\n')).toContain(own);
  });

  it('globex (C2) never sees C1 or C3 in any answer, SOAP or JSON', async () => {
    const bodies = await everyAnswer('globex');
    for (const body of bodies) expect(body).not.toMatch(marksOf('C1', 'C3'));
    expect(bodies.join('\n')).toContain('TRK-C2-SO-5');
  });

  it('a credential linked to clients without orders: empty lists and 301s, nothing of anyone', async () => {
    for (const body of await everyAnswer('nobody')) expect(body).not.toMatch(marksOf('C1', 'C2', 'C3'));
    expect(await outlined(status('nobody', allOpen), statusOutline)).toEqual([]);
    expect(await outlined(status('nobody', lastUpdate), statusOutline)).toEqual([]);
    expect(await outlined(status('nobody', allOpenIssues), statusOutline)).toEqual([]);
    expect(await outlined(shipments('nobody', shippedSince), shipmentOutline)).toEqual([]);
    expect((await issue('nobody', 'ISS-SHARED')).codes).toEqual([[301], [301]]);
  });

  it('poSearch, soSearch, getIssue and OSN 1/2 answer only the own client’s sales orders and issues for shared numbers', async () => {
    const c1so1 = ['SO-1', 'confirmed', ['ISS-SHARED'], ['P-C1-SO-1'], ['Company C1-SO-1']];
    expect(await outlined(status('acme', poSearch('PO-SHARED')), statusOutline)).toEqual([
      ['PO-SHARED', [['SO-2', 'inProduction', ['ISS-C1'], ['P-C1-SO-2'], ['Company C1-SO-2']], ['SO-3', 'complete', ['ISS-C1-DONE'], ['P-C1-SO-3'], ['Company C1-SO-3']]]],
    ]);
    expect(await outlined(status('acme', soSearch('SO-1')), statusOutline)).toEqual([['PO-1', [c1so1]]]);
    expect(await outlined(status('acme', poSearch('PO-1')), statusOutline)).toEqual([['PO-1', [c1so1]]]);
    expect(await outlined(issue('acme', 'ISS-SHARED'), issueOutline)).toEqual([['ISS-SHARED', 'Issue of C1-SO-1']]);
    // C3 holds ISS-C1 too; acme gets its own only.
    expect(await outlined(issue('acme', 'ISS-C1'), issueOutline)).toEqual([['ISS-C1', 'Issue of C1-SO-2']]);
    expect(await outlined(shipments('acme', byPo('PO-SHARED')), shipmentOutline)).toEqual([['PO-SHARED', [['SO-2', ['TRK-C1-SO-2']], ['SO-3', ['TRK-C1-SO-3']]]]]);
    expect(await outlined(shipments('acme', bySo('SO-1')), shipmentOutline)).toEqual([['PO-1', [['SO-1', ['TRK-C1-SO-1']]]]]);

    // globex's SO-1 is on credit hold: its derived hold issue is listed before its own ISS-SHARED.
    expect(await outlined(status('globex', soSearch('SO-1')), statusOutline)).toEqual([
      ['PO-2', [['SO-1', 'received', [expect.stringMatching(/^ossn-hold-[0-9a-f]{20}$/), 'ISS-SHARED'], ['P-C2-SO-1'], ['Company C2-SO-1']]]],
    ]);
    expect(await outlined(issue('globex', 'ISS-SHARED'), issueOutline)).toEqual([['ISS-SHARED', 'Issue of C2-SO-1']]);

    // A credential linked to both: both clients' sales orders and issues, each under its own purchase order element.
    expect(await outlined(issue('broker', 'ISS-SHARED'), issueOutline)).toEqual([
      ['ISS-SHARED', 'Issue of C1-SO-1'],
      ['ISS-SHARED', 'Issue of C2-SO-1'],
    ]);
    expect(((await outlined(status('broker', poSearch('PO-SHARED')), statusOutline)) as [string, [string][]][]).map(([po, d]) => [po, d.map(([so]) => so)])).toEqual([
      ['PO-SHARED', ['SO-2', 'SO-3']],
      ['PO-SHARED', ['SO-5']],
    ]);
    expect(await outlined(shipments('broker', bySo('SO-1')), shipmentOutline)).toEqual([
      ['PO-1', [['SO-1', ['TRK-C1-SO-1']]]],
      ['PO-2', [['SO-1', ['TRK-C2-SO-1']]]],
    ]);
  });

  it('another client’s purchase order, sales order or issue id answers 301 exactly as an unknown one, SOAP and JSON', async () => {
    const same = async (theirs: Promise<Asked>, unknown: Promise<Asked>) => {
      const [a, b] = await Promise.all([theirs, unknown]);
      expect(a.codes).toEqual([[301], [301]]);
      expect(a.soap.body).toBe(b.soap.body);
      expect(a.json.statusCode).toBe(404);
      expect(a.json.statusCode).toBe(b.json.statusCode);
      expect(a.json.body).toBe(b.json.body);
    };
    await same(status('acme', poSearch('PO-2')), status('acme', poSearch('PO-NONE')));
    await same(status('acme', soSearch('SO-5')), status('acme', soSearch('SO-NONE')));
    await same(status('acme', soSearch('SO-9')), status('acme', soSearch('SO-NONE')));
    await same(issue('acme', 'ISS-C2'), issue('acme', 'ISS-NONE'));
    await same(shipments('acme', byPo('PO-2')), shipments('acme', byPo('PO-NONE')));
    await same(shipments('acme', bySo('SO-5')), shipments('acme', bySo('SO-NONE')));
    await same(status('globex', poSearch('PO-1')), status('globex', poSearch('PO-NONE')));
    await same(status('globex', soSearch('SO-2')), status('globex', soSearch('SO-NONE')));
    await same(issue('globex', 'ISS-C1'), issue('globex', 'ISS-NONE'));
    await same(issue('globex', 'ISS-C1-DONE'), issue('globex', 'ISS-NONE'));
    await same(shipments('globex', byPo('PO-1')), shipments('globex', byPo('PO-NONE')));
    await same(shipments('globex', bySo('SO-3')), shipments('globex', bySo('SO-NONE')));
  });

  it('lastUpdate, allOpen, allOpenIssues and OSN 3 list only the own client’s sales orders', async () => {
    const salesOrders = async (fields: Record<string, string>, partner: string) =>
      ((await outlined(status(partner, fields), statusOutline)) as [string, [string][]][]).flatMap(([po, details]) => details.map(([so]) => `${po}/${so}`)).sort();
    expect(await salesOrders(lastUpdate, 'acme')).toEqual(['PO-1/SO-1', 'PO-SHARED/SO-2', 'PO-SHARED/SO-3']);
    expect(await salesOrders(allOpen, 'acme')).toEqual(['PO-1/SO-1', 'PO-SHARED/SO-2']);
    expect(await salesOrders(allOpenIssues, 'acme')).toEqual(['PO-1/SO-1', 'PO-SHARED/SO-2']);
    expect(await salesOrders(lastUpdate, 'globex')).toEqual(['PO-2/SO-1', 'PO-SHARED/SO-5']);
    expect(await salesOrders(allOpen, 'globex')).toEqual(['PO-2/SO-1', 'PO-SHARED/SO-5']);
    expect(await salesOrders(allOpenIssues, 'globex')).toEqual(['PO-2/SO-1', 'PO-SHARED/SO-5']);
    expect(await salesOrders(allOpenIssues, 'broker')).toEqual(['PO-1/SO-1', 'PO-2/SO-1', 'PO-SHARED/SO-2', 'PO-SHARED/SO-5']);

    const tracking = async (partner: string) =>
      ((await outlined(shipments(partner, shippedSince), shipmentOutline)) as [string, [string, string[]][]][]).flatMap(([, sos]) => sos.flatMap(([, t]) => t)).sort();
    expect(await tracking('acme')).toEqual(['TRK-C1-SO-1', 'TRK-C1-SO-2', 'TRK-C1-SO-3']);
    expect(await tracking('globex')).toEqual(['TRK-C2-SO-1', 'TRK-C2-SO-5']);
    expect(await tracking('broker')).toEqual(['TRK-C1-SO-1', 'TRK-C1-SO-2', 'TRK-C1-SO-3', 'TRK-C2-SO-1', 'TRK-C2-SO-5']);
  });
});
