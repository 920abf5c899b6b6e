import { describe, expect, it } from 'vitest';
import type { RawAnswer, SendResult } from '../adapters/receiver/send-notification.js';
import { judgeDelivery, OSN_210_NAMESPACE } from './delivery-outcome.js';

const M = OSN_210_NAMESPACE;
const S = `${M}SharedObjects/`;
const receivedAt = new Date('2026-12-04T12:00:00Z');

const envelope = (inner: string, soap = 'http://schemas.xmlsoap.org/soap/envelope/') =>
  `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${soap}"><soap:Body>${inner}</soap:Body></soap:Envelope>`;
const message = (code: number, description: string, severity: string, p = 'shr:') =>
  `<${p}ServiceMessage><${p}code>${code}</${p}code><${p}description>${description}</${p}description><${p}severity>${severity}</${p}severity></${p}ServiceMessage>`;
const response = (inner: string) => envelope(`<ns:SendAdvanceShipmentNotificationResponse xmlns:ns="${M}" xmlns:shr="${S}">${inner}</ns:SendAdvanceShipmentNotificationResponse>`);
const fault = (code: string, text: string) => envelope(`<soap:Fault><faultcode>${code}</faultcode><faultstring>${text}</faultstring></soap:Fault>`);

const answer = (status: number, body = '', headers: Record<string, string> = {}): RawAnswer => ({ kind: 'answer', status, headers, body, receivedAt });

