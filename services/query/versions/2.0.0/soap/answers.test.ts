// OSS 2.0.0 answers as partners receive them: every element where the XSD puts it (each answer
// validated against the official 2.0.0 XSDs), every queryType and flag passed to the lookups as
// asked, only the credential's clients asked for; the WSDLs and XSDs served beside 1.0.0's.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createQueryMetrics } from '../../../../plumbing/metrics/query-metrics.js';
import { sample } from '../../../../../test/support/metrics-scrape.js';
import { answerBody, ORDER_STATUS_V2_URL, osnV2Request, ossV2Request, post, serviceMessagesOf, SHIPMENT_V2_URL, type XmlNode } from '../../../../../test/support/soap-requests.js';
import { BASE_URL, buildV2TestApp, type V2TestApp } from '../../../../../test/support/test-apps.js';
import { BARE_ORDER, CLOSED_ISSUE, FULL_ORDER, OPEN_ISSUE, SHIPMENT } from '../../../../../test/support/v2-views.js';
import { validateSoapAnswer } from '../../../../../test/xsd/validate.js';

let t: V2TestApp;
beforeAll(async () => {
  t = await buildV2TestApp();
});
afterAll(() => t.app.close());
beforeEach(() => {
  t.lookups.statuses = [
    { clientId: 'C1', order: FULL_ORDER },
    { clientId: 'C2', order: BARE_ORDER },
  ];
  t.lookups.issueRecords = [
    { clientId: 'C1', issue: OPEN_ISSUE },
    { clientId: 'C9', issue: { ...CLOSED_ISSUE, issueId: 'ISS-OTHER' } },
  ];
  t.lookups.statusCalls.length = 0;
  t.lookups.issueCalls.length = 0;
});

async function ask(operation: Parameters<typeof ossV2Request>[0], fields: Record<string, string | undefined>) {
  const res = await post(t.app, ORDER_STATUS_V2_URL, ossV2Request(operation, fields));
  expect(res.statusCode).toBe(200);
  expect(await validateSoapAnswer('oss-2.0.0', res.body)).toEqual([]);
  return res.body;
}

/** The element names of the first `name` element's children, in document order. */
function childNames(xml: string, name: string): string[] {
  const start = xml.indexOf(`<${name}>`);
  const inner = xml.slice(start + name.length + 2, xml.indexOf(`</${name}>`, start));
  const names: string[] = [];
  let depth = 0;
  for (const m of inner.matchAll(/<(\/?)([A-Za-z]+)[^>]*?(\/?)>/g)) {
    if (m[1] === '/') depth--;
    else {
      if (depth === 0) names.push(m[2] ?? '');
      if (m[3] !== '/') depth++;
    }
  }
  return names;
}

