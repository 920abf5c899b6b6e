// Generic SOAP clients against the 2.0.0 and OSN 2.1.0 endpoints of the real app, end to end: zeep
// 4.3.3 (strict) loads the served 2.0.0 and 2.1.0 WSDLs, calls every operation (each OSS queryType
// and flag, OSN 1, 2 and 3, 2.1.0's getServiceMethods and the refused sendAdvanceShipmentNotification)
// and parses every answer, which must hold what the real MongoDB lookups find; node-soap sends OSN
// requests its own way (2.0.0's fields in the service namespace) and gets the same answers.
// The data set is the demo one, which speaks contract v2 (holds, ERP issues, product lines,
// contacts, customer pickups, carrier services): what zeep parses of those is compared with the
// read models as the projections folded them.
import { randomBytes } from 'node:crypto';
import soap from 'soap';
import { beforeAll, describe, expect, it } from 'vitest';
import { readWhole, type OrderStatusV2Query, type ShipmentQuery } from '../../contracts/lookups.js';
import { isOpenIssue } from '../../contracts/v2-vocabulary.js';
import type { IssueState } from '../../projections/state.js';
import { callZeep, type ZeepOutcome } from '../../scripts/python/zeep-client.js';
import { ensurePythonVenv } from '../../scripts/python/venv.js';
import { ORDER_STATUS_V2_PATH, SHIPMENT_NOTIFICATION_V2_PATH } from '../../services/query/versions/2.0.0/soap/plugin.js';
import { SHIPMENT_NOTIFICATION_V21_PATH } from '../../services/query/versions/2.1.0/soap/plugin.js';
import { useDemoApp } from './demo-app.js';

const LINKED = ['CLIENT-001', 'CLIENT-002'];
const PARTNER = { id: 'partner-v2-clients', password: randomBytes(12).toString('base64url') };
const LOGIN = { wsVersion: '2.0.0', id: PARTNER.id, password: PARTNER.password };

const demo = useDemoApp('v2-clients', { seed: 20_260_102, partner: PARTNER, clientIds: LINKED });

const ossWsdl = () => `${demo.url}${ORDER_STATUS_V2_PATH}?wsdl`;
const osnWsdl = () => `${demo.url}${SHIPMENT_NOTIFICATION_V2_PATH}?wsdl`;
const osnV21Wsdl = () => `${demo.url}${SHIPMENT_NOTIFICATION_V21_PATH}?wsdl`;
const LOGIN_V21 = { ...LOGIN, wsVersion: '2.1.0' };

// ---- what to ask for, from the folded demo data

const linkedStatuses = () => [...demo.folded.orderStatus.values()].filter((s) => LINKED.includes(s.clientId) && s.purchaseOrderNumber !== undefined);

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
  const s = [...demo.folded.shipments.values()].find((x) => LINKED.includes(x.clientId) && x.purchaseOrderNumber !== undefined && x.locations.some((l) => l.packages.length > 0));
  if (!s?.purchaseOrderNumber) throw new Error('the demo data set has no shipped purchase order');
  return { po: s.purchaseOrderNumber, so: s.salesOrderNumber };
}

function medianShipmentDate(): string {
  const dates = [...demo.folded.shipments.values()]
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
  const answer = await demo.lookups.orderStatusV2(LINKED, query);
  return answer.orders.map((o) => ({ po: o.purchaseOrderNumber, details: o.details.map((d) => [d.salesOrderNumber, d.status]) }));
}

const poOf = (answer: unknown) => inner((answer as Json)['OrderShipmentNotificationArray'], 'OrderShipmentNotification').map((n) => n['purchaseOrderNumber']);

async function expectedShipments(query: ShipmentQuery) {
  return (await readWhole(await demo.lookups.shipmentNotificationV2Batches(LINKED, query))).orders.map((o) => o.purchaseOrderNumber);
}

