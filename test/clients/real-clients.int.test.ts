// Generic SOAP clients against the real app end to end: node-soap (Node) and zeep (Python) read
// the served WSDLs over HTTP, call every operation, and must parse the same orders the lookups
// return for the same arguments. The app is the production one (buildApp with MongoOrderLookups
// and CachingAuthenticator over the real credential store) on a database filled with the demo
// data set; its publicBaseUrl is its real URL, so the clients use the WSDLs' soap:address as is.
import { randomBytes } from 'node:crypto';
import soap from 'soap';
import { beforeAll, describe, expect, it } from 'vitest';
import { callZeep, type ZeepOutcome } from '../../scripts/python/zeep-client.js';
import { ensurePythonVenv } from '../../scripts/python/venv.js';
import { statusTypes } from '../../contracts/status-types.js';
import type { ShipmentQuery, StatusQuery } from '../../contracts/lookups.js';
import { readShipmentsWhole } from '../support/read-shipments.js';
import { ORDER_STATUS_PATH, SHIPMENT_NOTIFICATION_PATH } from '../../services/query/versions/1.0.0/soap/index.js';
import { comparable, comparableShipments, shipmentAnswerFromWire, statusAnswerFromWire, statusTypesFromWire } from './answers.js';
import { useDemoApp } from './demo-app.js';

const LINKED = ['CLIENT-001', 'CLIENT-002'];
const UNLINKED = 'CLIENT-003';
const PARTNER = { id: 'partner-real-clients', password: randomBytes(12).toString('base64url') };
const LOGIN = { wsVersion: '1.0.0', id: PARTNER.id, password: PARTNER.password };
const WRONG_LOGIN = { ...LOGIN, password: `${PARTNER.password}-wrong` };

const demo = useDemoApp('real-clients', { seed: 20_260_101, partner: PARTNER, clientIds: LINKED });

const ossWsdl = () => `${demo.url}${ORDER_STATUS_PATH}?wsdl`;
const osnWsdl = () => `${demo.url}${SHIPMENT_NOTIFICATION_PATH}?wsdl`;

// ---- what to ask for, chosen from the folded demo data

function linkedStatuses() {
  return [...demo.folded.orderStatus.values()].filter((s) => LINKED.includes(s.clientId) && s.purchaseOrderNumber !== undefined);
}

/** A purchase order of a linked client with several sales orders. */
function purchaseOrderWithSeveralSalesOrders(): string {
  const counts = new Map<string, number>();
  for (const s of linkedStatuses()) counts.set(s.purchaseOrderNumber as string, (counts.get(s.purchaseOrderNumber as string) ?? 0) + 1);
  const po = [...counts].find(([, n]) => n >= 2)?.[0];
  if (!po) throw new Error('the demo data set has no purchase order with several sales orders');
  return po;
}

function linkedShipments() {
  return [...demo.folded.shipments.values()].filter((s) => LINKED.includes(s.clientId) && s.purchaseOrderNumber !== undefined && s.locations.length > 0);
}

/** A shipped purchase order of a linked client, one with package items when there is one. */
function shippedPurchaseOrder(): string {
  const shipped = linkedShipments();
  const withItems = shipped.find((s) => s.locations.some((l) => l.packages.some((p) => (p.items?.length ?? 0) > 0)));
  const chosen = withItems ?? shipped.find((s) => s.locations.some((l) => l.packages.length > 0));
  if (!chosen) throw new Error('the demo data set has no shipped purchase order');
  return chosen.purchaseOrderNumber as string;
}

/** The median shipment date of the linked clients' packages: queryType 3 then leaves some packages out. */
function medianShipmentDate(): Date {
  const dates = linkedShipments()
    .flatMap((s) => s.locations.flatMap((l) => l.packages.map((p) => p.shipmentDate.getTime())))
    .sort((a, b) => a - b);
  if (dates.length === 0) throw new Error('the demo data set has no packages');
  return new Date(dates[Math.floor(dates.length / 2)] as number);
}

/** A purchase order number only the unlinked client uses. */
function unlinkedPurchaseOrder(): string {
  const linked = new Set(linkedStatuses().map((s) => s.purchaseOrderNumber));
  const po = [...demo.folded.orderStatus.values()].find((s) => s.clientId === UNLINKED && s.purchaseOrderNumber && !linked.has(s.purchaseOrderNumber));
  if (!po?.purchaseOrderNumber) throw new Error(`the demo data set has no purchase order of ${UNLINKED} alone`);
  return po.purchaseOrderNumber;
}

