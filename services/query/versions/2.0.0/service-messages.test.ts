// The 2.0.0 error table (oss-osn-2.0.0.md §3, §10.1), row by row, for SOAP (in-band, HTTP 200, in
// the operation's response element, valid against the official XSDs) and for the JSON v2 twins
// (the HTTP status of the code); then the order of the checks.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PasswordChecksBusyError } from '../../../domain/credentials/check-slots.js';
import { createRequestLimits } from '../../rate-limit/index.js';
import { basic } from '../../../../test/support/json-requests.js';
import {
  envelope,
  faultOf,
  ORDER_STATUS_V2_URL,
  osnV2Request,
  ossV2Request,
  post,
  serviceMessagesOf,
  SHIPMENT_V2_URL,
  type V2Operation,
} from '../../../../test/support/soap-requests.js';
import { buildV2TestApp, type V2TestApp } from '../../../../test/support/test-apps.js';
import { FULL_ORDER, OPEN_ISSUE, SHIPMENT } from '../../../../test/support/v2-views.js';
import { validateSoapAnswer } from '../../../../test/xsd/validate.js';

let t: V2TestApp;
beforeAll(async () => {
  t = await buildV2TestApp();
});
afterAll(() => t.app.close());
beforeEach(() => {
  t.lookups.failure = undefined;
  t.lookups.more = false;
  t.lookups.statuses = [{ clientId: 'C1', order: FULL_ORDER }];
  t.lookups.issueRecords = [{ clientId: 'C1', issue: OPEN_ISSUE }];
  t.lookups.notifications = [{ clientId: 'C1', notification: SHIPMENT }];
  t.lookups.statusCalls.length = 0;
  t.lookups.issueCalls.length = 0;
  t.lookups.shipmentCalls.length = 0;
  t.authenticator.calls.length = 0;
  t.authenticator.failure = undefined;
});

type Fields = Record<string, string | undefined>;
type Request = { oss: V2Operation; fields: Fields } | { osn: Fields };

const RESPONSE: Record<V2Operation, string> = {
  GetOrderStatusRequest: 'GetOrderStatusResponse',
  GetIssueRequest: 'GetIssueResponse',
  GetServiceMethodsRequest: 'GetServiceMethodsResponse',
};

/** Posts a SOAP 2.0.0 request; checks the answer is a valid 200 of the operation's response element; returns its messages. */
async function soapMessages(request: Request) {
  const [url, payload, service, response] =
    'oss' in request
      ? [ORDER_STATUS_V2_URL, ossV2Request(request.oss, request.fields), 'oss-2.0.0' as const, RESPONSE[request.oss]]
      : [SHIPMENT_V2_URL, osnV2Request(request.osn), 'osn-2.0.0' as const, 'GetOrderShipmentNotificationResponse'];
  const res = await post(t.app, url, payload);
  expect(res.statusCode).toBe(200);
  expect(res.body).toContain(`<soap:Body><${response} `);
  expect(await validateSoapAnswer(service, res.body)).toEqual([]);
  return serviceMessagesOf(res.body);
}

const asBoth = { authorization: basic('both', 'secret') };

async function jsonAnswer(url: string, headers: Record<string, string> = asBoth) {
  const res = await t.app.inject({ method: 'GET', url, headers });
  return { status: res.statusCode, headers: res.headers, body: res.json() as { ServiceMessageArray?: unknown[] } };
}

const error = (code: number, description: string) => ({ code, description, severity: 'Error' });
const busy = error(999, 'Server busy: retry in a second');

