// Whatever contract v2 accepts, the 2.0.0 and OSN 2.1.0 answers validate (oss-osn-2.0.0.md §9.1): event streams
// as an ERP may send them (erp-event-v2-arbitraries.ts: holds, issues Open, Pending and Closed,
// product lines, contacts, long and blank address parts, odd countries, items without ids or
// quantity, locations without packages, shipments with v2's extras) are read by the contract's
// parser (the refused ones are dead letters), folded by the projections and answered by the query
// service's app. Every SOAP 2.0.0 answer - getOrderStatus for each queryType with all issues and
// the products, getIssue for each issue id the credential's clients hold, OSN 1, 2 and 3 - must
// validate against the official 2.0.0 XSDs, and its JSON twin carry the same orders and codes.
//
// The lookups are in memory (folded-lookups-v2.ts, the store's own mappings from state to view):
// filling MongoDB for each of a few dozen generated streams would leave little of the time for
// the streams themselves. Which sales orders each query selects from the store is tested against
// MongoDB in services/adapters/mongodb/lookups-v2.int.test.ts; what the answers hold is tested here.
import { XMLParser } from 'fast-xml-parser';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseErpEvent } from '../../contracts/parse-erp-event.js';
import { foldEvents } from '../../projections/fold.js';
import { hasStatus } from '../../projections/state.js';
import { buildApp } from '../../services/query/app.js';
import { escapeText } from '../../services/query/protocol/soap/xml-text.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups } from '../support/fake-ports.js';
import { basic } from '../support/json-requests.js';
import { testSeed } from '../support/seed.js';
import { arrayOf, items, ORDER_STATUS_V2_URL, osnV21Request, osnV2Request, ossV2Request, post, serviceMessagesOf, SHIPMENT_V21_URL, SHIPMENT_V2_URL } from '../support/soap-requests.js';
import { clientIds } from './erp-event-arbitraries.js';
import { erpEventStreamsV2 } from './erp-event-v2-arbitraries.js';
import { FoldedLookupsV2 } from './folded-lookups-v2.js';
import { invalidAnswers } from './validate-answers.js';

// About 20 s on an idle machine: each run asks a dozen questions twice (SOAP, JSON) and validates
// its answers in two libxml2 runs. A failure is shrunk for at most the time limit, then reported as
// far as it got, with the seed and path that replay it (ANSWERS_VALIDATE_V2_SEED replays the runs).
const numRuns = 50;
const timeLimitMs = 35_000;
const partner = { id: 'both', password: ACCOUNTS.both.password };
const since = '2000-01-01T00:00:00Z';
const detail = { returnIssueDetailType: 'allIssues', returnProductDetail: 'true' };

let app: FastifyInstance;
const lookups = new FoldedLookupsV2();

beforeAll(async () => {
  expect(ACCOUNTS.both.credential.clientIds).toEqual(clientIds);
  app = await buildApp({
    logger: pino({ level: 'silent' }),
    publicBaseUrl: 'https://partners.example.com',
    lookups: new FakeLookups(),
    lookupsV2: lookups,
    authenticator: new FakeAuthenticator(ACCOUNTS),
  });
});
afterAll(() => app?.close());

type Node = Record<string, unknown>;

// Text exactly as sent (no trimming, no entity decoding), to compare with JSON's text escaped the same way.
const parser = new XMLParser({ removeNSPrefix: true, parseTagValue: false, processEntities: false, trimValues: false });

/** A value as SOAP writes it: JSON's strings escaped as the XML writer escapes them, other values as text. */
const soapText = (value: unknown, fromJson: boolean) => (value === undefined ? undefined : fromJson && typeof value === 'string' ? escapeText(value) : String(value));

function statusOutline(response: Node, fromJson: boolean) {
  const t = (v: unknown) => soapText(v, fromJson);
  return items(response, 'OrderStatusArray', 'OrderStatus').map((o) => ({
    po: t(o['purchaseOrderNumber']),
    details: items(o, 'OrderStatusDetailArray', 'OrderStatusDetail').map((d) => ({
      so: t(d['salesOrderNumber']),
      status: t(d['status']),
      issueCategory: t(d['issueCategory']),
      issues: items(d, 'IssueArray', 'Issue').map((i) => [t(i['issueId']), t(i['issueStatus']), t(i['urgentResponseRequired'])]),
      products: items(d, 'ProductArray', 'Product').map((p) => [t(p['salesOrderLineNumber']), t(p['productId']), t(p['status'])]),
      contacts: items(d, 'OrderContactArray', 'Contact').map((c) => [t(c['contactType']), t((c['ContactDetails'] as Node | undefined)?.['country'])]),
    })),
  }));
}

const issueOutline = (response: Node, fromJson: boolean) =>
  items(response, 'IssueArray', 'Issue').map((i) => [soapText(i['issueId'], fromJson), soapText(i['issueStatus'], fromJson), soapText(i['issueName'], fromJson)]);

