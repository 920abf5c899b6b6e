// A password put in a URL is refused, and no log line of the app shows it: Fastify logs the URL
// before any hook runs, so this goes through the whole app with its real request logging.
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../app.js';
import { statusDetailsRequest } from '../../../../../test/support/soap-requests.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups } from '../../../../../test/support/fake-ports.js';
import { basic } from '../../../../../test/support/json-requests.js';

const SECRET = 'hunter2-Secret';
const lines: string[] = [];
let app: FastifyInstance;
let lookups: FakeLookups;

beforeAll(async () => {
  lookups = new FakeLookups();
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
  app = await buildApp({ logger: pino({ level: 'trace' }, sink), publicBaseUrl: 'http://x', lookups, authenticator: new FakeAuthenticator(ACCOUNTS) });
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

it('an unknown path elsewhere: its log lines are redacted too, and the 404 body does not repeat the URL', async () => {
  const res = await app.inject({ url: `/elsewhere?password=${SECRET}` });
  expect(res.statusCode).toBe(404);
  expect(res.json()).toEqual({ error: 'Not found' });
  expect(lines.join('')).toContain('?[query redacted: password]');
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

it('a malformed HTTP request at trace level: its raw bytes (Authorization and SOAP password) are not logged', async () => {
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = new URL(base);
  const body = statusDetailsRequest({ password: SECRET });
  // A header line with a character HTTP forbids makes Node's parser refuse the request.
  const raw = `POST /api/promostandards/order-status HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic('both', SECRET)}\r\nBad\u0001Header: y\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const answer = await new Promise<string>((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(raw));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', () => resolve(received));
  });
  expect(answer).toMatch(/^HTTP\/1.1 400/);
  const logged = lines.join('');
  expect(logged).toContain('client error');
  expect(logged).not.toContain(SECRET);
  expect(logged).not.toContain(Buffer.from(`both:${SECRET}`).toString('base64'));
});