describe('getOrderStatus', () => {
  it('writes every part of a full sales order in XSD order, valid, arrays only with items', async () => {
    const xml = await ask('GetOrderStatusRequest', { queryType: 'poSearch', referenceNumber: 'PO-FULL', returnIssueDetailType: 'allIssues', returnProductDetail: 'true' });
    expect(childNames(xml, 'OrderStatusDetail')).toEqual([
      'salesOrderNumber',
      'status',
      'issueCategory',
      'expectedShipDate',
      'expectedDeliveryDate',
      'additionalExplanation',
      'qualityProofURL',
      'OrderContactArray',
      'ProductArray',
      'IssueArray',
      'validTimestamp',
    ]);
    expect(xml).toContain('<expectedShipDate>2025-03-10</expectedShipDate><expectedDeliveryDate>2025-03-14</expectedDeliveryDate>');
    expect(xml).toContain('<validTimestamp>2025-03-01T12:00:00.250Z</validTimestamp>');
    expect(xml).toContain('<issueDescription>Logo &lt;too&gt; small &amp; blurry</issueDescription><responseRequiredBy>2025-03-04T05:06:07.000Z</responseRequiredBy>');
    expect(xml).toContain('<QuantityOrdered><value>250</value><uom>EA</uom></QuantityOrdered><QuantityShipped><value>0.5</value><uom>DZ</uom></QuantityShipped>');
    expect(xml).toContain('<QuantityOrdered><value>0.0000001</value><uom>BX</uom></QuantityOrdered>');
    // A contact with nothing but its type still has its (empty) ContactDetails, which the XSD requires.
    expect(xml).toContain('<Contact><contactType>Bill</contactType><ContactDetails/></Contact>');
    // The bare sales order has none of the optional parts, no empty array either.
    const bare = xml.slice(xml.indexOf('<salesOrderNumber>SO-BARE</salesOrderNumber>'));
    expect(childNames(`<OrderStatusDetail>${bare}`, 'OrderStatusDetail')).toEqual(['salesOrderNumber', 'status', 'validTimestamp']);
  });

  it('puts the answer in the service namespace and its content in SharedObjects', async () => {
    const xml = await ask('GetOrderStatusRequest', { queryType: 'allOpen' });
    expect(xml).toContain(
      '<GetOrderStatusResponse xmlns="http://www.promostandards.org/WSDL/OrderStatus/2.0.0/"><OrderStatusArray xmlns="http://www.promostandards.org/WSDL/OrderStatus/2.0.0/SharedObjects/"><OrderStatus>',
    );
  });

  it('leaves out products and issues the lookups did not give (the flags decide there)', async () => {
    t.lookups.statuses = [{ clientId: 'C1', order: { purchaseOrderNumber: 'PO-FULL', details: [{ ...FULL_ORDER.details[0]!, products: undefined, issues: [] }] } }];
    const xml = await ask('GetOrderStatusRequest', { queryType: 'allOpen' });
    expect(xml).not.toContain('ProductArray');
    expect(xml).not.toContain('IssueArray');
    expect(xml).toContain('<issueCategory>artHold</issueCategory>');
  });

  it.each([
    [{ queryType: 'poSearch', referenceNumber: 'PO-FULL' }, { queryType: 'poSearch', referenceNumber: 'PO-FULL', returnIssueDetailType: 'noIssues', returnProductDetail: false }],
    [{ queryType: 'soSearch', referenceNumber: 'SO-FULL', returnProductDetail: '1' }, { queryType: 'soSearch', referenceNumber: 'SO-FULL', returnIssueDetailType: 'noIssues', returnProductDetail: true }],
    [
      { queryType: 'lastUpdate', statusTimeStamp: '2025-03-01T12:00:00', returnIssueDetailType: 'openIssues' },
      { queryType: 'lastUpdate', statusTimeStamp: new Date('2025-03-01T12:00:00Z'), returnIssueDetailType: 'openIssues', returnProductDetail: false },
    ],
    [{ queryType: 'allOpen', returnIssueDetailType: 'allIssues', returnProductDetail: 'false' }, { queryType: 'allOpen', returnIssueDetailType: 'allIssues', returnProductDetail: false }],
    [{ queryType: 'allOpenIssues' }, { queryType: 'allOpenIssues', returnIssueDetailType: 'openIssues', returnProductDetail: false }],
    [{ queryType: 'allOpenIssues', returnIssueDetailType: 'allIssues' }, { queryType: 'allOpenIssues', returnIssueDetailType: 'allIssues', returnProductDetail: false }],
  ])('asks the lookups %j as %j, for the credential’s clients', async (fields, query) => {
    await ask('GetOrderStatusRequest', fields);
    expect(t.lookups.statusCalls).toEqual([{ clientIds: ['C1', 'C2'], query }]);
  });

  it('answers only the credential’s clients: another client’s purchase order is 301 like an unknown one', async () => {
    const asStatusOnly = await ask('GetOrderStatusRequest', { id: 'statusOnly', queryType: 'poSearch', referenceNumber: 'PO-BARE' });
    expect(asStatusOnly).toContain('<code>301</code><description>referenceNumber not found</description>');
    expect(t.lookups.statusCalls[0]?.clientIds).toEqual(['C1']);
    const all = await ask('GetOrderStatusRequest', { id: 'statusOnly', queryType: 'allOpen' });
    expect(all).toContain('PO-FULL');
    expect(all).not.toContain('PO-BARE');
  });

  it('an empty list is an empty response element', async () => {
    t.lookups.statuses = [];
    for (const queryType of ['allOpen', 'allOpenIssues']) {
      expect(answerBody(await ask('GetOrderStatusRequest', { queryType }))).toEqual({ GetOrderStatusResponse: '' });
    }
    expect(answerBody(await ask('GetOrderStatusRequest', { queryType: 'lastUpdate', statusTimeStamp: '2030-01-01T00:00:00Z' }))).toEqual({ GetOrderStatusResponse: '' });
  });

  it('a field sent in any namespace, or none, is read by its local name', async () => {
    const payload = ossV2Request('GetOrderStatusRequest', { queryType: undefined }).replace('</ns:GetOrderStatusRequest>', '<queryType>allOpen</queryType></ns:GetOrderStatusRequest>');
    const res = await post(t.app, ORDER_STATUS_V2_URL, payload);
    expect(res.body).toContain('PO-FULL');
  });
});