function shipmentOutline(response: Node, fromJson: boolean) {
  const t = (v: unknown) => soapText(v, fromJson);
  return items(response, 'OrderShipmentNotificationArray', 'OrderShipmentNotification').map((n) => ({
    po: t(n['purchaseOrderNumber']),
    inFull: t(n['purchaseOrderShippedInFull']),
    salesOrders: items(n, 'SalesOrderArray', 'SalesOrder').map((so) => ({
      so: t(so['salesOrderNumber']),
      shipments: items(so, 'ShipmentArray', 'Shipment').map((s) => ({
        pickup: t(s['customerPickup']),
        country: t((s['shipToAddress'] as Node | undefined)?.['country']),
        packages: items(s, 'PackageArray', 'Package').map((p) => [t(p['trackingNumber']), t(p['preProductionProof']), items(p, 'ItemArray', 'Item').length]),
      })),
    })),
  }));
}

interface Twins {
  name: string;
  xml: string;
  soap: Node;
  json: Node;
  jsonStatus: number;
}

async function twins(name: string, url: string, request: string, response: string, jsonPath: string, query: Record<string, string>): Promise<Twins> {
  const [soapRes, jsonRes] = await Promise.all([
    post(app, url, request),
    app.inject({ url: `/api/partners/v2${jsonPath}?${new URLSearchParams(query)}`, headers: { authorization: basic(partner.id, partner.password) } }),
  ]);
  expect(soapRes.statusCode, soapRes.body).toBe(200);
  const body = (parser.parse(soapRes.body) as { Envelope: { Body: Node } }).Envelope.Body;
  if (!(response in body)) throw new Error(`${name}: not a ${response}: ${soapRes.body.slice(0, 500)}`);
  return { name, xml: soapRes.body, soap: (body[response] as Node | '') || {}, json: jsonRes.json<Node>(), jsonStatus: jsonRes.statusCode };
}

/** The twins carry the same codes, and JSON's HTTP status says the same (oss-osn-2.0.0.md §1). */
function expectSameCodes(t: Twins) {
  const codes = serviceMessagesOf(t.xml).map((m) => m.code);
  expect(arrayOf(t.json['ServiceMessageArray']).map((m) => Number(m['code'])), t.name).toEqual(codes);
  expect(t.jsonStatus, t.name).toBe(codes.includes(301) ? 404 : 200);
}

/** A reference a partner can send as it is stored: XML can carry it, and it has no white space to be trimmed or normalized. */
// eslint-disable-next-line no-control-regex -- the characters a request cannot carry are the point
const sendable = (value: string | undefined): value is string => value !== undefined && value !== '' && !/[\s\u0000-\u001f\u007f-\u009f\ud800-\udfff\ufffe\uffff]/.test(value);
const xmlEscaped = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

