// The JSON error table of service.md, row by row, and the scope rules.
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../../rate-limit/rate-limited-error.js';
import { partnerJsonApi } from './plugin.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups } from '../../../../../test/support/fake-ports.js';
import { basic, get, SHIPMENTS_URL, STATUS_URL } from '../../../../../test/support/json-requests.js';
import { buildJsonTestApp, type TestApp } from '../../../../../test/support/test-apps.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildJsonTestApp();
});
afterAll(() => t.app.close());
beforeEach(() => {
  t.lookups.failure = undefined;
  t.lookups.statusCalls.length = 0;
  t.authenticator.calls.length = 0;
});

const STATUS = `${STATUS_URL}?queryType=4`;
const SHIPMENTS = `${SHIPMENTS_URL}?queryType=3&shipmentDateTimeStamp=2024-01-01T00:00:00Z`;

async function expectError(url: string, headers: Record<string, string>, status: number, error: string) {
  const res = await get(t.app, url, headers);
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.json()).toEqual({ error });
  return res;
}

describe('401 Missing credentials', () => {
  it.each([
    ['no Authorization header', {}],
    ['another scheme', { authorization: 'Bearer abc' }],
    ['Basic without a token', { authorization: 'Basic ' }],
  ])('for %s, with a Basic challenge', async (_case, headers) => {
    for (const url of [STATUS, SHIPMENTS]) {
      const res = await expectError(url, headers, 401, 'Missing credentials — use HTTP Basic auth (id:password)');
      expect(res.headers['www-authenticate']).toBe('Basic realm="ossn"');
    }
    expect(t.authenticator.calls).toEqual([]);
  });
});

describe('401 Invalid id or password', () => {
  it.each([
    ['a wrong password', basic('both', 'nope')],
    ['an unknown id', basic('ghost', 'secret')],
    ['an empty password', basic('both', '')],
    ['a token that is not base64', 'Basic !!!'],
    ['a token without a colon', `Basic ${Buffer.from('both').toString('base64')}`],
  ])('for %s, the same text either way', async (_case, authorization) => {
    const res = await expectError(STATUS, { authorization }, 401, 'Invalid id or password');
    expect(res.headers['www-authenticate']).toBe('Basic realm="ossn"');
    expect(t.lookups.statusCalls).toEqual([]);
  });

  it('reads the scheme in any case and a password containing colons', async () => {
    const auth = new FakeAuthenticator({ 'a:b': { password: 'x', credential: ACCOUNTS.both.credential }, c: { password: 'p:q:r', credential: ACCOUNTS.both.credential } });
    const app = Fastify({ logger: false });
    await app.register(partnerJsonApi, { lookups: new FakeLookups(), authenticator: auth });
    expect((await get(app, STATUS, { authorization: `bAsIc ${Buffer.from('c:p:q:r').toString('base64')}` })).statusCode).toBe(200);
    expect(auth.calls).toEqual([{ id: 'c', password: 'p:q:r' }]);
    await app.close();
  });
});

describe('403 Credential not permitted for scope', () => {
  it('order status needs order_status', async () => {
    await expectError(STATUS, { authorization: basic('osnOnly', 'secret') }, 403, 'Credential not permitted for scope: order_status');
    expect(t.lookups.statusCalls).toEqual([]);
  });

  it('shipments need osn, like the SOAP twin', async () => {
    await expectError(SHIPMENTS, { authorization: basic('statusOnly', 'secret') }, 403, 'Credential not permitted for scope: osn');
    expect(t.lookups.shipmentCalls).toEqual([]);
  });

  it('each credential reaches the lookup of its scope, with its own clients', async () => {
    expect((await get(t.app, STATUS, { authorization: basic('statusOnly', 'secret') })).statusCode).toBe(200);
    expect((await get(t.app, SHIPMENTS, { authorization: basic('osnOnly', 'secret') })).statusCode).toBe(200);
    expect(t.lookups.statusCalls.at(-1)?.clientIds).toEqual(['C1']);
    expect((await get(t.app, STATUS)).statusCode).toBe(200);
    expect(t.lookups.statusCalls.at(-1)?.clientIds).toEqual(['C1', 'C2']);
  });
});

describe('429 Rate limit exceeded', () => {
  it('answers at once with Retry-After in whole seconds, after authentication and before the scope check', async () => {
    const seen: string[] = [];
    const limited = await buildJsonTestApp(() => (credential) => {
      seen.push(credential.id);
      throw new RateLimitedError(12);
    });
    for (const [url, id] of [[STATUS, 'both'], [SHIPMENTS, 'statusOnly']] as const) {
      const res = await get(limited.app, url, { authorization: basic(id, 'secret') });
      expect(res.statusCode).toBe(429);
      expect(res.headers['retry-after']).toBe('12');
      expect(res.json()).toEqual({ error: 'Rate limit exceeded' });
    }
    expect((await get(limited.app, STATUS, { authorization: basic('both', 'nope') })).statusCode).toBe(401);
    expect(seen).toEqual(['both', 'statusOnly']);
    expect(limited.lookups.statusCalls).toEqual([]);
    await limited.app.close();
  });
});

describe('500 Internal error', () => {
  it('tells the client nothing more, and logs the details', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    const lookups = new FakeLookups();
    lookups.failure = new Error('connection to db-7.internal refused');
    const app = Fastify({ loggerInstance: pino(sink) as FastifyBaseLogger });
    await app.register(partnerJsonApi, { lookups, authenticator: new FakeAuthenticator(ACCOUNTS) });
    const res = await get(app, STATUS);
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'Internal error' });
    expect(res.body).not.toContain('db-7');
    expect(lines.join('')).toContain('connection to db-7.internal refused');
    await app.close();
  });

  it('also when an answer does not fit its schema', async () => {
    t.lookups.statuses = [{ purchaseOrderNumber: 'PO-1', details: [{ factoryOrderNumber: 'SO-1' }] } as never];
    const res = await get(t.app, STATUS);
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: 'Internal error' });
    t.lookups.statuses = [];
  });
});

it('answers unknown paths under the prefix with a JSON error body', async () => {
  const res = await get(t.app, '/api/partners/v1/orders/unknown');
  expect(res.statusCode).toBe(404);
  expect(res.json()).toEqual({ error: 'Not found' });
});