describe('getIssue', () => {
  it('answers every issue of that id on the credential’s clients’ orders', async () => {
    t.lookups.issueRecords.push({ clientId: 'C2', issue: { ...OPEN_ISSUE, issueStatus: 'Pending', issueName: undefined } });
    const xml = await ask('GetIssueRequest', { issueId: 'ISS-1' });
    expect(t.lookups.issueCalls).toEqual([{ clientIds: ['C1', 'C2'], issueId: 'ISS-1' }]);
    const issues = (answerBody(xml)['GetIssueResponse'] as XmlNode)['IssueArray'] as { Issue: XmlNode[] };
    expect(issues.Issue.map((i) => i['issueStatus'])).toEqual(['Open', 'Pending']);
    expect(childNames(xml, 'Issue')).toEqual([
      'issueId',
      'issueStatus',
      'issueCategory',
      'issueName',
      'urgentResponseRequired',
      'issueDescription',
      'responseRequiredBy',
      'issueResolutionURL',
      'productId',
      'partId',
    ]);
  });

  it('another client’s issue is 301 like an unknown one', async () => {
    expect(await ask('GetIssueRequest', { issueId: 'ISS-OTHER' })).toContain('<code>301</code><description>issueId not found</description>');
  });
});

describe('getServiceMethods', () => {
  it('lists the three operations', async () => {
    const xml = await ask('GetServiceMethodsRequest', {});
    expect(xml).toContain('<serviceMethod>getOrderStatus</serviceMethod><serviceMethod>getIssue</serviceMethod><serviceMethod>getServiceMethods</serviceMethod>');
  });
});

describe('OSN 2.0.0 endpoint', () => {
  it('reads its fields in SharedObjects (zeep) or in the service namespace (node-soap), and passes the query to the lookups', async () => {
    for (const fieldsIn of ['S', 'M'] as const) {
      t.lookups.shipmentCalls.length = 0;
      await post(t.app, SHIPMENT_V2_URL, osnV2Request({ queryType: '3', shipmentDateTimestamp: '2025-03-01' }, fieldsIn));
      await post(t.app, SHIPMENT_V2_URL, osnV2Request({ queryType: '+1', referenceNumber: 'PO-FULL' }, fieldsIn));
      expect(t.lookups.shipmentCalls).toEqual([
        { clientIds: ['C1', 'C2'], query: { queryType: 3, shipmentDateTimeStamp: new Date('2025-03-01T00:00:00Z') } },
        { clientIds: ['C1', 'C2'], query: { queryType: 1, referenceNumber: 'PO-FULL' } },
      ]);
    }
  });

  it('answers the notifications valid against the OSN 2.0.0 XSDs, the 200 Warning at the cap; 301 for another client’s purchase order', async () => {
    t.lookups.notifications = [
      { clientId: 'C1', notification: SHIPMENT },
      { clientId: 'C9', notification: { ...SHIPMENT, purchaseOrderNumber: 'PO-OTHER' } },
    ];
    const answer = await post(t.app, SHIPMENT_V2_URL, osnV2Request({ queryType: '1', referenceNumber: 'PO-FULL' }));
    expect(await validateSoapAnswer('osn-2.0.0', answer.body)).toEqual([]);
    expect(answer.body).toContain('1Z999');
    t.lookups.more = true;
    try {
      const capped = await post(t.app, SHIPMENT_V2_URL, osnV2Request({ queryType: '3', shipmentDateTimestamp: '2025-01-01T00:00:00Z' }));
      expect(await validateSoapAnswer('osn-2.0.0', capped.body)).toEqual([]);
      expect(serviceMessagesOf(capped.body)).toEqual([{ code: 200, description: 'Answer full: 5000 purchase orders; more may match', severity: 'Warning' }]);
      expect(capped.body).not.toContain('PO-OTHER');
    } finally {
      t.lookups.more = false;
    }
    const other = await post(t.app, SHIPMENT_V2_URL, osnV2Request({ queryType: '1', referenceNumber: 'PO-OTHER' }));
    expect(serviceMessagesOf(other.body)).toEqual([{ code: 301, description: 'referenceNumber not found', severity: 'Error' }]);
  });
});