async function expectedShipmentsV21(query: ShipmentQuery) {
  return (await readWhole(await demo.lookups.shipmentNotificationV21Batches(LINKED, query))).orders.map((o) => o.purchaseOrderNumber);
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
    args: () => ({ queryType: 'lastUpdate', statusTimeStamp: demo.seededFrom.toISOString(), returnIssueDetailType: 'openIssues' }),
    query: () => ({ queryType: 'lastUpdate', statusTimeStamp: demo.seededFrom, returnIssueDetailType: 'openIssues', returnProductDetail: false }),
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
    nonEmpty: true,
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

describe('zeep 4.3.3 (strict) parses the 2.0.0 data the demo events recorded, as folded', () => {
  let python: string;

  beforeAll(async () => {
    python = await ensurePythonVenv();
  }, 900_000);

  const answerOf = (outcome: ZeepOutcome): Json => {
    if ('fault' in outcome) throw new Error(`zeep got a fault: ${outcome.fault.faultcode} ${outcome.fault.faultstring}`);
    return outcome.answer as Json;
  };
  const time = (value: unknown) => (value === undefined || value === null ? undefined : Date.parse(String(value)));
  const absent = (value: unknown) => (value === null ? undefined : value);

  /** An issue as zeep parsed it and as the read model holds it, in one comparable form. */
  const wireIssue = (i: Json) => ({
    issueId: i['issueId'],
    issueStatus: i['issueStatus'],
    issueCategory: i['issueCategory'],
    issueName: absent(i['issueName']),
    urgentResponseRequired: i['urgentResponseRequired'],
    issueDescription: absent(i['issueDescription']),
    responseRequiredBy: time(i['responseRequiredBy']),
    issueResolutionURL: absent(i['issueResolutionURL']),
    productId: absent(i['productId']),
    partId: absent(i['partId']),
  });
  const foldedIssue = (i: IssueState) => ({
    issueId: i.issueId,
    issueStatus: i.issueStatus,
    issueCategory: i.issueCategory,
    issueName: i.issueName,
    urgentResponseRequired: i.urgentResponseRequired,
    issueDescription: i.issueDescription,
    responseRequiredBy: i.responseRequiredBy?.getTime(),
    issueResolutionURL: i.issueResolutionURL,
    productId: i.productId,
    partId: i.partId,
  });

  it('getIssue answers an ERP issue and a derived hold issue as recorded', async () => {
    const erp = linkedStatuses().flatMap((s) => (s.issues ?? []).filter((i) => i.source === 'erp'));
    const hold = linkedStatuses().flatMap((s) => (s.issues ?? []).filter((i) => i.source === 'hold'));
    expect(erp.length).toBeGreaterThan(0);
    expect(hold.length).toBeGreaterThan(0);
    for (const issue of [erp[0]!, hold[0]!]) {
      const answer = answerOf(await callZeep(python, ossWsdl(), 'getIssue', { ...LOGIN, issueId: issue.issueId }));
      expect(messagesOf(answer)).toEqual([]);
      expect(inner(answer['IssueArray'], 'Issue').map(wireIssue)).toEqual([foldedIssue(issue)]);
    }
  });

  it('allOpenIssues lists exactly the sales orders with an Open or Pending issue, each with its open issues', async () => {
    const answer = answerOf(await callZeep(python, ossWsdl(), 'getOrderStatus', { ...LOGIN, queryType: 'allOpenIssues' }));
    const details = inner(answer['OrderStatusArray'], 'OrderStatus').flatMap((o) => inner(o['OrderStatusDetailArray'], 'OrderStatusDetail'));
    const expected = linkedStatuses().filter((s) => (s.issues ?? []).some((i) => isOpenIssue(i.issueStatus)));
    expect(expected.length).toBeGreaterThan(0);
    expect(details.map((d) => d['salesOrderNumber']).sort()).toEqual(expected.map((s) => s.salesOrderNumber).sort());
    for (const d of details) {
      const state = expected.find((s) => s.salesOrderNumber === d['salesOrderNumber'])!;
      const issues = inner(d['IssueArray'], 'Issue').map(wireIssue);
      expect(issues.length, String(d['salesOrderNumber'])).toBeGreaterThan(0);
      expect(issues.every((i) => isOpenIssue(i.issueStatus as IssueState['issueStatus']))).toBe(true);
      // Each one as recorded (an open hold issue hidden behind an open ERP issue of its category is left out).
      for (const issue of issues) expect(issue).toEqual(foldedIssue(state.issues!.find((i) => i.issueId === issue.issueId)!));
    }
  });

  it('returnProductDetail: each sales order’s product lines as recorded, and its contacts', async () => {
    const state = linkedStatuses().find((s) => (s.lines ?? []).length > 1 && (s.contacts ?? []).length > 0);
    if (!state?.purchaseOrderNumber) throw new Error('the demo data set has no sales order with product lines and contacts');
    const answer = answerOf(
      await callZeep(python, ossWsdl(), 'getOrderStatus', { ...LOGIN, queryType: 'soSearch', referenceNumber: state.salesOrderNumber, returnProductDetail: true }),
    );
    const detail = inner(answer['OrderStatusArray'], 'OrderStatus')
      .flatMap((o) => inner(o['OrderStatusDetailArray'], 'OrderStatusDetail'))
      .find((d) => d['salesOrderNumber'] === state.salesOrderNumber)!;
    const quantity = (q: unknown) => (q === null || q === undefined ? undefined : { value: Number((q as Json)['value']), uom: (q as Json)['uom'] });
    expect(
      inner(detail['ProductArray'], 'Product').map((p) => ({
        salesOrderLineNumber: p['salesOrderLineNumber'],
        productId: p['productId'],
        partId: absent(p['partId']),
        purchaseOrderLineNumber: absent(p['purchaseOrderLineNumber']),
        quantityOrdered: quantity(p['QuantityOrdered']),
        quantityShipped: quantity(p['QuantityShipped']),
        status: p['status'],
      })),
    ).toEqual(
      state.lines!.map((l) => ({
        salesOrderLineNumber: l.salesOrderLineNumber,
        productId: l.productId,
        partId: l.partId,
        purchaseOrderLineNumber: l.purchaseOrderLineNumber,
        quantityOrdered: l.quantityOrdered,
        quantityShipped: l.quantityShipped,
        status: l.status ?? detail['status'],
      })),
    );
    expect(inner(detail['OrderContactArray'], 'Contact').map((c) => c['contactType'])).toEqual(state.contacts!.map((c) => c.contactType));
  });

  it('OSN: customerPickup, FreightDetails, preProductionProof and item units as recorded', async () => {
    const so = [...demo.folded.shipments.values()].find(
      (s) => LINKED.includes(s.clientId) && s.purchaseOrderNumber !== undefined && s.locations.some((l) => l.customerPickup === true && l.packages.some((p) => p.carrier && p.carrierService)),
    );
    if (!so) throw new Error('the demo data set has no customer pickup with a carrier service');
    const answer = answerOf(await callZeep(python, osnWsdl(), 'getOrderShipmentNotification', { ...LOGIN, queryType: 2, referenceNumber: so.salesOrderNumber }));
    const salesOrder = inner(answer['OrderShipmentNotificationArray'], 'OrderShipmentNotification')
      .flatMap((n) => inner(n['SalesOrderArray'], 'SalesOrder'))
      .find((s) => s['salesOrderNumber'] === so.salesOrderNumber)!;
    const wire = inner(salesOrder['ShipmentArray'], 'Shipment').map((s) => ({
      customerPickup: s['customerPickup'],
      packages: inner(s['PackageArray'], 'Package').map((p) => ({
        trackingNumber: p['trackingNumber'],
        freight: absent(p['FreightDetails']),
        preProductionProof: p['preProductionProof'],
        units: inner(p['ItemArray'], 'Item').map((i) => (i['Quantity'] as Json)['uom']),
      })),
    }));
    const expected = so.locations
      .filter((l) => l.packages.length > 0)
      .map((l) => ({
        customerPickup: l.customerPickup ?? false,
        packages: l.packages.map((p) => {
          const service = p.carrierService ?? p.shipmentMethod;
          return {
            trackingNumber: p.trackingNumber,
            freight: p.carrier && service ? { carrier: p.carrier, service } : undefined,
            preProductionProof: p.preProductionProof ?? 'Unknown',
            units: (p.items ?? []).filter((i) => i.supplierProductId !== undefined && i.quantity !== undefined).map((i) => i.uom ?? 'EA'),
          };
        }),
      }));
    expect(wire).toEqual(expected);
    expect(wire.some((s) => s.customerPickup === true && s.packages.some((p) => p.freight))).toBe(true);
  });
});

describe('node-soap against the OSN 2.0.0 endpoint', () => {
  it('reads the served WSDL, sends its fields in the service namespace, parses the answer', async () => {
    const osn = await soap.createClientAsync(osnWsdl());
    const { po } = shipped();
    const [answer] = (await osn.getOrderShipmentNotificationAsync({ ...LOGIN, queryType: 1, referenceNumber: po })) as [unknown];
    expect(osn.lastEndpoint).toBe(`${demo.url}${SHIPMENT_NOTIFICATION_V2_PATH}`);
    // The fields in M, not in SharedObjects where the XSD puts them: read all the same.
    expect(osn.lastRequest).toMatch(/<(\w+):referenceNumber xmlns:\1="http:\/\/www\.promostandards\.org\/WSDL\/OrderShipmentNotificationService\/2\.0\.0\/">/);
    expect(poOf(answer)).toEqual(await expectedShipments({ queryType: 1, referenceNumber: po }));
  });
});

describe('zeep 4.3.3 (strict) against the OSN 2.1.0 endpoint of the real app', () => {
  let python: string;

  beforeAll(async () => {
    python = await ensurePythonVenv();
  }, 900_000);

  const answerOf = (outcome: ZeepOutcome): unknown => {
    if ('fault' in outcome) throw new Error(`zeep got a fault: ${outcome.fault.faultcode} ${outcome.fault.faultstring}`);
    return outcome.answer;
  };

  it.each([
    ['1, a shipped purchase order', () => ({ queryType: 1, referenceNumber: shipped().po }), (): ShipmentQuery => ({ queryType: 1, referenceNumber: shipped().po })],
    ['2, its sales order', () => ({ queryType: 2, referenceNumber: shipped().so }), (): ShipmentQuery => ({ queryType: 2, referenceNumber: shipped().so })],
    [
      '3, since before the data was written',
      () => ({ queryType: 3, shipmentDateTimestamp: demo.seededFrom.toISOString() }),
      (): ShipmentQuery => ({ queryType: 3, shipmentDateTimeStamp: demo.seededFrom }),
    ],
  ])('getOrderShipmentNotification queryType %s: the lookups’ purchase orders', async (_name, args, query) => {
    const expected = await expectedShipmentsV21(query());
    expect(expected.length).toBeGreaterThan(0);
    const answer = answerOf(await callZeep(python, osnV21Wsdl(), 'getOrderShipmentNotification', { ...LOGIN_V21, ...args() }));
    expect(poOf(answer)).toEqual(expected);
    expect(messagesOf(answer)).toEqual([]);
  });

  it('getOrderShipmentNotification of another client’s or no purchase order: 130 Information', async () => {
    const answer = answerOf(await callZeep(python, osnV21Wsdl(), 'getOrderShipmentNotification', { ...LOGIN_V21, queryType: 1, referenceNumber: 'PO-NOBODY' }));
    expect(messagesOf(answer)).toEqual([[130, 'Information']]);
  });

  it('getServiceMethods: the two operations a credential without a push subscription can use', async () => {
    const answer = answerOf(await callZeep(python, osnV21Wsdl(), 'getServiceMethods', LOGIN_V21)) as Json;
    expect(answer['ServiceMethodArray']).toEqual({ serviceMethod: ['getOrderShipmentNotification', 'getServiceMethods'] });
  });

  it('sendAdvanceShipmentNotification as zeep builds it from the WSDL: 125 in the answer', async () => {
    const address = { address1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701' };
    const shipment = {
      destinationShippedInFull: false,
      customerPickup: false,
      shipFromAddress: address,
      shipToAddress: address,
      PackageArray: { Package: [{ shipmentDate: '2025-03-04T05:06:07Z', preProductionProof: 'Unknown', shipReferences: ['CARTON 1'] }] },
    };
    const notification = { purchaseOrderNumber: 'PO-1', purchaseOrderShippedInFull: false, ShipmentArray: { Shipment: [shipment] } };
    const answer = answerOf(await callZeep(python, osnV21Wsdl(), 'sendAdvanceShipmentNotification', { ...LOGIN_V21, AdvanceShipmentNotification: notification }));
    expect(messagesOf(answer)).toEqual([[125, 'Error']]);
  });
});

describe('node-soap against the OSN 2.1.0 endpoint', () => {
  it('reads the served WSDL, sends its request, parses the answer', async () => {
    const osn = await soap.createClientAsync(osnV21Wsdl());
    const { po } = shipped();
    const [answer] = (await osn.getOrderShipmentNotificationAsync({ ...LOGIN_V21, queryType: 1, referenceNumber: po })) as [unknown];
    expect(osn.lastEndpoint).toBe(`${demo.url}${SHIPMENT_NOTIFICATION_V21_PATH}`);
    expect(poOf(answer)).toEqual(await expectedShipmentsV21({ queryType: 1, referenceNumber: po }));
  });
});
