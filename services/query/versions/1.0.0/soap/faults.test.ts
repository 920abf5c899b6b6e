// The fault table of service.md, row by row, and the argument faults of queries.md.
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { validateSoapAnswer } from '../../../../../test/xsd/validate.js';
import { RateLimitedError } from '../../../rate-limit/rate-limited-error.js';
import { labelsOf } from '../../../http/request-labels.js';
import { promoStandardsSoap } from './plugin.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups } from '../../../../../test/support/fake-ports.js';
import { BASE_URL, buildSoapTestApp, type TestApp } from '../../../../../test/support/test-apps.js';
import { envelope, faultOf, ORDER_STATUS_URL, post, SHIPMENT_URL, shipmentRequest, statusDetailsRequest, statusTypesRequest } from '../../../../../test/support/soap-requests.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildSoapTestApp();
});
afterAll(() => t.app.close());
beforeEach(() => {
  t.lookups.failure = undefined;
  t.authenticator.calls.length = 0;
});

async function expectFault(payload: string, code: string, message: string, url = ORDER_STATUS_URL, status = 500): Promise<void> {
  const res = await post(t.app, url, payload);
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toBe('text/xml; charset=utf-8');
  expect(faultOf(res.body)).toEqual({ code, message });
}

it('faults are valid SOAP 1.1 envelopes', async () => {
  const limited = await buildSoapTestApp(() => () => {
    throw new RateLimitedError(1);
  });
  try {
    for (const res of [
      await post(t.app, ORDER_STATUS_URL, 'junk'),
      await post(t.app, SHIPMENT_URL, shipmentRequest({ id: 'statusOnly' })),
      await post(limited.app, ORDER_STATUS_URL, statusTypesRequest()),
    ]) {
      expect(faultOf(res.body)).toBeDefined();
      expect(await validateSoapAnswer('oss', res.body)).toEqual([]);
    }
  } finally {
    await limited.app.close();
  }
});

describe('Malformed SOAP request', () => {
  it.each([
    ['no XML at all', 'hello'],
    ['an empty body', ''],
    ['JSON', '{"queryType":1}'],
    ['XML that is no envelope', '<GetOrderStatusTypesRequest/>'],
    ['an envelope without Body', '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header/></s:Envelope>'],
    ['a Body without an operation', envelope('')],
    ['a Body with text only', envelope('text')],
    ['two root elements', `${statusTypesRequest()}<x/>`],
  ])('for %s', async (_case, payload) => {
    await expectFault(payload, 'soap:Client', 'Malformed SOAP request');
  });
});

describe('Invalid id or password', () => {
  it.each([
    ['a wrong password', { password: 'nope' }],
    ['an unknown id', { id: 'ghost' }],
    ['no password', { password: undefined }],
    ['an empty id', { id: '' }],
    ['no id', { id: undefined }],
  ])('for %s', async (_case, fields) => {
    await expectFault(statusDetailsRequest(fields), 'soap:Client', 'Invalid id or password');
    await expectFault(statusTypesRequest(fields), 'soap:Client', 'Invalid id or password');
    await expectFault(shipmentRequest(fields), 'soap:Client', 'Invalid id or password', SHIPMENT_URL);
  });

  it('asks the authenticator with an empty password when none is sent', async () => {
    await post(t.app, ORDER_STATUS_URL, statusDetailsRequest({ password: undefined }));
    expect(t.authenticator.calls).toEqual([{ id: 'both', password: '' }]);
  });
});

describe('Credential not permitted for scope', () => {
  it('order_status for the order status operations', async () => {
    await expectFault(statusDetailsRequest({ id: 'osnOnly' }), 'soap:Client', 'Credential not permitted for scope: order_status');
    await expectFault(statusTypesRequest({ id: 'osnOnly' }), 'soap:Client', 'Credential not permitted for scope: order_status');
  });

  it('osn for shipment notification', async () => {
    await expectFault(shipmentRequest({ id: 'statusOnly' }), 'soap:Client', 'Credential not permitted for scope: osn', SHIPMENT_URL);
  });
});

