// OSN 2.1.0 as partners receive it (docs/design/osn-2.1.0.md §1, §3): every answer validated against
// the official 2.1.0 XSDs (libxml2), the content in SharedObjects, shipReferences, `kg` and 4
// fraction digits; 130 where 2.0.0 answers 301; a bare date read in the supplier's time zone;
// getServiceMethods; an inbound sendAdvanceShipmentNotification refused with 125 after the login.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createQueryMetrics } from '../../../../plumbing/metrics/query-metrics.js';
import { sample } from '../../../../../test/support/metrics-scrape.js';
import { osnV21Request, post, serviceMessagesOf, SHIPMENT_V21_URL, SHIPMENT_V2_URL, osnV2Request, type V21Operation } from '../../../../../test/support/soap-requests.js';
import { BASE_URL, buildV2TestApp, type V2TestApp } from '../../../../../test/support/test-apps.js';
import { SHIPMENT } from '../../../../../test/support/v2-views.js';
import { validateSoapAnswer } from '../../../../../test/xsd/validate.js';
import type { ShipmentNotificationV2View } from '../../../../../contracts/lookup-answers-v2.js';

const M = 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.1.0/';
const S = `${M}SharedObjects/`;

const LABELLED: ShipmentNotificationV2View = {
  purchaseOrderNumber: 'PO-LABEL',
  complete: true,
  salesOrders: [
    {
      salesOrderNumber: 'SO-LABEL',
      complete: true,
      shipments: [
        {
          id: 1,
          complete: true,
          shipFromAddress: { address1: '1 Dock Rd', city: 'Dallas', region: 'TX', postalCode: '75201', country: 'US' },
          shipToAddress: { address1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701', country: 'US' },
          packages: [
            {
              id: 3,
              trackingNumber: '1Z777',
              shipmentDate: new Date('2025-03-02T10:00:00Z'),
              dimUOM: 'cm',
              length: 0.00125,
              width: 12.34565,
              height: 7,
              weightUOM: 'KG',
              weight: 1.23456,
              preProductionProof: 'No',
              items: [{ supplierProductId: 'P-1', quantity: 2.00005 }],
              shipReferences: ['PO-LABEL / carton 1', 'DEPT 42'],
            },
          ],
        },
      ],
    },
  ],
};

let t: V2TestApp;
let subscribed: Set<string>;
const metrics = createQueryMetrics();
beforeAll(async () => {
  t = await buildV2TestApp({ supplierTimeZone: 'America/New_York', pushSubscribed: async (id) => subscribed.has(id), metrics });
});
afterAll(() => t.app.close());
beforeEach(() => {
  subscribed = new Set();
  t.lookups.notifications = [
    { clientId: 'C1', notification: SHIPMENT },
    { clientId: 'C1', notification: LABELLED },
    { clientId: 'C9', notification: { ...SHIPMENT, purchaseOrderNumber: 'PO-OTHER' } },
  ];
  t.lookups.shipmentCalls.length = 0;
});

async function ask(operation: V21Operation, fields: Record<string, string | undefined>, raw = ''): Promise<string> {
  const res = await post(t.app, SHIPMENT_V21_URL, osnV21Request(operation, fields, raw));
  expect(res.statusCode).toBe(200);
  expect(await validateSoapAnswer('osn-2.1.0', res.body)).toEqual([]);
  return res.body;
}

const degradedCount = async (field: string) => sample(await metrics.registry.metrics(), `ossn_query_v2_degraded_total{field="${field}"}`);

describe('getOrderShipmentNotification 2.1.0', () => {
  it('answers a purchase order in SharedObjects: shipReferences after preProductionProof, kg, at most 4 fraction digits (half-even)', async () => {
    const before = { width: await degradedCount('width'), length: await degradedCount('length'), weight: await degradedCount('weight'), quantity: await degradedCount('quantity') };
    const xml = await ask('GetOrderShipmentNotificationRequest', { queryType: '1', referenceNumber: 'PO-LABEL' });
    expect(xml).toContain(`<GetOrderShipmentNotificationResponse xmlns="${M}"><OrderShipmentNotificationArray xmlns="${S}"><OrderShipmentNotification><purchaseOrderNumber>PO-LABEL</purchaseOrderNumber>`);
    expect(xml).toContain(
      '<DimensionSize><dimUOM>cm</dimUOM><length>0.0012</length><width>12.3456</width><height>7</height></DimensionSize><DimensionWeight><weightUOM>kg</weightUOM><weight>1.2346</weight></DimensionWeight>',
    );
    expect(xml).toContain('<Quantity><value>2</value><uom>EA</uom></Quantity>');
    expect(xml).toContain('<preProductionProof>No</preProductionProof><shipReferences>PO-LABEL / carton 1</shipReferences><shipReferences>DEPT 42</shipReferences></Package>');
    // Each rounding is a fitting, counted as every other one.
    expect(await degradedCount('length')).toBe(before.length + 1);
    expect(await degradedCount('width')).toBe(before.width + 1);
    expect(await degradedCount('weight')).toBe(before.weight + 1);
    expect(await degradedCount('quantity')).toBe(before.quantity + 1);
    // From 2.1.0's own lookup, which counts changed shipReferences as news.
    expect(t.lookups.shipmentCalls).toEqual([{ clientIds: ['C1', 'C2'], query: { queryType: 1, referenceNumber: 'PO-LABEL' }, v21: true }]);
  });

  it('keeps 2.0.0 as it was: KG, every digit, no shipReferences', async () => {
    const res = await post(t.app, SHIPMENT_V2_URL, osnV2Request({ queryType: '1', referenceNumber: 'PO-LABEL' }));
    expect(res.body).toContain('<shar:weightUOM>KG</shar:weightUOM><shar:weight>1.23456</shar:weight>');
    expect(res.body).toContain('<shar:length>0.00125</shar:length>');
    expect(res.body).not.toContain('shipReferences');
    expect(await validateSoapAnswer('osn-2.0.0', res.body)).toEqual([]);
  });

  it.each([
    ['an unknown purchase order', { queryType: '1', referenceNumber: 'PO-NONE' }],
    ['another client’s purchase order', { queryType: '1', referenceNumber: 'PO-OTHER' }],
    ['an unknown sales order', { queryType: '2', referenceNumber: 'SO-NONE' }],
  ])('answers %s with 130 No data found (Information), where 2.0.0 answers 301', async (_name, fields) => {
    const xml = await ask('GetOrderShipmentNotificationRequest', fields);
    expect(serviceMessagesOf(xml)).toEqual([{ code: 130, description: 'No data found', severity: 'Information' }]);
    expect(xml).toContain(`<GetOrderShipmentNotificationResponse xmlns="${M}"><ServiceMessageArray xmlns="${S}"><ServiceMessage>`);
  });

  it('answers another client’s reference byte for byte as an unknown one', async () => {
    const unknown = await post(t.app, SHIPMENT_V21_URL, osnV21Request('GetOrderShipmentNotificationRequest', { queryType: '1', referenceNumber: 'PO-NONE' }));
    const other = await post(t.app, SHIPMENT_V21_URL, osnV21Request('GetOrderShipmentNotificationRequest', { queryType: '1', referenceNumber: 'PO-OTHER' }));
    expect(other.body).toBe(unknown.body);
  });

  it.each([
    // New York is UTC-5 in winter and UTC-4 in summer: the day starts at 05:00Z or 04:00Z.
    ['2025-01-15', '2025-01-15T05:00:00.000Z'],
    ['2025-07-15', '2025-07-15T04:00:00.000Z'],
    // A date-time is read as it is, whatever the zone.
    ['2025-01-15T00:00:00Z', '2025-01-15T00:00:00.000Z'],
    ['2025-01-15T00:00:00', '2025-01-15T00:00:00.000Z'],
  ])('reads queryType 3’s shipmentDateTimestamp %s as %s (supplier time zone America/New_York)', async (sent, since) => {
    await ask('GetOrderShipmentNotificationRequest', { queryType: '3', shipmentDateTimestamp: sent });
    expect(t.lookups.shipmentCalls.map((c) => [c.query.shipmentDateTimeStamp?.toISOString(), c.v21])).toEqual([[since, true]]);
  });

  it.each(['2025-02-30', '2025-13-01', '15-01-2025'])('refuses the date %s with 302', async (sent) => {
    const xml = await ask('GetOrderShipmentNotificationRequest', { queryType: '3', shipmentDateTimestamp: sent });
    expect(serviceMessagesOf(xml)).toEqual([{ code: 302, description: 'shipmentDateTimestamp is incorrect or is an invalid date range', severity: 'Error' }]);
    expect(t.lookups.shipmentCalls).toEqual([]);
  });

  it('answers an empty queryType 3 with the empty response element, no message', async () => {
    t.lookups.notifications = [];
    const xml = await ask('GetOrderShipmentNotificationRequest', { queryType: '3', shipmentDateTimestamp: '2025-01-15' });
    expect(xml).toContain(`<GetOrderShipmentNotificationResponse xmlns="${M}"/>`);
  });

  it.each([
    ['2.0.0', 115],
    ['1.0.0', 115],
  ])('refuses wsVersion %s with %i', async (wsVersion, code) => {
    const xml = await ask('GetOrderShipmentNotificationRequest', { wsVersion, queryType: '1', referenceNumber: 'PO-LABEL' });
    expect(serviceMessagesOf(xml).map((m) => m.code)).toEqual([code]);
  });

  it('refuses a credential without the osn scope (104), a wrong password (105)', async () => {
    const noScope = await ask('GetOrderShipmentNotificationRequest', { id: 'statusOnly', queryType: '1', referenceNumber: 'PO-LABEL' });
    expect(serviceMessagesOf(noScope).map((m) => m.code)).toEqual([104]);
    const wrong = await ask('GetOrderShipmentNotificationRequest', { password: 'nope', queryType: '1', referenceNumber: 'PO-LABEL' });
    expect(serviceMessagesOf(wrong).map((m) => m.code)).toEqual([105]);
  });
});

describe('getServiceMethods 2.1.0', () => {
  const methodsOf = (xml: string) => [...xml.matchAll(/<serviceMethod>([^<]*)<\/serviceMethod>/g)].map((m) => m[1]);

  it('lists sendAdvanceShipmentNotification only for a credential with a push subscription', async () => {
    const without = await ask('GetServiceMethodsRequest', {});
    expect(without).toContain(`<GetServiceMethodsResponse xmlns="${M}"><ServiceMethodArray xmlns="${S}">`);
    expect(methodsOf(without)).toEqual(['getOrderShipmentNotification', 'getServiceMethods']);
    subscribed.add('both');
    expect(methodsOf(await ask('GetServiceMethodsRequest', {}))).toEqual(['getOrderShipmentNotification', 'getServiceMethods', 'sendAdvanceShipmentNotification']);
  });

  it('needs the osn scope', async () => {
    const xml = await ask('GetServiceMethodsRequest', { id: 'statusOnly' });
    expect(serviceMessagesOf(xml).map((m) => m.code)).toEqual([104]);
  });
});

describe('sendAdvanceShipmentNotification sent to ossn', () => {
  const NOTIFICATION = `<shar:AdvanceShipmentNotification><shar:purchaseOrderNumber>PO-1</shar:purchaseOrderNumber><shar:purchaseOrderShippedInFull>false</shar:purchaseOrderShippedInFull><shar:ShipmentArray/></shar:AdvanceShipmentNotification>`;

  it('is answered 125 (Error, HTTP 200): ossn sends ship notifications, it does not receive them', async () => {
    const xml = await ask('SendAdvanceShipmentNotificationRequest', {}, NOTIFICATION);
    expect(xml).toContain(`<SendAdvanceShipmentNotificationResponse xmlns="${M}"><ServiceMessageArray xmlns="${S}">`);
    expect(serviceMessagesOf(xml)).toEqual([{ code: 125, description: 'Not Supported: this service sends ship notifications; it does not receive them', severity: 'Error' }]);
  });

  it('checks the login first: a wrong password is 105, a missing one 110', async () => {
    expect(serviceMessagesOf(await ask('SendAdvanceShipmentNotificationRequest', { password: 'nope' }, NOTIFICATION)).map((m) => m.code)).toEqual([105]);
    expect(serviceMessagesOf(await ask('SendAdvanceShipmentNotificationRequest', { password: undefined }, NOTIFICATION)).map((m) => m.code)).toEqual([110]);
  });
});

describe('the 2.1.0 WSDL and XSDs', () => {
  it('serves the official WSDL with its address at the 2.1.0 endpoint, and its XSDs beside it', async () => {
    const wsdl = await t.app.inject({ method: 'GET', url: `${SHIPMENT_V21_URL}?wsdl` });
    expect(wsdl.statusCode).toBe(200);
    expect(wsdl.body).toContain(`<soap:address location="${BASE_URL}${SHIPMENT_V21_URL}"/>`);
    expect(wsdl.body).toContain('<xsd:include schemaLocation="2.1.0/SendAdvanceShipmentNotificationRequest.xsd"/>');
    for (const file of ['SharedOSNObjects.xsd', 'SendAdvanceShipmentNotificationResponse.xsd', 'iso3166-country-code.xsd']) {
      const xsd = await t.app.inject({ method: 'GET', url: `${SHIPMENT_V21_URL}/${file}` });
      expect(xsd.statusCode, file).toBe(200);
    }
    const shared = await t.app.inject({ method: 'GET', url: `${SHIPMENT_V21_URL}/SharedOSNObjects.xsd` });
    expect(shared.body).toContain('<xsd:enumeration value="kg"/>');
  });
});