describe('faults, as 1.0.0 (HTTP 500)', () => {
  it.each([
    ['no XML', ORDER_STATUS_V2_URL, 'hello'],
    ['no envelope', SHIPMENT_V2_URL, '<GetOrderShipmentNotificationRequest/>'],
    ['no Body element', ORDER_STATUS_V2_URL, '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"/>'],
    ['a body over the limit', ORDER_STATUS_V2_URL, ossV2Request('GetServiceMethodsRequest', { id: 'x'.repeat(70_000) })],
  ])('Malformed SOAP request: %s', async (_case, url, payload) => {
    const res = await post(t.app, url, payload);
    expect(res.statusCode).toBe(500);
    expect(faultOf(res.body)).toEqual({ code: 'soap:Client', message: 'Malformed SOAP request' });
  });

  it('Unsupported operation: a 1.0.0 operation or the other service’s', async () => {
    const oss1 = await post(t.app, ORDER_STATUS_V2_URL, envelope('<GetOrderStatusDetailsRequest xmlns="http://www.promostandards.org/WSDL/OrderStatusService/1.0.0/"/>'));
    expect([oss1.statusCode, faultOf(oss1.body)]).toEqual([500, { code: 'soap:Client', message: 'Unsupported operation: GetOrderStatusDetailsRequest' }]);
    const other = await post(t.app, SHIPMENT_V2_URL, ossV2Request('GetIssueRequest', { issueId: 'ISS-1' }));
    expect([other.statusCode, faultOf(other.body)]).toEqual([500, { code: 'soap:Client', message: 'Unsupported operation: GetIssueRequest' }]);
  });
});

describe('120 The following field(s) are required', () => {
  it.each<[string, Request, string]>([
    ['wsVersion and queryType', { oss: 'GetOrderStatusRequest', fields: { wsVersion: undefined } }, 'wsVersion, queryType'],
    ['referenceNumber for poSearch, with wsVersion, in request order', { oss: 'GetOrderStatusRequest', fields: { wsVersion: '', queryType: 'poSearch' } }, 'wsVersion, referenceNumber'],
    ['referenceNumber for soSearch', { oss: 'GetOrderStatusRequest', fields: { queryType: 'soSearch', referenceNumber: ' ' } }, 'referenceNumber'],
    ['statusTimeStamp for lastUpdate', { oss: 'GetOrderStatusRequest', fields: { queryType: 'lastUpdate' } }, 'statusTimeStamp'],
    ['issueId', { oss: 'GetIssueRequest', fields: {} }, 'issueId'],
    ['wsVersion of getServiceMethods', { oss: 'GetServiceMethodsRequest', fields: { wsVersion: undefined } }, 'wsVersion'],
    ['OSN queryType', { osn: {} }, 'queryType'],
    ['OSN referenceNumber for 1', { osn: { queryType: '1' } }, 'referenceNumber'],
    ['OSN referenceNumber for 2 and wsVersion', { osn: { wsVersion: undefined, queryType: '2' } }, 'wsVersion, referenceNumber'],
    ['OSN shipmentDateTimestamp for 3', { osn: { queryType: '3' } }, 'shipmentDateTimestamp'],
  ])('%s', async (_case, request, fields) => {
    expect(await soapMessages(request)).toEqual([error(120, `The following field(s) are required: ${fields}`)]);
  });

  it('JSON: 400, every missing parameter', async () => {
    expect(await jsonAnswer('/api/partners/v2/orders/status')).toMatchObject({ status: 400, body: { ServiceMessageArray: [error(120, 'The following field(s) are required: queryType')] } });
    expect(await jsonAnswer('/api/partners/v2/orders/status?queryType=poSearch&referenceNumber=')).toMatchObject({
      status: 400,
      body: { ServiceMessageArray: [error(120, 'The following field(s) are required: referenceNumber')] },
    });
    expect(await jsonAnswer('/api/partners/v2/orders/shipments?queryType=3')).toMatchObject({ status: 400, body: { ServiceMessageArray: [error(120, 'The following field(s) are required: shipmentDateTimestamp')] } });
    expect(await jsonAnswer('/api/partners/v2/issues')).toMatchObject({ status: 400, body: { ServiceMessageArray: [error(120, 'The following field(s) are required: issueId')] } });
  });
});

