// Lenient reading: prefixes, namespaces, nil, SOAPAction and content types as real clients send them.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OSN_NS, OSN_SHARED_NS, OSS_NS } from '../namespaces.js';
import { promoStandardsSoap } from './plugin.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups } from '../../../../../test/support/fake-ports.js';
import { BASE_URL, buildSoapTestApp } from '../../../../../test/support/test-apps.js';
import { faultOf, ORDER_STATUS_URL, post, SHIPMENT_URL, statusDetailsRequest } from '../../../../../test/support/soap-requests.js';
import { MINIMAL_STATUS } from '../../../../../test/fixtures/views.js';

let app: FastifyInstance;
let lookups: FakeLookups;
let authenticator: FakeAuthenticator;

beforeAll(async () => {
  ({ app, lookups, authenticator } = await buildSoapTestApp());
});
afterAll(() => app.close());
beforeEach(() => {
  lookups.statuses = [MINIMAL_STATUS];
  lookups.statusCalls.length = 0;
  lookups.shipmentCalls.length = 0;
  authenticator.calls.length = 0;
});

const OK = '<purchaseOrderNumber>PO-2</purchaseOrderNumber>';

describe('names are read by local name', () => {
  it('with a default namespace and no prefixes', async () => {
    const xml = `<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/"><Body><GetOrderStatusDetailsRequest xmlns="${OSS_NS}"><wsVersion>1.0.0</wsVersion><id>both</id><password>secret</password><queryType>4</queryType></GetOrderStatusDetailsRequest></Body></Envelope>`;
    expect((await post(app, ORDER_STATUS_URL, xml)).body).toContain(OK);
  });

  it('with OSS login fields in a SharedObjects namespace (as some clients send them)', async () => {
    const xml = `<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns1="${OSS_NS}" xmlns:ns2="${OSS_NS}SharedObjects/"><SOAP-ENV:Body><ns1:GetOrderStatusDetailsRequest><ns2:wsVersion>1.0.0</ns2:wsVersion><ns2:id>both</ns2:id><ns2:password>secret</ns2:password><ns1:queryType>1</ns1:queryType><ns1:referenceNumber>PO-2</ns1:referenceNumber></ns1:GetOrderStatusDetailsRequest></SOAP-ENV:Body></SOAP-ENV:Envelope>`;
    expect((await post(app, ORDER_STATUS_URL, xml)).body).toContain(OK);
    expect(lookups.statusCalls[0]?.query).toEqual({ queryType: 1, referenceNumber: 'PO-2' });
  });

  it('with OSN login fields in the main namespace instead of SharedObjects', async () => {
    const xml = `<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><o:GetOrderShipmentNotificationRequest xmlns:o="${OSN_NS}"><o:wsVersion>1.0.0</o:wsVersion><o:id>both</o:id><o:password>secret</o:password><o:queryType>2</o:queryType><o:referenceNumber>SO-1</o:referenceNumber></o:GetOrderShipmentNotificationRequest></S:Body></S:Envelope>`;
    expect((await post(app, SHIPMENT_URL, xml)).statusCode).toBe(200);
    expect(lookups.shipmentCalls[0]?.query).toEqual({ queryType: 2, referenceNumber: 'SO-1' });
  });

  it('with the schema namespaces for OSN (login in SharedObjects) and any prefixes', async () => {
    const xml = `<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body><GetOrderShipmentNotificationRequest xmlns="${OSN_NS}" xmlns:q="${OSN_SHARED_NS}"><q:wsVersion>1.0.0</q:wsVersion><q:id>both</q:id><q:password>secret</q:password><queryType>3</queryType><shipmentDateTimeStamp>2025-01-01T00:00:00Z</shipmentDateTimeStamp></GetOrderShipmentNotificationRequest></e:Body></e:Envelope>`;
    expect((await post(app, SHIPMENT_URL, xml)).statusCode).toBe(200);
    expect(lookups.shipmentCalls[0]?.query.shipmentDateTimeStamp).toEqual(new Date('2025-01-01T00:00:00Z'));
  });

  it('with a SOAP header, comments, whitespace, CDATA and character references', async () => {
    const xml = `<?xml version="1.0"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns="${OSS_NS}">
  <soapenv:Header><ns:trace>abc</ns:trace></soapenv:Header>
  <soapenv:Body>
    <!-- a comment -->
    <ns:GetOrderStatusDetailsRequest>
      <ns:wsVersion> 1.0.0 </ns:wsVersion>
      <ns:id>
        both
      </ns:id>
      <ns:password><![CDATA[secret]]></ns:password>
      <ns:queryType>+1</ns:queryType>
      <ns:referenceNumber>&#80;O&amp;&#x31;&lt;&gt;&quot;&apos;</ns:referenceNumber>
      <ns:statusTimeStamp>2025-01-01T00:00:00Z</ns:statusTimeStamp>
    </ns:GetOrderStatusDetailsRequest>
  </soapenv:Body>
</soapenv:Envelope>`;
    expect((await post(app, ORDER_STATUS_URL, xml)).body).toContain(OK);
    expect(authenticator.calls).toEqual([{ id: 'both', password: 'secret' }]);
    expect(lookups.statusCalls[0]?.query).toEqual({ queryType: 1, referenceNumber: 'PO&1<>"\'' });
  });

  it('takes the first element of the Body as the operation', async () => {
    const xml = statusDetailsRequest().replace('</ns:GetOrderStatusDetailsRequest>', '</ns:GetOrderStatusDetailsRequest><ns:Other/>');
    expect((await post(app, ORDER_STATUS_URL, xml)).body).toContain(OK);
  });
});

