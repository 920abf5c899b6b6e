// The JSON v2 twins give what SOAP 2.0.0 gives for the same arguments (oss-osn-2.0.0.md §9.8): the
// same purchase orders, sales orders, statuses, issues and shipments, and the same codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from '../../../../../test/support/json-requests.js';
import { answerBody, arrayOf, items, ORDER_STATUS_V2_URL, osnV2Request, ossV2Request, post, serviceMessagesOf, SHIPMENT_V2_URL, type XmlNode } from '../../../../../test/support/soap-requests.js';
import { buildV2TestApp, type V2TestApp } from '../../../../../test/support/test-apps.js';
import { BARE_ORDER, CLOSED_ISSUE, FULL_ORDER, OPEN_ISSUE, SHIPMENT } from '../../../../../test/support/v2-views.js';

let t: V2TestApp;
beforeAll(async () => {
  t = await buildV2TestApp();
  t.lookups.statuses = [
    { clientId: 'C1', order: FULL_ORDER },
    { clientId: 'C2', order: BARE_ORDER },
    { clientId: 'C9', order: { ...BARE_ORDER, purchaseOrderNumber: 'PO-OTHER' } },
  ];
  t.lookups.issueRecords = [
    { clientId: 'C1', issue: OPEN_ISSUE },
    { clientId: 'C2', issue: CLOSED_ISSUE },
  ];
  t.lookups.notifications = [{ clientId: 'C1', notification: SHIPMENT }];
});
afterAll(() => t.app.close());

/** What a partner compares: orders, their sales orders with status and issues, and the codes. */
function ossSummary(orders: XmlNode[], codes: number[]) {
  return {
    orders: orders.map((o) => ({
      po: String(o['purchaseOrderNumber']),
      details: items(o, 'OrderStatusDetailArray', 'OrderStatusDetail').map((d) => ({
        so: String(d['salesOrderNumber']),
        status: String(d['status']),
        issues: items(d, 'IssueArray', 'Issue').map((i) => String(i['issueId'])),
        products: items(d, 'ProductArray', 'Product').map((p) => String(p['salesOrderLineNumber'])),
        contacts: items(d, 'OrderContactArray', 'Contact').map((c) => String(c['contactType'])),
      })),
    })),
    codes,
  };
}

async function soapStatus(fields: Record<string, string>) {
  const res = await post(t.app, ORDER_STATUS_V2_URL, ossV2Request('GetOrderStatusRequest', fields));
  const response = answerBody(res.body)['GetOrderStatusResponse'] as XmlNode;
  return ossSummary(
    items(response, 'OrderStatusArray', 'OrderStatus'),
    serviceMessagesOf(res.body).map((m) => m.code),
  );
}

async function json(url: string) {
  const res = await t.app.inject({ method: 'GET', url, headers: { authorization: basic('both', 'secret') } });
  return res.json() as Record<string, unknown>;
}

const codesOf = (body: Record<string, unknown>) => arrayOf(body['ServiceMessageArray']).map((m) => Number(m['code']));

describe('twins: OSS getOrderStatus and /v2/orders/status', () => {
  it.each<Record<string, string>>([
    { queryType: 'allOpen' },
    { queryType: 'allOpen', returnIssueDetailType: 'allIssues', returnProductDetail: 'true' },
    { queryType: 'poSearch', referenceNumber: 'PO-FULL', returnIssueDetailType: 'openIssues' },
    { queryType: 'soSearch', referenceNumber: 'SO-BARE-2' },
    { queryType: 'poSearch', referenceNumber: 'PO-OTHER' },
    { queryType: 'lastUpdate', statusTimeStamp: '2025-01-01T00:00:00Z' },
    { queryType: 'lastUpdate', statusTimeStamp: 'soon' },
    { queryType: 'allOpenIssues' },
    { queryType: 'transactionId' },
    { queryType: 'allOpen', returnProductDetail: 'perhaps' },
  ])('%j', async (fields) => {
    const body = await json(`/api/partners/v2/orders/status?${new URLSearchParams(fields).toString()}`);
    expect(ossSummary(arrayOf(body['OrderStatusArray']), codesOf(body))).toEqual(await soapStatus(fields));
  });
});

describe('twins: getIssue and /v2/issues', () => {
  it.each(['ISS-1', OPEN_ISSUE.issueId, CLOSED_ISSUE.issueId, 'ISS-NONE'])('%s', async (issueId) => {
    const res = await post(t.app, ORDER_STATUS_V2_URL, ossV2Request('GetIssueRequest', { issueId }));
    const response = answerBody(res.body)['GetIssueResponse'] as XmlNode;
    const soapIssues = items(response, 'IssueArray', 'Issue').map((i) => [i['issueId'], i['issueStatus'], i['urgentResponseRequired']]);
    const body = await json(`/api/partners/v2/issues?issueId=${encodeURIComponent(issueId)}`);
    const jsonIssues = arrayOf(body['IssueArray']).map((i) => [i['issueId'], i['issueStatus'], String(i['urgentResponseRequired'])]);
    expect(jsonIssues).toEqual(soapIssues);
    expect(codesOf(body)).toEqual(serviceMessagesOf(res.body).map((m) => m.code));
  });
});

describe('twins: OSN getOrderShipmentNotification and /v2/orders/shipments', () => {
  it.each<Record<string, string>>([
    { queryType: '1', referenceNumber: 'PO-FULL' },
    { queryType: '2', referenceNumber: 'SO-FULL' },
    { queryType: '2', referenceNumber: 'SO-NONE' },
    { queryType: '3', shipmentDateTimestamp: '2025-01-01' },
    { queryType: '4' },
  ])('%j', async (fields) => {
    const res = await post(t.app, SHIPMENT_V2_URL, osnV2Request(fields));
    const response = answerBody(res.body)['GetOrderShipmentNotificationResponse'] as XmlNode;
    const soapOrders = items(response, 'OrderShipmentNotificationArray', 'OrderShipmentNotification').map((n) => String(n['purchaseOrderNumber']));
    const body = await json(`/api/partners/v2/orders/shipments?${new URLSearchParams(fields).toString()}`);
    expect(arrayOf(body['OrderShipmentNotificationArray']).map((n) => String(n['purchaseOrderNumber']))).toEqual(soapOrders);
    expect(codesOf(body)).toEqual(serviceMessagesOf(res.body).map((m) => m.code));
  });
});