describe('115 wsVersion not found', () => {
  it.each<[string, Request]>([
    ['1.0.0 on OSS', { oss: 'GetOrderStatusRequest', fields: { wsVersion: '1.0.0', queryType: 'allOpen' } }],
    ['2.0 on getIssue', { oss: 'GetIssueRequest', fields: { wsVersion: '2.0', issueId: 'ISS-1' } }],
    ['1.0.0 on OSN (a 1.0.0 client on the 2.0.0 URL)', { osn: { wsVersion: '1.0.0', queryType: '1', referenceNumber: 'PO-FULL' } }],
  ])('%s', async (_case, request) => {
    expect(await soapMessages(request)).toEqual([error(115, 'wsVersion not found')]);
  });

  it('takes " 2.0.0 " (xsd:token) as 2.0.0', async () => {
    expect(await soapMessages({ oss: 'GetServiceMethodsRequest', fields: { wsVersion: ' 2.0.0 ' } })).toEqual([]);
  });
});

describe('110 Authentication Credentials required', () => {
  it.each<[string, Request]>([
    ['no id', { oss: 'GetOrderStatusRequest', fields: { id: undefined, queryType: 'allOpen' } }],
    ['no password', { oss: 'GetServiceMethodsRequest', fields: { password: undefined } }],
    ['an empty password', { oss: 'GetIssueRequest', fields: { password: '', issueId: 'ISS-1' } }],
    ['OSN, a nil id', { osn: { id: undefined, queryType: '3', shipmentDateTimestamp: '2025-01-01T00:00:00Z' } }],
  ])('%s', async (_case, request) => {
    expect(await soapMessages(request)).toEqual([error(110, 'Authentication Credentials required')]);
    expect(t.authenticator.calls).toEqual([]);
  });

  it('counts xsi:nil as absent', async () => {
    const payload = ossV2Request('GetServiceMethodsRequest', { password: undefined }).replace(
      '</ns:GetServiceMethodsRequest>',
      '<shar:password xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/></ns:GetServiceMethodsRequest>',
    );
    expect(serviceMessagesOf((await post(t.app, ORDER_STATUS_V2_URL, payload)).body)).toEqual([error(110, 'Authentication Credentials required')]);
  });

  it('JSON: 401 with WWW-Authenticate, without Basic auth or with an empty password', async () => {
    for (const headers of [{}, { authorization: basic('both', '') }] as Record<string, string>[]) {
      const answer = await jsonAnswer('/api/partners/v2/orders/status?queryType=allOpen', headers);
      expect(answer).toMatchObject({ status: 401, body: { ServiceMessageArray: [error(110, 'Authentication Credentials required')] } });
      expect(answer.headers['www-authenticate']).toBe('Basic realm="ossn"');
    }
  });
});

describe('300 queryType not found', () => {
  it.each<[string, Request]>([
    ['an OSS word not in the enumeration', { oss: 'GetOrderStatusRequest', fields: { queryType: 'everything' } }],
    ['a 1.0.0 number on OSS', { oss: 'GetOrderStatusRequest', fields: { queryType: '4' } }],
    ['OSN 4', { osn: { queryType: '4' } }],
    ['OSN not an int', { osn: { queryType: 'one' } }],
  ])('%s', async (_case, request) => {
    expect(await soapMessages(request)).toEqual([error(300, 'queryType not found')]);
  });

  it.each([
    ['statusTimeStamp', '/api/partners/v2/orders/status?queryType=lastUpdate&statusTimeStamp=2024-01-01T00:00:00Z&statusTimestamp=2099-01-01T00:00:00Z', { oss: 'GetOrderStatusRequest', fields: { queryType: 'lastUpdate', statusTimeStamp: '2024-01-01T00:00:00Z', statusTimestamp: '2099-01-01T00:00:00Z' } }, 'statusTimestamp'],
    ['shipmentDateTimestamp', '/api/partners/v2/orders/shipments?queryType=3&shipmentDateTimestamp=2024-01-01&shipmentDateTimeStamp=2099-01-01', { osn: { queryType: '3', shipmentDateTimestamp: '2024-01-01', shipmentDateTimeStamp: '2099-01-01' } }, 'shipmentDateTimeStamp'],
  ] as const)('%s given once under each of its two spellings: refused as given twice (no gateway reads one and the service the other)', async (_field, url, request, second) => {
    const expected = { status: 400, body: { ServiceMessageArray: [error(125, `Not Supported: ${second} (given more than once)`)] } };
    expect(await jsonAnswer(url)).toMatchObject(expected);
    expect(await soapMessages(request)).toEqual([error(125, `Not Supported: ${second} (given more than once)`)]);
    expect([t.lookups.statusCalls, t.lookups.shipmentCalls]).toEqual([[], []]);
  });

  it('JSON: 400', async () => {
    expect(await jsonAnswer('/api/partners/v2/orders/shipments?queryType=9')).toMatchObject({ status: 400, body: { ServiceMessageArray: [error(300, 'queryType not found')] } });
  });
});