describe('degraded values', () => {
  it('are counted in ossn_query_v2_degraded_total by field, through the callback the renderers get', async () => {
    const metrics = createQueryMetrics();
    const measured = await buildV2TestApp({ metrics });
    try {
      const long = 'x'.repeat(40);
      measured.lookups.statuses = [{ clientId: 'C1', order: { purchaseOrderNumber: 'PO-1', details: [{ ...FULL_ORDER.details[1]!, contacts: [{ contactType: 'Art', address1: long, country: 'RS' }] }] } }];
      const res = await post(measured.app, ORDER_STATUS_V2_URL, ossV2Request('GetOrderStatusRequest', { queryType: 'allOpen' }));
      expect(await validateSoapAnswer('oss-2.0.0', res.body)).toEqual([]);
      const text = await metrics.registry.metrics();
      expect(sample(text, 'ossn_query_v2_degraded_total{field="address1"}')).toBeGreaterThan(0);
    } finally {
      await measured.app.close();
    }
  });
});

describe('WSDLs and XSDs', () => {
  it.each([
    [ORDER_STATUS_V2_URL, 'OrderStatusServiceV2', ['GetOrderStatusRequest', 'GetOrderStatusResponse', 'GetIssueRequest', 'GetIssueResponse', 'GetServiceMethodsRequest', 'GetServiceMethodsResponse']],
    [SHIPMENT_V2_URL, 'OrderShipmentNotificationService', ['GetOrderShipmentNotificationRequest', 'GetOrderShipmentNotificationResponse']],
  ])('%s?wsdl: the official WSDL with its address and XSDs under 2.0.0/', async (url, service, schemas) => {
    const res = await t.app.inject({ method: 'GET', url: `${url}?wsdl` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<wsdl:service name="${service}">`);
    expect(res.body).toMatch(new RegExp(`<soap:address location="${BASE_URL}${url}"\\s*/>`));
    expect([...res.body.matchAll(/schemaLocation="([^"]+)"/g)].map((m) => m[1])).toEqual(schemas.map((s) => `2.0.0/${s}.xsd`));
  });

  it('serves every XSD unchanged, the country codes too; 1.0.0’s stay at their paths', async () => {
    const { readFile } = await import('node:fs/promises');
    for (const [url, folder, file] of [
      [ORDER_STATUS_V2_URL, 'oss-2.0.0', 'SharedObjectsOrderStatusV2.xsd'],
      [ORDER_STATUS_V2_URL, 'oss-2.0.0', 'iso3166-country-code.xsd'],
      [SHIPMENT_V2_URL, 'osn-2.0.0', 'SharedOSNObjects.xsd'],
      ['/api/promostandards/order-shipment-notification', 'osn-1.0.0', 'SharedOSNObjects.xsd'],
    ]) {
      const res = await t.app.inject({ method: 'GET', url: `${url}/${file}` });
      expect(res.statusCode, `${url}/${file}`).toBe(200);
      expect(res.body).toBe(await readFile(new URL(`../../../../../wsdl/${folder}/${file}`, import.meta.url), 'utf8'));
    }
    expect((await t.app.inject({ method: 'GET', url: `${ORDER_STATUS_V2_URL}/nothing.xsd` })).statusCode).toBe(404);
    // The endpoint itself, without ?wsdl: a page naming it, linking its WSDL.
    const page = await t.app.inject({ method: 'GET', url: ORDER_STATUS_V2_URL });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>PromoStandards Order Status 2.0.0</h1>');
    expect(page.body).toContain(`<a href="${ORDER_STATUS_V2_URL}?wsdl">`);
  });
});