it('answers every event stream contract v2 accepts with 2.0.0 SOAP that validates against the official XSDs, and JSON twins with the same orders', async () => {
  const seen = { runs: 0, events: 0, refused: 0, withOrders: 0, products: 0, contacts: 0, issuesAsked: 0, holdIssues: 0, shipments: 0, items: 0 };
  const login = { id: partner.id, password: partner.password };

  await fc.assert(
    fc.asyncProperty(erpEventStreamsV2, async (sent) => {
      const read = sent.map((event) => parseErpEvent(JSON.stringify(event)));
      const accepted = read.flatMap((r) => (r.ok ? [r.event] : []));
      seen.runs++;
      seen.events += sent.length;
      seen.refused += sent.length - accepted.length;
      const folded = foldEvents(accepted);
      lookups.readModels = folded;

      const statuses = [...folded.orderStatus.values()].filter((s) => hasStatus(s) && clientIds.includes(s.clientId as (typeof clientIds)[number]) && s.purchaseOrderNumber !== undefined);
      const shipped = [...folded.shipments.values()].filter((s) => clientIds.includes(s.clientId as (typeof clientIds)[number]) && s.purchaseOrderNumber !== undefined && s.locations.some((l) => l.packages.length > 0));
      const po = statuses.map((s) => s.purchaseOrderNumber).find(sendable) ?? 'PO-NONE';
      const so = statuses.map((s) => s.salesOrderNumber).find(sendable) ?? 'SO-NONE';
      const shippedPo = shipped.map((s) => s.purchaseOrderNumber).find(sendable) ?? 'PO-NONE';
      const shippedSo = shipped.map((s) => s.salesOrderNumber).find(sendable) ?? 'SO-NONE';
      const issueIds = [...new Set(statuses.flatMap((s) => (s.issues ?? []).map((i) => i.issueId)))].filter(sendable);
      seen.issuesAsked += issueIds.length;
      seen.holdIssues += issueIds.filter((id) => id.startsWith('ossn-hold-')).length;

      const statusQueries: Record<string, string>[] = [
        { queryType: 'poSearch', referenceNumber: po, ...detail },
        { queryType: 'soSearch', referenceNumber: so, ...detail },
        { queryType: 'lastUpdate', statusTimeStamp: since, ...detail },
        { queryType: 'allOpen', ...detail },
        { queryType: 'allOpenIssues', ...detail },
      ];
      const oss: Twins[] = [];
      for (const query of statusQueries) {
        const soapFields = { ...login, ...query, ...(query['referenceNumber'] ? { referenceNumber: xmlEscaped(query['referenceNumber']) } : {}) };
        const t = await twins(`getOrderStatus ${JSON.stringify(query)}`, ORDER_STATUS_V2_URL, ossV2Request('GetOrderStatusRequest', soapFields), 'GetOrderStatusResponse', '/orders/status', query);
        const outline = statusOutline(t.soap, false);
        expect(statusOutline(t.json, true), t.name).toEqual(outline);
        expectSameCodes(t);
        if (outline.length > 0) seen.withOrders++;
        seen.products += outline.flatMap((o) => o.details).filter((d) => d.products.length > 0).length;
        seen.contacts += outline.flatMap((o) => o.details).filter((d) => d.contacts.length > 0).length;
        oss.push(t);
      }
      for (const issueId of issueIds) {
        const t = await twins(`getIssue ${JSON.stringify(issueId)}`, ORDER_STATUS_V2_URL, ossV2Request('GetIssueRequest', { ...login, issueId: xmlEscaped(issueId) }), 'GetIssueResponse', '/issues', { issueId });
        expect(issueOutline(t.json, true), t.name).toEqual(issueOutline(t.soap, false));
        // Every issue id asked is one the credential's clients hold on an answerable sales order.
        expect(issueOutline(t.soap, false).length, t.name).toBeGreaterThan(0);
        expectSameCodes(t);
        oss.push(t);
      }

      const osn: Twins[] = [];
      const osn21: { name: string; xml: string }[] = [];
      for (const query of [
        { queryType: '1', referenceNumber: shippedPo },
        { queryType: '2', referenceNumber: shippedSo },
        { queryType: '3', shipmentDateTimestamp: since },
      ] as Record<string, string>[]) {
        const soapFields = { ...login, ...query, ...(query['referenceNumber'] ? { referenceNumber: xmlEscaped(query['referenceNumber']) } : {}) };
        const t = await twins(`OSN ${JSON.stringify(query)}`, SHIPMENT_V2_URL, osnV2Request(soapFields), 'GetOrderShipmentNotificationResponse', '/orders/shipments', query);
        const outline = shipmentOutline(t.soap, false);
        expect(shipmentOutline(t.json, true), t.name).toEqual(outline);
        expectSameCodes(t);
        if (outline.length > 0) seen.shipments++;
        // OSN 2.1.0 (docs/design/osn-2.1.0.md §1) answers the same purchase orders from the same lookups.
        const v21 = await post(app, SHIPMENT_V21_URL, osnV21Request('GetOrderShipmentNotificationRequest', soapFields));
        expect(v21.statusCode, v21.body).toBe(200);
        const v21Body = (parser.parse(v21.body) as { Envelope: { Body: Node } }).Envelope.Body['GetOrderShipmentNotificationResponse'] as Node | '';
        expect(shipmentOutline(v21Body || {}, false), `2.1.0 ${t.name}`).toEqual(outline);
        osn21.push({ name: `2.1.0 ${t.name}`, xml: v21.body });
        seen.items += outline.flatMap((n) => n.salesOrders.flatMap((s) => s.shipments.flatMap((sh) => sh.packages.map((p) => p[2] as number)))).reduce((a, b) => a + b, 0);
        osn.push(t);
      }

      expect(await invalidAnswers('oss-2.0.0', oss)).toEqual({});
      expect(await invalidAnswers('osn-2.0.0', osn)).toEqual({});
      expect(await invalidAnswers('osn-2.1.0', osn21)).toEqual({});
    }),
    { numRuns, interruptAfterTimeLimit: timeLimitMs, seed: testSeed('ANSWERS_VALIDATE_V2_SEED') },
  );

  // The runs must have answered orders, issues, lines, contacts and shipments, not only refused events.
  console.log('2.0.0 answers validated:', seen);
  expect(seen.runs).toBeGreaterThan(10);
  expect(seen.withOrders).toBeGreaterThan(seen.runs);
  expect(seen.issuesAsked).toBeGreaterThan(seen.runs / 2);
  expect(seen.holdIssues).toBeGreaterThan(0);
  expect(seen.products).toBeGreaterThan(seen.runs / 4);
  expect(seen.contacts).toBeGreaterThan(seen.runs / 4);
  expect(seen.shipments).toBeGreaterThan(seen.runs / 4);
  expect(seen.items).toBeGreaterThan(0);
  expect(seen.refused).toBeLessThan(seen.events / 4);
}, 2 * timeLimitMs + 10_000);