describe('125 Not Supported', () => {
  it.each<[string, Fields, string]>([
    ['transactionId', { queryType: 'transactionId', referenceNumber: 'T-1' }, 'queryType transactionId'],
    ['returnIssueDetailType', { queryType: 'allOpen', returnIssueDetailType: 'someIssues' }, 'returnIssueDetailType someIssues'],
    ['returnProductDetail', { queryType: 'allOpen', returnProductDetail: 'yes' }, 'returnProductDetail yes'],
  ])('%s', async (_case, fields, what) => {
    expect(await soapMessages({ oss: 'GetOrderStatusRequest', fields })).toEqual([error(125, `Not Supported: ${what}`)]);
  });

  it('cuts an echoed value to the 256 a description may hold, its whitespace collapsed', async () => {
    const [message] = await soapMessages({ oss: 'GetOrderStatusRequest', fields: { queryType: 'allOpen', returnIssueDetailType: `a  b${'x'.repeat(300)}` } });
    expect(message?.description).toBe(`Not Supported: returnIssueDetailType a b${'x'.repeat(256 - 40)}`);
    expect([...(message?.description ?? '')].length).toBe(256);
  });

  it('JSON: a parameter given twice, a password in the URL', async () => {
    expect(await jsonAnswer('/api/partners/v2/orders/status?queryType=allOpen&queryType=poSearch')).toMatchObject({
      status: 400,
      body: { ServiceMessageArray: [error(125, 'Not Supported: queryType (given more than once)')] },
    });
    const url = await jsonAnswer('/api/partners/v2/issues?issueId=ISS-1&password=secret');
    expect(url).toMatchObject({ status: 400, body: { ServiceMessageArray: [{ code: 125 }] } });
    expect(JSON.stringify(url.body)).not.toContain('secret');
    expect(t.authenticator.calls).toEqual([]);
  });

  it.each(['constructor', '__proto__', 'valueOf', 'toString', 'hasOwnProperty', 'yes', 'True', '2'])('returnProductDetail %s: only true, false, 1 and 0 are booleans', async (flag) => {
    expect(await soapMessages({ oss: 'GetOrderStatusRequest', fields: { queryType: 'allOpen', returnProductDetail: flag } })).toEqual([error(125, `Not Supported: returnProductDetail ${flag}`)]);
    expect(await jsonAnswer(`/api/partners/v2/orders/status?queryType=allOpen&returnProductDetail=${flag}`)).toMatchObject({
      status: 400,
      body: { ServiceMessageArray: [error(125, `Not Supported: returnProductDetail ${flag}`)] },
    });
    expect(t.lookups.statusCalls).toEqual([]);
  });

  it.each([
    ['/api/partners/v2/orders/status?queryType=lastUpdate&statusTimestamp=a&statusTimestamp=b', 'statusTimestamp'],
    ['/api/partners/v2/orders/status?queryType=lastUpdate&statusTimeStamp=a&statusTimeStamp=b', 'statusTimeStamp'],
    ['/api/partners/v2/orders/shipments?queryType=3&shipmentDateTimeStamp=a&shipmentDateTimeStamp=b', 'shipmentDateTimeStamp'],
  ])('JSON: %s, a field given twice under either spelling, with or without credentials', async (url, field) => {
    const expected = { status: 400, body: { ServiceMessageArray: [error(125, `Not Supported: ${field} (given more than once)`)] } };
    expect(await jsonAnswer(url)).toMatchObject(expected);
    const res = await t.app.inject({ url });
    expect({ status: res.statusCode, body: res.json() as unknown }).toMatchObject(expected);
  });

  it('JSON: 400', async () => {
    expect(await jsonAnswer('/api/partners/v2/orders/status?queryType=transactionId')).toMatchObject({ status: 400, body: { ServiceMessageArray: [error(125, 'Not Supported: queryType transactionId')] } });
  });
});