const cases: Array<[string, SendResult, Record<string, unknown>]> = [
  // Acknowledged
  ['200 with a transactionId', answer(200, response('<ns:transactionId>T-42</ns:transactionId>')), { kind: 'acknowledged', transactionId: 'T-42', messages: [] }],
  [
    '200 with a transactionId in SharedObjects, as §3 writes every element (children by local name)',
    answer(200, response(`<transactionId xmlns="${S}">T-43</transactionId>`)),
    { kind: 'acknowledged', transactionId: 'T-43' },
  ],
  [
    '200 with only an Information message',
    answer(200, response(`<shr:ServiceMessageArray>${message(100, 'Received', 'Information')}</shr:ServiceMessageArray>`)),
    { kind: 'acknowledged', transactionId: undefined, messages: [{ code: '100', description: 'Received', severity: 'Information' }] },
  ],
  [
    '200 with a Warning, children unprefixed in the default namespace and entities decoded',
    answer(200, response(`<ServiceMessageArray xmlns="${S}">${message(200, 'kept &amp; noted &#x2713;', 'Warning', '')}</ServiceMessageArray>`)),
    { kind: 'acknowledged', messages: [{ code: '200', description: 'kept & noted ✓', severity: 'Warning' }] },
  ],
  [
    'the response under another prefix, the envelope SOAP 1.2',
    answer(200, envelope(`<x:SendAdvanceShipmentNotificationResponse xmlns:x="${M}"><x:transactionId>9</x:transactionId></x:SendAdvanceShipmentNotificationResponse>`, 'http://www.w3.org/2003/05/soap-envelope')),
    { kind: 'acknowledged', transactionId: '9' },
  ],
  // Refused by the receiver's words
  [
    'a ServiceMessage Error',
    answer(200, response(`<shr:ServiceMessageArray>${message(100, 'Received', 'Information')}${message(105, 'Authentication Credentials failed', 'Error')}</shr:ServiceMessageArray>`)),
    { kind: 'refused', reason: 'service message Error 105: Authentication Credentials failed', status: 200 },
  ],
  [
    'an Error beside a transactionId',
    answer(200, response(`<ns:transactionId>T-1</ns:transactionId><shr:ServiceMessageArray>${message(999, 'bad', 'Error')}</shr:ServiceMessageArray>`)),
    { kind: 'refused', messages: [{ code: '999', description: 'bad', severity: 'Error' }] },
  ],
  ['a response holding nothing', answer(200, response('')), { kind: 'refused', reason: 'HTTP 200 with a SendAdvanceShipmentNotificationResponse holding neither a transactionId nor a service message' }],
  ['an empty transactionId and nothing else', answer(200, response('<ns:transactionId>  </ns:transactionId>')), { kind: 'refused', status: 200 }],
  // Refused: a 200 that is not the response
  ['a 200 with an empty body', answer(200, ''), { kind: 'refused', reason: 'HTTP 200 whose body is not a SOAP SendAdvanceShipmentNotificationResponse' }],
  ['a 200 with HTML', answer(200, '<html><body>OK</body>'), { kind: 'refused', status: 200 }],
  ['a 200 with plain text', answer(200, 'OK'), { kind: 'refused', status: 200 }],
  ['a 200 with another operation\'s response', answer(200, envelope(`<GetServiceMethodsResponse xmlns="${M}"/>`)), { kind: 'refused', status: 200 }],
  [
    'a 200 with the response in 2.0.0\'s namespace',
    answer(200, envelope(`<SendAdvanceShipmentNotificationResponse xmlns="http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.0.0/"><transactionId>1</transactionId></SendAdvanceShipmentNotificationResponse>`)),
    { kind: 'refused', reason: expect.stringContaining('in namespace http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.0.0/') },
  ],
  ['a 200 with a DTD (never expanded)', answer(200, response('<ns:transactionId>&a;</ns:transactionId>').replace('?><', '?><!DOCTYPE soap:Envelope [<!ENTITY a "b">]><')), { kind: 'refused', status: 200 }],
  ['a 200 with mismatched tags', answer(200, response('<ns:transactionId>1</ns:other>')), { kind: 'refused', status: 200 }],
  // SOAP faults
  ['a Client fault with HTTP 500', answer(500, fault('soap:Client', 'Invalid request')), { kind: 'refused', reason: 'SOAP fault soap:Client: Invalid request', status: 500 }],
  ['a dotted Client fault with HTTP 200', answer(200, fault('SOAP-ENV:Client.Authentication', 'no')), { kind: 'refused', status: 200 }],
  ['a Server fault with HTTP 500', answer(500, fault('soap:Server', 'database down')), { kind: 'transient', reason: 'SOAP fault soap:Server: database down', status: 500 }],
  [
    'a SOAP 1.2 Receiver fault',
    answer(500, envelope('<soap:Fault><soap:Code><soap:Value>soap:Receiver</soap:Value></soap:Code><soap:Reason><soap:Text>busy</soap:Text></soap:Reason></soap:Fault>')),
    { kind: 'transient', reason: 'SOAP fault soap:Receiver: busy' },
  ],
  ['a fault of a code we cannot place', answer(500, fault('x:Quota', 'over')), { kind: 'refused', status: 500 }],
  ['a 400 with a Server fault: judged by its status', answer(400, fault('soap:Server', 'x')), { kind: 'refused', reason: 'HTTP 400' }],
  // HTTP statuses
  ['500 without a fault', answer(500, 'Internal Server Error'), { kind: 'transient', reason: 'HTTP 500', notBefore: undefined }],
  ['502', answer(502), { kind: 'transient', status: 502 }],
  ['503 with Retry-After in seconds', answer(503, '', { 'retry-after': '120' }), { kind: 'transient', notBefore: new Date('2026-12-04T12:02:00Z') }],
  [
    '503 with Retry-After as an HTTP-date, read against the answer\'s Date (a receiver\'s clock 5 minutes ahead)',
    answer(503, '', { 'retry-after': 'Fri, 04 Dec 2026 12:10:00 GMT', date: 'Fri, 04 Dec 2026 12:05:00 GMT' }),
    { kind: 'transient', notBefore: new Date('2026-12-04T12:05:00Z') },
  ],
  ['503 with Retry-After as an HTTP-date and no Date', answer(503, '', { 'retry-after': 'Fri, 04 Dec 2026 13:00:00 GMT' }), { kind: 'transient', notBefore: new Date('2026-12-04T13:00:00Z') }],
  ['503 with a Retry-After that is neither form', answer(503, '', { 'retry-after': 'soon' }), { kind: 'transient', notBefore: undefined }],
  ['429 with Retry-After', answer(429, '', { 'retry-after': '7' }), { kind: 'transient', status: 429, notBefore: new Date('2026-12-04T12:00:07Z') }],
  ['302 (not followed)', answer(302, '', { location: 'https://elsewhere.example/asn' }), { kind: 'refused', reason: "HTTP 302, a redirect to https://elsewhere.example/asn: not followed (register the receiver's own URL)" }],
  ['307 without a Location', answer(307), { kind: 'refused', status: 307, reason: expect.stringContaining('not followed') }],
  ['400', answer(400, 'Bad Request'), { kind: 'refused', reason: 'HTTP 400', status: 400 }],
  ['401', answer(401), { kind: 'refused', status: 401 }],
  ['404', answer(404), { kind: 'refused', status: 404 }],
  ['408: another 4xx', answer(408), { kind: 'refused', status: 408 }],
  ['204: not 200', answer(204), { kind: 'refused', reason: 'HTTP 204', status: 204 }],
  // What the sender could not bring back
  ['a timeout', { kind: 'timeout', timeoutMs: 500, message: 'no whole answer within 500 ms' }, { kind: 'transient', reason: 'no whole answer within 500 ms', status: undefined }],
  ['a connection error', { kind: 'connection', message: 'the connection failed: ECONNREFUSED' }, { kind: 'transient', reason: 'the connection failed: ECONNREFUSED' }],
  ['an answer over the bound', { kind: 'oversized', status: 200, maxAnswerBytes: 1024, message: 'the answer is larger than 1024 bytes' }, { kind: 'refused', reason: 'HTTP 200: the answer is larger than 1024 bytes' }],
  ['a URL that cannot be sent to', { kind: 'unsendable', message: 'the receiver URL holds credentials' }, { kind: 'refused', status: undefined }],
];

describe('judgeDelivery', () => {
  it.each(cases)('%s', (_name, result, expected) => {
    expect(judgeDelivery(result)).toMatchObject(expected);
  });

  it('quotes at most 256 characters of a receiver\'s words', () => {
    const outcome = judgeDelivery(answer(500, fault('soap:Client', 'x'.repeat(10_000))));
    expect(outcome.kind === 'refused' && outcome.reason.length).toBeLessThan(300);
  });
});
