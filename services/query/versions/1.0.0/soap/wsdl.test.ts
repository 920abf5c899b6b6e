// The served WSDLs: derived from the official files, pointing at this deployment, with schemas
// that resolve beside them and compile as one schema block.
import { readFile } from 'node:fs/promises';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateWith, type SchemaSet } from '../../../../../test/xsd/validate.js';
import { promoStandardsSoap } from './plugin.js';
import { BASE_URL, buildSoapTestApp } from '../../../../../test/support/test-apps.js';
import { FakeAuthenticator, FakeLookups, ACCOUNTS } from '../../../../../test/support/fake-ports.js';
import { MINIMAL_STATUS, SHIPMENT } from '../../../../../test/fixtures/views.js';
import { ORDER_STATUS_URL, post, SHIPMENT_URL, shipmentRequest, statusDetailsRequest } from '../../../../../test/support/soap-requests.js';
import { deriveWsdl } from '../../../protocol/soap/wsdl.js';

let app: FastifyInstance;

beforeAll(async () => {
  const t = await buildSoapTestApp();
  app = t.app;
  t.lookups.statuses = [MINIMAL_STATUS];
  t.lookups.notifications = [SHIPMENT];
});
afterAll(() => app.close());

const SERVICES = [
  { path: ORDER_STATUS_URL, folder: 'oss-1.0.0', wsdlFile: 'OrderStatusService.wsdl', namespace: 'http://www.promostandards.org/WSDL/OrderStatusService/1.0.0/' },
  {
    path: SHIPMENT_URL,
    folder: 'osn-1.0.0',
    wsdlFile: 'OrderShipmentNotificationService.wsdl',
    namespace: 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/1.0.0/',
  },
];

const official = (folder: string, file: string) => readFile(new URL(`../../../../../wsdl/${folder}/${file}`, import.meta.url), 'utf8');
const locations = (xml: string) => [...xml.matchAll(/schemaLocation="([^"]+)"/g)].map((m) => m[1] ?? '');