interface Case<Q> {
  name: string;
  /** Request fields besides the login, as both clients send them. */
  args: () => Record<string, string | number>;
  query: () => Q;
  /** Whether the lookups must find something for the comparison to mean anything. */
  nonEmpty: boolean;
}

// statusTimeStamp is required by the schema for every queryType; clients send it as text
// (node-soap writes Date objects as empty elements).
const STATUS_CASES: Case<StatusQuery>[] = [
  {
    name: 'queryType 1, a purchase order with several sales orders',
    args: () => ({ queryType: 1, referenceNumber: purchaseOrderWithSeveralSalesOrders(), statusTimeStamp: demo.seededFrom.toISOString() }),
    query: () => ({ queryType: 1, referenceNumber: purchaseOrderWithSeveralSalesOrders() }),
    nonEmpty: true,
  },
  {
    name: 'queryType 3, changed since before the data was written',
    args: () => ({ queryType: 3, statusTimeStamp: demo.seededFrom.toISOString() }),
    query: () => ({ queryType: 3, statusTimeStamp: demo.seededFrom }),
    nonEmpty: true,
  },
  {
    name: 'queryType 3, nothing changed since (an empty answer)',
    args: () => ({ queryType: 3, statusTimeStamp: new Date(Date.now() + 3_600_000).toISOString() }),
    query: () => ({ queryType: 3, statusTimeStamp: new Date(Date.now() + 3_600_000) }),
    nonEmpty: false,
  },
  {
    name: 'queryType 4, every open order',
    args: () => ({ queryType: 4, statusTimeStamp: demo.seededFrom.toISOString() }),
    query: () => ({ queryType: 4 }),
    nonEmpty: true,
  },
];

const SHIPMENT_CASES: Case<ShipmentQuery>[] = [
  {
    name: 'queryType 1, a shipped purchase order',
    args: () => ({ queryType: 1, referenceNumber: shippedPurchaseOrder() }),
    query: () => ({ queryType: 1, referenceNumber: shippedPurchaseOrder() }),
    nonEmpty: true,
  },
  {
    name: 'queryType 3, shipped since the median shipment date',
    args: () => ({ queryType: 3, shipmentDateTimeStamp: medianShipmentDate().toISOString() }),
    query: () => ({ queryType: 3, shipmentDateTimeStamp: medianShipmentDate() }),
    nonEmpty: true,
  },
];

async function expectedStatuses(c: Case<StatusQuery>): Promise<unknown> {
  const views = await demo.lookups.orderStatus(LINKED, c.query());
  if (c.nonEmpty) expect(views.length, 'the lookups find orders for this case').toBeGreaterThan(0);
  return comparable(views);
}

async function expectedShipments(c: Case<ShipmentQuery>): Promise<unknown> {
  const views = await readShipmentsWhole(demo.lookups, LINKED, c.query());
  if (c.nonEmpty) expect(views.length, 'the lookups find shipments for this case').toBeGreaterThan(0);
  return comparableShipments(views);
}

const EXPECTED_TYPES = statusTypes.map((s) => [s.statusId, s.statusName]);