describe('Unsupported operation', () => {
  it('names the element an endpoint does not serve', async () => {
    await expectFault(shipmentRequest(), 'soap:Client', 'Unsupported operation: GetOrderShipmentNotificationRequest');
    await expectFault(statusTypesRequest(), 'soap:Client', 'Unsupported operation: GetOrderStatusTypesRequest', SHIPMENT_URL);
    await expectFault(envelope('<x:getCompanyData xmlns:x="urn:x"><x:id>1</x:id></x:getCompanyData>'), 'soap:Client', 'Unsupported operation: getCompanyData');
  });
});

describe('Rate limit exceeded', () => {
  it('is a soap:Server fault with HTTP 429 and Retry-After in whole seconds', async () => {
    // The operation each count was for, as the request names it (its metrics label).
    const seen: Array<[string, string | undefined]> = [];
    const limited = await buildSoapTestApp((request) => (credential) => {
      seen.push([credential.id, labelsOf(request).operation]);
      throw new RateLimitedError(12.2);
    });
    try {
      for (const [url, payload] of [
        [ORDER_STATUS_URL, statusDetailsRequest()],
        [ORDER_STATUS_URL, statusTypesRequest()],
        [SHIPMENT_URL, shipmentRequest()],
      ] as const) {
        const res = await post(limited.app, url, payload);
        expect(res.statusCode).toBe(429);
        expect(res.headers['retry-after']).toBe('13');
        expect(faultOf(res.body)).toEqual({ code: 'soap:Server', message: 'Rate limit exceeded — retry later' });
      }
      expect(seen).toEqual([
        ['both', 'getOrderStatusDetails'],
        ['both', 'getOrderStatusTypes'],
        ['both', 'getOrderShipmentNotification'],
      ]);
      expect(limited.lookups.statusCalls).toEqual([]);
      // No credential, no hook: a wrong password is still "Invalid id or password".
      const res = await post(limited.app, ORDER_STATUS_URL, statusDetailsRequest({ password: 'x' }));
      expect(faultOf(res.body)?.message).toBe('Invalid id or password');
    } finally {
      await limited.app.close();
    }
  });
});

describe('Internal error', () => {
  it('hides the cause from the client and logs it', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const lookups = new FakeLookups();
    lookups.failure = new Error('mongo exploded at 10.0.0.7');
    const app: FastifyInstance = Fastify({ logger: { level: 'info', stream } });
    await app.register(promoStandardsSoap, { publicBaseUrl: BASE_URL, lookups, authenticator: new FakeAuthenticator(ACCOUNTS) });
    try {
      for (const [url, payload] of [
        [ORDER_STATUS_URL, statusDetailsRequest()],
        [SHIPMENT_URL, shipmentRequest()],
      ] as const) {
        const res = await post(app, url, payload);
        expect(res.statusCode).toBe(500);
        expect(faultOf(res.body)).toEqual({ code: 'soap:Server', message: 'Internal error' });
        expect(res.body).not.toContain('mongo');
      }
      expect(lines.join('')).toContain('mongo exploded at 10.0.0.7');
    } finally {
      await app.close();
    }
  });

  it('also when the authenticator fails', async () => {
    const app = Fastify({ logger: false });
    const authenticator = { verify: () => Promise.reject(new Error('credential store down')) };
    await app.register(promoStandardsSoap, { publicBaseUrl: BASE_URL, lookups: new FakeLookups(), authenticator });
    try {
      const res = await post(app, ORDER_STATUS_URL, statusTypesRequest());
      expect(faultOf(res.body)).toEqual({ code: 'soap:Server', message: 'Internal error' });
    } finally {
      await app.close();
    }
  });
});