describe('302 invalid date', () => {
  it('statusTimeStamp of lastUpdate', async () => {
    expect(await soapMessages({ oss: 'GetOrderStatusRequest', fields: { queryType: 'lastUpdate', statusTimeStamp: '2025-02-30T00:00:00Z' } })).toEqual([
      error(302, 'statusTimeStamp is incorrect or is an invalid date range'),
    ]);
  });

  it('shipmentDateTimestamp of OSN 3 (1.0.0’s spelling read too)', async () => {
    expect(await soapMessages({ osn: { queryType: '3', shipmentDateTimeStamp: 'yesterday' } })).toEqual([error(302, 'shipmentDateTimestamp is incorrect or is an invalid date range')]);
  });

  it('is ignored where the queryType does not read it, as in 1.0.0', async () => {
    expect(await soapMessages({ oss: 'GetOrderStatusRequest', fields: { queryType: 'allOpen', statusTimeStamp: 'never' } })).toEqual([]);
    expect(t.lookups.statusCalls[0]?.query.statusTimeStamp).toBeUndefined();
  });

  it('JSON: 400', async () => {
    expect(await jsonAnswer('/api/partners/v2/orders/status?queryType=lastUpdate&statusTimeStamp=2025-13-01T00:00:00Z')).toMatchObject({
      status: 400,
      body: { ServiceMessageArray: [error(302, 'statusTimeStamp is incorrect or is an invalid date range')] },
    });
  });
});

describe('105 Authentication Credentials failed', () => {
  it.each<[string, Fields]>([
    ['a wrong password', { password: 'wrong' }],
    ['an unknown id', { id: 'nobody' }],
    ['an id over 64 characters', { id: 'x'.repeat(65) }],
    ['a password over 64 characters', { password: 'x'.repeat(65) }],
  ])('%s (never telling which part failed)', async (_case, fields) => {
    expect(await soapMessages({ oss: 'GetOrderStatusRequest', fields: { queryType: 'allOpen', ...fields } })).toEqual([error(105, 'Authentication Credentials failed')]);
    expect(await soapMessages({ osn: { queryType: '1', referenceNumber: 'PO-FULL', ...fields } })).toEqual([error(105, 'Authentication Credentials failed')]);
    expect(t.lookups.statusCalls).toEqual([]);
  });

  it('JSON: 401 with WWW-Authenticate, also for an unreadable Basic header', async () => {
    for (const authorization of [basic('both', 'wrong'), 'Basic !!!']) {
      const answer = await jsonAnswer('/api/partners/v2/issues?issueId=ISS-1', { authorization });
      expect(answer).toMatchObject({ status: 401, body: { ServiceMessageArray: [error(105, 'Authentication Credentials failed')] } });
      expect(answer.headers['www-authenticate']).toBe('Basic realm="ossn"');
    }
  });
});