describe('empty and nil elements count as absent', () => {
  const XSI = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';

  it('an empty or nil password is sent to the authenticator as empty', async () => {
    await post(app, ORDER_STATUS_URL, statusDetailsRequest({ password: '' }));
    await post(app, ORDER_STATUS_URL, statusDetailsRequest().replace('<ns:password>secret</ns:password>', `<ns:password xsi:nil="true" ${XSI}/>`));
    expect(authenticator.calls).toEqual([
      { id: 'both', password: '' },
      { id: 'both', password: '' },
    ]);
  });

  it('a nil referenceNumber or statusTimeStamp is fine for queryType 4', async () => {
    const xml = statusDetailsRequest({ statusTimeStamp: undefined }).replace(
      '</ns:queryType>',
      `</ns:queryType><ns:referenceNumber xsi:nil="1" ${XSI}/><ns:statusTimeStamp xsi:nil="true" ${XSI}></ns:statusTimeStamp>`,
    );
    expect((await post(app, ORDER_STATUS_URL, xml)).body).toContain(OK);
    expect(lookups.statusCalls[0]?.query).toEqual({ queryType: 4 });
  });

  it('a nil referenceNumber for queryType 1 is a missing one', async () => {
    const xml = statusDetailsRequest({ queryType: '1' }).replace('</ns:queryType>', `</ns:queryType><ns:referenceNumber xsi:nil="true" ${XSI}>PO-2</ns:referenceNumber>`);
    expect(faultOf((await post(app, ORDER_STATUS_URL, xml)).body)?.message).toBe('Missing field: referenceNumber (required for queryType 1 and 2)');
  });
});

describe('SOAPAction is accepted but not needed', () => {
  it.each([
    ['quoted', { soapaction: '"getOrderStatusDetails"' }],
    ['unquoted', { soapaction: 'getOrderStatusDetails' }],
    ['empty', { soapaction: '""' }],
    ['naming another operation (the body decides)', { soapaction: '"getOrderStatusTypes"' }],
    ['missing', {}],
  ])('%s', async (_case, headers: Record<string, string>) => {
    const res = await post(app, ORDER_STATUS_URL, statusDetailsRequest(), headers);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(OK);
  });
});

describe('content types and charsets', () => {
  it.each([
    'text/xml',
    'text/xml; charset=utf-8',
    'text/xml;charset=UTF-8',
    'text/xml; charset="utf-8"',
    'TEXT/XML; Charset=Utf-8',
    'application/soap+xml; charset=utf-8; action="getOrderStatusDetails"',
    'application/xml',
    'text/plain',
  ])('%s', async (contentType) => {
    const res = await post(app, ORDER_STATUS_URL, statusDetailsRequest(), { 'content-type': contentType });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(OK);
  });

  it('no content type at all', async () => {
    const res = await app.inject({ method: 'POST', url: ORDER_STATUS_URL, payload: Buffer.from(statusDetailsRequest()) });
    expect(res.body).toContain(OK);
  });

  it('a UTF-8 byte order mark', async () => {
    const res = await post(app, ORDER_STATUS_URL, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(statusDetailsRequest())]));
    expect(res.body).toContain(OK);
  });

  it('ISO-8859-1 when the charset says so', async () => {
    const xml = statusDetailsRequest({ queryType: '1', referenceNumber: 'MÜLLER-1' });
    const res = await post(app, ORDER_STATUS_URL, Buffer.from(xml, 'latin1'), { 'content-type': 'text/xml; charset=ISO-8859-1' });
    expect(res.statusCode).toBe(200);
    expect(lookups.statusCalls[0]?.query.referenceNumber).toBe('MÜLLER-1');
  });

  it('an unknown charset is a malformed request', async () => {
    const res = await post(app, ORDER_STATUS_URL, statusDetailsRequest(), { 'content-type': 'text/xml; charset=klingon' });
    expect(faultOf(res.body)).toEqual({ code: 'soap:Client', message: 'Malformed SOAP request' });
  });
});

describe('encapsulation', () => {
  it('leaves the parent app its own parsers and error handling', async () => {
    const parent = Fastify({ logger: false });
    parent.post('/json', async (request) => ({ echo: request.body }));
    parent.get('/boom', async () => {
      throw new Error('boom');
    });
    await parent.register(promoStandardsSoap, { publicBaseUrl: BASE_URL, lookups: new FakeLookups(), authenticator: new FakeAuthenticator(ACCOUNTS) });
    try {
      const json = await parent.inject({ method: 'POST', url: '/json', payload: { a: 1 } });
      expect(json.json()).toEqual({ echo: { a: 1 } });
      const boom = await parent.inject({ method: 'GET', url: '/boom' });
      expect(boom.statusCode).toBe(500);
      expect(boom.headers['content-type']).toMatch(/^application\/json/);
    } finally {
      await parent.close();
    }
  });
});
