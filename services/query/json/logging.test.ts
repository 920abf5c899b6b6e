// A password put in a URL is refused, and no log line of the app shows it: Fastify logs the URL
// before any hook runs, so this goes through the whole app with its real request logging.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { statusDetailsRequest } from '../soap/testing.js';
import { ACCOUNTS, basic, FakeAuthenticator, FakeLookups } from './testing.js';

const SECRET = 'hunter2-Secret';
const lines: string[] = [];
let app: FastifyInstance;
let lookups: FakeLookups;

beforeAll(async () => {
  lookups = new FakeLookups();
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
  app = await buildApp({ logger: pino({ level: 'trace' }, sink), publicBaseUrl: 'http://x', lookups, authenticator: new FakeAuthenticator(ACCOUNTS), healthCheck: async () => {} });
});
afterAll(() => app.close());
beforeEach(() => {
  lines.length = 0;
});

it.each([
  ['a JSON route', `/api/partners/v1/orders/status?queryType=4&password=${SECRET}`],
  ['a JSON route, encoded name', `/api/partners/v1/orders/shipments?Pass%77ord=${SECRET}&queryType=1`],
  ['an unknown JSON path', `/api/partners/v1/nothing?password=${SECRET}`],
])('%s: 400, not served, and the query is not logged', async (_case, url) => {
  const res = await app.inject({ url, headers: { authorization: basic('both', 'secret') } });
  expect(res.statusCode).toBe(400);
  expect(res.json().error).toContain('password');
  expect(lookups.statusCalls).toEqual([]);
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.join('')).not.toContain(SECRET);
  expect(lines.join('')).toContain('?[query redacted: password]');
});

it('an unknown path elsewhere: the "route not found" line is redacted too', async () => {
  expect((await app.inject({ url: `/elsewhere?password=${SECRET}` })).statusCode).toBe(404);
  expect(lines.join('')).toContain('not found');
  expect(lines.join('')).not.toContain(SECRET);
});

it('a SOAP endpoint with a password in its URL: served as before, nothing of it logged', async () => {
  const res = await app.inject({ method: 'POST', url: `/api/promostandards/order-status?password=${SECRET}`, payload: statusDetailsRequest(), headers: { 'content-type': 'text/xml' } });
  expect(res.statusCode).toBe(200);
  expect(lines.join('')).not.toContain(SECRET);
});

it('other URLs are logged whole, and no Authorization header is', async () => {
  await app.inject({ url: '/api/partners/v1/orders/status?queryType=4', headers: { authorization: basic('both', SECRET) } });
  expect(lines.join('')).toContain('/api/partners/v1/orders/status?queryType=4');
  expect(lines.join('')).not.toContain(Buffer.from(`both:${SECRET}`).toString('base64'));
});