describe('104 unauthorized', () => {
  const text = 'This account is unauthorized to use this service. Please contact the service provider';
  it.each<[string, Request]>([
    ['OSS getOrderStatus without order_status', { oss: 'GetOrderStatusRequest', fields: { id: 'osnOnly', queryType: 'allOpen' } }],
    ['getIssue without order_status', { oss: 'GetIssueRequest', fields: { id: 'osnOnly', issueId: 'ISS-1' } }],
    ['getServiceMethods without order_status', { oss: 'GetServiceMethodsRequest', fields: { id: 'osnOnly' } }],
    ['OSN without osn', { osn: { id: 'statusOnly', queryType: '1', referenceNumber: 'PO-FULL' } }],
  ])('%s', async (_case, request) => {
    expect(await soapMessages(request)).toEqual([error(104, text)]);
    expect([...t.lookups.statusCalls, ...t.lookups.issueCalls, ...t.lookups.shipmentCalls]).toEqual([]);
  });

  it('JSON: 403, same scopes as SOAP', async () => {
    for (const [url, id] of [
      ['/api/partners/v2/orders/status?queryType=allOpen', 'osnOnly'],
      ['/api/partners/v2/issues?issueId=ISS-1', 'osnOnly'],
      ['/api/partners/v2/orders/shipments?queryType=1&referenceNumber=PO-FULL', 'statusOnly'],
    ] as const) {
      expect(await jsonAnswer(url, { authorization: basic(id, 'secret') })).toMatchObject({ status: 403, body: { ServiceMessageArray: [error(104, text)] } });
    }
  });
});

describe('301 not found', () => {
  it.each<[string, Request, string]>([
    ['poSearch of an unknown purchase order', { oss: 'GetOrderStatusRequest', fields: { queryType: 'poSearch', referenceNumber: 'PO-NONE' } }, 'referenceNumber'],
    ['soSearch of an unknown sales order', { oss: 'GetOrderStatusRequest', fields: { queryType: 'soSearch', referenceNumber: 'SO-NONE' } }, 'referenceNumber'],
    ['poSearch over 64 characters', { oss: 'GetOrderStatusRequest', fields: { queryType: 'poSearch', referenceNumber: 'P'.repeat(65) } }, 'referenceNumber'],
    ['getIssue of an unknown issue', { oss: 'GetIssueRequest', fields: { issueId: 'ISS-NONE' } }, 'issueId'],
    ['getIssue over 64 characters', { oss: 'GetIssueRequest', fields: { issueId: 'I'.repeat(65) } }, 'issueId'],
    ['OSN 1 of an unknown purchase order', { osn: { queryType: '1', referenceNumber: 'PO-NONE' } }, 'referenceNumber'],
    ['OSN 2 of an unknown sales order', { osn: { queryType: '2', referenceNumber: 'SO-NONE' } }, 'referenceNumber'],
  ])('%s', async (_case, request, field) => {
    expect(await soapMessages(request)).toEqual([error(301, `${field} not found`)]);
  });

  it('asks no lookup for a reference longer than any stored one', async () => {
    await soapMessages({ oss: 'GetOrderStatusRequest', fields: { queryType: 'poSearch', referenceNumber: 'P'.repeat(65) } });
    expect(t.lookups.statusCalls).toEqual([]);
  });

  it('is not sent for an empty list answer: an empty response element', async () => {
    t.lookups.statuses = [];
    const res = await post(t.app, ORDER_STATUS_V2_URL, ossV2Request('GetOrderStatusRequest', { queryType: 'allOpen' }));
    expect(res.body).toContain('<GetOrderStatusResponse xmlns="http://www.promostandards.org/WSDL/OrderStatus/2.0.0/"></GetOrderStatusResponse>');
    expect(await validateSoapAnswer('oss-2.0.0', res.body)).toEqual([]);
  });

  it('JSON: 404', async () => {
    expect(await jsonAnswer('/api/partners/v2/orders/status?queryType=soSearch&referenceNumber=SO-NONE')).toMatchObject({ status: 404, body: { ServiceMessageArray: [error(301, 'referenceNumber not found')] } });
    expect(await jsonAnswer('/api/partners/v2/issues?issueId=ISS-NONE')).toMatchObject({ status: 404, body: { ServiceMessageArray: [error(301, 'issueId not found')] } });
  });
});