describe.each(SERVICES)('$path?wsdl', ({ path, folder, wsdlFile, namespace }) => {
  it('is served with soap:address at the configured base URL and one schema block', async () => {
    for (const query of ['?wsdl', '?WSDL', '?wsdl=']) {
      const res = await app.inject({ method: 'GET', url: path + query });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/xml; charset=utf-8');
      expect([...res.body.matchAll(/<soap:address location="([^"]+)"/g)].map((m) => m[1])).toEqual([BASE_URL + path]);
      expect(res.body.match(/<xsd:schema\b/g)).toHaveLength(1);
      expect(res.body).toContain(`targetNamespace="${namespace}" elementFormDefault="qualified">`);
    }
  });

  it('keeps everything but types and address as in the official WSDL', async () => {
    const served = (await app.inject({ method: 'GET', url: `${path}?wsdl` })).body;
    const strip = (xml: string) => xml.replace(/<wsdl:types>[\s\S]*<\/wsdl:types>/, '').replace(/<soap:address location="[^"]*"/, '');
    expect(strip(served)).toBe(strip(await official(folder, wsdlFile)));
  });

  it('imports schemas whose URLs, and those inside them, resolve to the official XSD files', async () => {
    const wsdlUrl = new URL(`${BASE_URL}${path}?wsdl`);
    const pending = locations((await app.inject({ method: 'GET', url: wsdlUrl.pathname + wsdlUrl.search })).body).map((l) => new URL(l, wsdlUrl));
    expect(pending.length).toBeGreaterThan(0);
    const seen = new Set<string>();
    while (pending.length > 0) {
      const url = pending.shift() as URL;
      if (seen.has(url.href)) continue;
      seen.add(url.href);
      expect(url.origin).toBe(new URL(BASE_URL).origin);
      const res = await app.inject({ method: 'GET', url: url.pathname + url.search });
      expect(res.statusCode, url.href).toBe(200);
      expect(res.headers['content-type']).toBe('text/xml; charset=utf-8');
      const fileName = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
      expect(res.body).toBe(await official(folder, fileName));
      pending.push(...locations(res.body).map((l) => new URL(l, url)));
    }
    expect(seen.size).toBe(folder === 'oss-1.0.0' ? 4 : 3);
  });

  it('has a schema block that libxml2 compiles and that validates the answers', async () => {
    const served = (await app.inject({ method: 'GET', url: `${path}?wsdl` })).body;
    const block = /<xsd:schema[\s\S]*<\/xsd:schema>/.exec(served)?.[0] ?? '';
    const base = path.slice(path.lastIndexOf('/') + 1);
    const files = await Promise.all(
      [...new Set(locations(served))].concat(folder === 'osn-1.0.0' ? [`${base}/SharedOSNObjects.xsd`] : []).map(async (location) => ({
        fileName: location.slice(base.length + 1),
        contents: (await app.inject({ method: 'GET', url: `${path.slice(0, path.lastIndexOf('/') + 1)}${location}` })).body,
      })),
    );
    const set: SchemaSet = { namespace, service: { fileName: 'served.xsd', contents: block.replaceAll(`"${base}/`, '"') }, files };
    const answer = (await post(app, path, path === SHIPMENT_URL ? shipmentRequest() : statusDetailsRequest())).body;
    expect(await validateWith(answer, set)).toEqual([]);
  });
});

describe('other GETs', () => {
  it('the endpoint path without ?wsdl answers a short page that names the service and links its WSDL', async () => {
    for (const [url, title] of [
      [ORDER_STATUS_URL, 'PromoStandards Order Status 1.0.0'],
      [SHIPMENT_URL, 'PromoStandards Order Shipment Notification 1.0.0'],
    ] as const) {
      const res = await app.inject({ method: 'GET', url: `${url}?anything=<b>` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain(`<h1>${title}</h1>`);
      expect(res.body).toContain(`<a href="${url}?wsdl">`);
      expect(res.body).toContain('HTTP POST of a SOAP envelope');
      expect(res.body).not.toContain('<b>');
      // The link it gives answers the WSDL.
      expect((await app.inject({ method: 'GET', url: /href="([^"]+)"/.exec(res.body)![1]! })).body).toContain('<wsdl:definitions');
    }
  });

  it('unknown files are not found', async () => {
    expect((await app.inject({ method: 'GET', url: `${ORDER_STATUS_URL}/nope.xsd` })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `${ORDER_STATUS_URL}/SharedOSNObjects.xsd` })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `${SHIPMENT_URL}/..%2Fpackage.json` })).statusCode).toBe(404);
  });

  it('a base URL with a trailing slash or a path prefix gives a clean address', async () => {
    for (const [base, expected] of [
      ['http://h.example:8080/', 'http://h.example:8080'],
      ['https://h.example/ossn', 'https://h.example/ossn'],
    ]) {
      const other = Fastify({ logger: false });
      await other.register(promoStandardsSoap, { publicBaseUrl: base as string, lookups: new FakeLookups(), authenticator: new FakeAuthenticator(ACCOUNTS) });
      const res = await other.inject({ method: 'GET', url: `${SHIPMENT_URL}?wsdl` });
      expect(res.body).toContain(`<soap:address location="${expected}${SHIPMENT_URL}"/>`);
      await other.close();
    }
  });
});

describe('deriveWsdl', () => {
  it('refuses a WSDL not shaped like the official ones', () => {
    expect(() => deriveWsdl('<wsdl:definitions/>', 'http://x', '/p')).toThrow();
    const foreign = '<wsdl:definitions targetNamespace="urn:a"><wsdl:types><xsd:schema><xsd:import namespace="urn:b" schemaLocation="b.xsd"/></xsd:schema></wsdl:types><soap:address location="x"/></wsdl:definitions>';
    expect(() => deriveWsdl(foreign, 'http://x', '/p')).toThrow(/own namespace/);
  });

  it('escapes the address', () => {
    const wsdl = '<wsdl:definitions targetNamespace="urn:a"><wsdl:types><xsd:schema><xsd:import namespace="urn:a" schemaLocation="a.xsd"/></xsd:schema></wsdl:types><soap:address location="x"/></wsdl:definitions>';
    expect(deriveWsdl(wsdl, 'http://x/$1?a=1&b="2"', '/p/svc')).toContain('<soap:address location="http://x/$1?a=1&amp;b=&quot;2&quot;"/>');
  });
});