describe('node-soap (npm soap) against the real app', () => {
  let oss: soap.Client;
  let osn: soap.Client;

  beforeAll(async () => {
    // No endpoint override: the WSDLs' soap:address is the app's own URL.
    oss = await soap.createClientAsync(ossWsdl());
    osn = await soap.createClientAsync(osnWsdl());
  });

  it('reads both WSDLs and calls the soap:address they give', async () => {
    const described = oss.describe() as Record<string, Record<string, Record<string, unknown>>>;
    expect(Object.keys(described['OrderStatusService']?.['OrderStatusServiceBinding'] ?? {})).toEqual(['getOrderStatusDetails', 'getOrderStatusTypes']);
    await oss.getOrderStatusTypesAsync(LOGIN);
    expect(oss.lastEndpoint).toBe(`${demo.url}${ORDER_STATUS_PATH}`);
    await osn.getOrderShipmentNotificationAsync({ ...LOGIN, queryType: 1, referenceNumber: shippedPurchaseOrder() });
    expect(osn.lastEndpoint).toBe(`${demo.url}${SHIPMENT_NOTIFICATION_PATH}`);
  });

  it.each(STATUS_CASES)('getOrderStatusDetails $name: the lookups’ orders', async (c) => {
    const [answer] = await oss.getOrderStatusDetailsAsync({ ...LOGIN, ...c.args() });
    expect(statusAnswerFromWire(answer)).toEqual(await expectedStatuses(c));
  });

  it('getOrderStatusDetails answers nothing for a purchase order of an unlinked client', async () => {
    const [answer] = await oss.getOrderStatusDetailsAsync({ ...LOGIN, queryType: 1, referenceNumber: unlinkedPurchaseOrder(), statusTimeStamp: demo.seededFrom.toISOString() });
    expect(statusAnswerFromWire(answer)).toEqual([]);
  });

  it('getOrderStatusTypes: every statusID with its standard name', async () => {
    const [answer] = await oss.getOrderStatusTypesAsync(LOGIN);
    expect(statusTypesFromWire(answer)).toEqual(EXPECTED_TYPES);
  });

  it.each(SHIPMENT_CASES)('getOrderShipmentNotification $name: the lookups’ shipments', async (c) => {
    const [answer] = await osn.getOrderShipmentNotificationAsync({ ...LOGIN, ...c.args() });
    expect(shipmentAnswerFromWire(answer)).toEqual(await expectedShipments(c));
  });

  it('a wrong password is a SOAP fault "Invalid id or password", on both services', async () => {
    const faultOf = (error: unknown) => (error as { root?: { Envelope?: { Body?: { Fault?: unknown } } } }).root?.Envelope?.Body?.Fault;
    const statusError = await oss.getOrderStatusDetailsAsync({ ...WRONG_LOGIN, queryType: 4, statusTimeStamp: demo.seededFrom.toISOString() }).catch((e: unknown) => e);
    expect(faultOf(statusError)).toEqual({ faultcode: 'soap:Client', faultstring: 'Invalid id or password' });
    const shipmentError = await osn.getOrderShipmentNotificationAsync({ ...WRONG_LOGIN, queryType: 1, referenceNumber: 'PO-1' }).catch((e: unknown) => e);
    expect(faultOf(shipmentError)).toEqual({ faultcode: 'soap:Client', faultstring: 'Invalid id or password' });
  });
});

describe('zeep (Python) against the real app', () => {
  let python: string;

  // Builds .cache/python-venv on first use (pip from PyPI); a failure fails these tests with its reason.
  beforeAll(async () => {
    python = await ensurePythonVenv();
  }, 900_000);

  function answerOf(outcome: ZeepOutcome): unknown {
    if ('fault' in outcome) throw new Error(`zeep got a fault: ${outcome.fault.faultcode} ${outcome.fault.faultstring}`);
    return outcome.answer;
  }

  it.each(STATUS_CASES)('getOrderStatusDetails $name: the lookups’ orders', async (c) => {
    const answer = answerOf(await callZeep(python, ossWsdl(), 'getOrderStatusDetails', { ...LOGIN, ...c.args() }));
    expect(statusAnswerFromWire(answer)).toEqual(await expectedStatuses(c));
  });

  it('getOrderStatusTypes: every statusID with its standard name', async () => {
    const answer = answerOf(await callZeep(python, ossWsdl(), 'getOrderStatusTypes', LOGIN));
    expect(statusTypesFromWire(answer)).toEqual(EXPECTED_TYPES);
  });

  it.each(SHIPMENT_CASES)('getOrderShipmentNotification $name: the lookups’ shipments', async (c) => {
    const answer = answerOf(await callZeep(python, osnWsdl(), 'getOrderShipmentNotification', { ...LOGIN, ...c.args() }));
    expect(shipmentAnswerFromWire(answer)).toEqual(await expectedShipments(c));
  });

  it('a wrong password is a SOAP fault "Invalid id or password", on both services', async () => {
    const fault = { fault: { faultcode: 'soap:Client', faultstring: 'Invalid id or password' } };
    expect(await callZeep(python, ossWsdl(), 'getOrderStatusDetails', { ...WRONG_LOGIN, queryType: 4, statusTimeStamp: demo.seededFrom.toISOString() })).toEqual(fault);
    expect(await callZeep(python, osnWsdl(), 'getOrderShipmentNotification', { ...WRONG_LOGIN, queryType: 1, referenceNumber: 'PO-1' })).toEqual(fault);
  });
});