describe('200 Answer full (Warning), with the data', () => {
  const warning = { code: 200, description: 'Answer full: 5000 purchase orders; more may match', severity: 'Warning' };

  it('SOAP: the orders, then the warning', async () => {
    t.lookups.more = true;
    const res = await post(t.app, ORDER_STATUS_V2_URL, ossV2Request('GetOrderStatusRequest', { queryType: 'allOpen' }));
    expect(res.body).toContain('<purchaseOrderNumber>PO-FULL</purchaseOrderNumber>');
    expect(serviceMessagesOf(res.body)).toEqual([warning]);
    expect(await validateSoapAnswer('oss-2.0.0', res.body)).toEqual([]);
  });

  it('JSON: 200, the orders and the warning', async () => {
    t.lookups.more = true;
    const answer = await jsonAnswer('/api/partners/v2/orders/status?queryType=allOpen');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ OrderStatusArray: [{ purchaseOrderNumber: 'PO-FULL' }], ServiceMessageArray: [warning] });
  });

  it('is not sent when nothing more matched', async () => {
    expect(await soapMessages({ oss: 'GetOrderStatusRequest', fields: { queryType: 'allOpen' } })).toEqual([]);
    expect((await jsonAnswer('/api/partners/v2/orders/status?queryType=allOpen')).body.ServiceMessageArray).toBeUndefined();
  });
});

describe('999 General Error, in-band', () => {
  const general = error(999, 'General Error – Contact the System Service Provider');
  it.each<[string, Request]>([
    ['getOrderStatus', { oss: 'GetOrderStatusRequest', fields: { queryType: 'allOpen' } }],
    ['getIssue', { oss: 'GetIssueRequest', fields: { issueId: 'ISS-1' } }],
    ['OSN', { osn: { queryType: '1', referenceNumber: 'PO-FULL' } }],
  ])('%s: a store that fails', async (_case, request) => {
    t.lookups.failure = new Error('store down: mongodb://user:pw@host');
    const messages = await soapMessages(request);
    expect(messages).toEqual([general]);
  });

  it.each<[string, Request]>([
    ['getOrderStatus', { oss: 'GetOrderStatusRequest', fields: { queryType: 'allOpen' } }],
    ['OSN', { osn: { queryType: '1', referenceNumber: 'PO-FULL' } }],
  ])('%s: the password checks busy (at their bound): 999 saying busy, with Retry-After: 1', async (_case, request) => {
    t.authenticator.failure = new PasswordChecksBusyError();
    const [url, payload] = 'oss' in request ? [ORDER_STATUS_V2_URL, ossV2Request(request.oss, request.fields)] : [SHIPMENT_V2_URL, osnV2Request(request.osn)];
    const res = await post(t.app, url, payload);
    expect(res.statusCode).toBe(200);
    expect(res.headers['retry-after']).toBe('1');
    expect(serviceMessagesOf(res.body)).toEqual([busy]);
    expect(await soapMessages(request)).toEqual([busy]);
  });

  it('JSON: the password checks busy: 503 saying busy, with Retry-After: 1', async () => {
    t.authenticator.failure = new PasswordChecksBusyError();
    const res = await t.app.inject({ method: 'GET', url: '/api/partners/v2/orders/shipments?queryType=1&referenceNumber=PO-FULL', headers: asBoth });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json()).toEqual({ ServiceMessageArray: [busy] });
  });

  it('JSON: 500, nothing of the failure shown', async () => {
    t.lookups.failure = new Error('store down: secret detail');
    const res = await t.app.inject({ method: 'GET', url: '/api/partners/v2/orders/status?queryType=allOpen', headers: asBoth });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ ServiceMessageArray: [general] });
    expect(res.body).not.toContain('secret');
  });
});