describe('argument faults name the field', () => {
  const long = 'x'.repeat(65);

  it.each(['wsVersion', 'id', 'password', 'referenceNumber'])('%s over 64 characters', async (field) => {
    const message = `Field too long: ${field} (at most 64 characters)`;
    await expectFault(statusDetailsRequest({ queryType: '1', referenceNumber: 'PO', [field]: long }), 'soap:Client', message);
    await expectFault(shipmentRequest({ queryType: '1', referenceNumber: 'PO', [field]: long }), 'soap:Client', message, SHIPMENT_URL);
  });

  it('counts characters, not bytes or UTF-16 units', async () => {
    t.lookups.statusCalls.length = 0;
    const res = await post(t.app, ORDER_STATUS_URL, statusDetailsRequest({ queryType: '1', referenceNumber: '😀'.repeat(64) }));
    expect(res.statusCode).toBe(200);
    expect(t.lookups.statusCalls.at(-1)?.query.referenceNumber).toBe('😀'.repeat(64));
  });

  it.each([
    ['1', undefined],
    ['2', undefined],
    ['1', ''],
    ['2', '   '],
  ])('referenceNumber missing or empty for queryType %s', async (queryType, referenceNumber) => {
    const message = 'Missing field: referenceNumber (required for queryType 1 and 2)';
    await expectFault(statusDetailsRequest({ queryType, referenceNumber }), 'soap:Client', message);
    await expectFault(shipmentRequest({ queryType, referenceNumber }), 'soap:Client', message, SHIPMENT_URL);
  });

  it('statusTimeStamp missing, nil or not an xsd:dateTime for queryType 3', async () => {
    await expectFault(statusDetailsRequest({ queryType: '3', statusTimeStamp: undefined }), 'soap:Client', 'Missing field: statusTimeStamp (required for queryType 3)');
    const nil = statusDetailsRequest({ queryType: '3', statusTimeStamp: undefined }).replace(
      '</ns:queryType>',
      '</ns:queryType><ns:statusTimeStamp xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/>',
    );
    await expectFault(nil, 'soap:Client', 'Missing field: statusTimeStamp (required for queryType 3)');
    for (const bad of ['yesterday', '2025-02-30T00:00:00Z', '2025-01-01', '2025-01-01 10:00:00', '2025-01-01T25:00:00Z']) {
      await expectFault(statusDetailsRequest({ queryType: '3', statusTimeStamp: bad }), 'soap:Client', 'Invalid field: statusTimeStamp (not an xsd:dateTime)');
    }
  });

  it('shipmentDateTimeStamp missing or not an xsd:dateTime for queryType 3', async () => {
    await expectFault(
      shipmentRequest({ queryType: '3', shipmentDateTimeStamp: undefined }),
      'soap:Client',
      'Missing field: shipmentDateTimeStamp (required for queryType 3)',
      SHIPMENT_URL,
    );
    await expectFault(
      shipmentRequest({ queryType: '3', shipmentDateTimeStamp: '1700000000' }),
      'soap:Client',
      'Invalid field: shipmentDateTimeStamp (not an xsd:dateTime)',
      SHIPMENT_URL,
    );
  });

  it.each(['one', '1.0', '1e0', '0x1', ''])('queryType %j is not an integer', async (queryType) => {
    const message = queryType === '' ? 'Missing field: queryType' : 'Invalid field: queryType (not an integer)';
    await expectFault(statusDetailsRequest({ queryType }), 'soap:Client', message);
    await expectFault(shipmentRequest({ queryType }), 'soap:Client', message, SHIPMENT_URL);
  });

  it('are checked before the credential', async () => {
    await expectFault(statusDetailsRequest({ password: 'wrong', queryType: '1', referenceNumber: undefined }), 'soap:Client', 'Missing field: referenceNumber (required for queryType 1 and 2)');
    expect(t.authenticator.calls).toEqual([]);
  });
});