describe('the rate limit: a 429 fault / 429 ServiceMessageArray, shared by every endpoint of a credential', () => {
  it('refuses the request over the limit, whichever 2.0.0 or 1.0.0 endpoint it goes to', async () => {
    const limits = createRequestLimits({ requestsPerMinute: 2 });
    const limited = await buildV2TestApp({ limits });
    try {
      expect((await post(limited.app, ORDER_STATUS_V2_URL, ossV2Request('GetServiceMethodsRequest'))).statusCode).toBe(200);
      expect((await limited.app.inject({ method: 'GET', url: '/api/partners/v1/orders/status?queryType=4', headers: asBoth })).statusCode).toBe(200);
      const soap = await post(limited.app, SHIPMENT_V2_URL, osnV2Request({ queryType: '1', referenceNumber: 'PO-FULL' }));
      expect(soap.statusCode).toBe(429);
      expect(Number(soap.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(faultOf(soap.body)).toEqual({ code: 'soap:Server', message: 'Rate limit exceeded — retry later' });
      expect(await validateSoapAnswer('osn-2.0.0', soap.body)).toEqual([]);
      const json = await limited.app.inject({ method: 'GET', url: '/api/partners/v2/issues?issueId=ISS-1', headers: asBoth });
      expect(json.statusCode).toBe(429);
      expect(Number(json.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // The JSON v2 twins' one error shape: a ServiceMessageArray, as every other refusal of theirs.
      expect(json.json()).toEqual({ ServiceMessageArray: [{ code: 999, description: 'Rate limit exceeded – retry after the seconds given in Retry-After', severity: 'Error' }] });
    } finally {
      await limited.app.close();
    }
  });
});

describe('the order of the checks (§10.1): the first failure answers', () => {
  const first = async (fields: Fields) => (await soapMessages({ oss: 'GetOrderStatusRequest', fields }))[0]?.code;

  it('120 before 115, 115 before 110, 110 before 300, 300 before 125, 125 before 302, 302 before 105', async () => {
    expect(await first({ wsVersion: '1.0.0', queryType: undefined })).toBe(120);
    expect(await first({ wsVersion: '1.0.0', password: undefined, queryType: 'nonsense' })).toBe(115);
    expect(await first({ password: undefined, queryType: 'nonsense' })).toBe(110);
    expect(await first({ queryType: 'nonsense', returnProductDetail: 'maybe' })).toBe(300);
    expect(await first({ queryType: 'lastUpdate', statusTimeStamp: 'never', returnProductDetail: 'maybe' })).toBe(125);
    expect(await first({ queryType: 'lastUpdate', statusTimeStamp: 'never', password: 'wrong' })).toBe(302);
    expect(t.authenticator.calls).toEqual([]);
  });

  it('105 before the rate limit, the rate limit before 104, 104 before 301', async () => {
    const limits = createRequestLimits({ requestsPerMinute: 1 });
    const limited = await buildV2TestApp({ limits });
    try {
      const ask = (fields: Fields) => post(limited.app, ORDER_STATUS_V2_URL, ossV2Request('GetOrderStatusRequest', { queryType: 'poSearch', referenceNumber: 'PO-NONE', ...fields }));
      // Wrong passwords are 105 however often (they use up no requests of the credential).
      for (let i = 0; i < 3; i++) expect(serviceMessagesOf((await ask({ id: 'osnOnly', password: 'wrong' })).body)[0]?.code).toBe(105);
      expect(serviceMessagesOf((await ask({ id: 'osnOnly' })).body)[0]?.code).toBe(104);
      expect((await ask({ id: 'osnOnly' })).statusCode).toBe(429);
      expect(serviceMessagesOf((await ask({})).body)[0]?.code).toBe(301);
    } finally {
      await limited.app.close();
    }
  });
});
