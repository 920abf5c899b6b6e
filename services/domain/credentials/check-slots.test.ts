// The process-wide bound on password checks: a flood of guesses from many addresses neither queues
// without limit nor keeps a partner's first login waiting behind it. The real scrypt runs, counted
// and held (test/support/scrypt-runs.ts), so that the test, not the machine's speed, says when the
// checks in flight end.
import type { FastifyInstance } from 'fastify';
import { afterEach, expect, it, vi } from 'vitest';
import { basic } from '../../../test/support/json-requests.js';
import { scryptRuns } from '../../../test/support/scrypt-runs.js';
import { createRequestLimits } from '../../query/rate-limit/request-limits.js';
import { appWithLimits } from '../../../test/support/test-apps.js';
import { faultOf, shipmentRequest, SHIPMENT_URL } from '../../../test/support/soap-requests.js';
import { CachingAuthenticator } from './authenticator.js';
import { CheckSlots, DEFAULT_CHECK_SLOTS, PasswordChecksBusyError } from './check-slots.js';
import { hashPassword } from './password-hash.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

async function floodableApp() {
  const docs = await Promise.all(
    ['acme', 'both'].map(async (id) => ({ _id: id, passwordHash: await hashPassword('right'), scopes: ['order_status' as const, 'osn' as const], clientIds: ['C1'], active: true, createdAt: new Date() })),
  );
  // The bound given, not the default (which follows the host's cores): 4 running, 8 waiting.
  const scrypt = scryptRuns();
  const authenticator = new CachingAuthenticator(
    { find: async (id) => docs.find((d) => d._id === id) ?? null },
    { checkSlots: { concurrent: 4, queued: 8, maxWaitMs: 500 }, verifyPassword: scrypt.verifyPassword },
  );
  const app = await appWithLimits(createRequestLimits({ requestsPerMinute: 1_000 }), 0, authenticator);
  apps.push(app);
  return { app, scrypt };
}

const STATUS = '/api/partners/v1/orders/status?queryType=4';

it('refuses logins beyond its bound as busy before checking them, and answers a partner at once during a flood, not after its checks', async () => {
  const { app, scrypt } = await floodableApp();
  // 120 guesses (of 120 ids, from 120 addresses) at once: far beyond 4 running and 8 waiting. The
  // checks let through are held: 4 run, 8 wait, and the other 108 are refused without one.
  scrypt.hold();
  let refused = 0;
  const flood = Array.from({ length: 120 }, (_, n) =>
    app.inject({ url: STATUS, headers: { authorization: basic(`guesser-${n}`, 'guess') }, remoteAddress: `10.8.${n >> 8}.${n & 255}` }).then((answer) => {
      if (answer.statusCode === 503) refused++;
      return answer;
    }),
  );
  await expect.poll(() => refused, { timeout: 20_000 }).toBe(108);
  expect(scrypt.runs).toBe(4);
  // A partner arriving now is answered while every check of the flood is still held: busy, at once.
  const partner = await app.inject({ url: STATUS, headers: { authorization: basic('both', 'right') }, remoteAddress: '192.0.2.10' });
  expect(partner.statusCode).toBe(503);
  expect(partner.headers['retry-after']).toBe('1');
  scrypt.release();

  const answers = await Promise.all(flood);
  const busy = answers.filter((a) => a.statusCode === 503);
  expect(busy.length).toBeGreaterThanOrEqual(108);
  expect(busy[0]!.json()).toEqual({ error: 'Service busy — retry later' });
  expect(busy[0]!.headers['retry-after']).toBe('1');
  // Only the checks let through hashed a password.
  expect(scrypt.runs).toBe(answers.filter((a) => a.statusCode === 401).length);

  // 1.0.0 SOAP says busy as busy: 503, Retry-After, a fault whose text says so (never "Internal error").
  const soapFlood = await Promise.all(
    Array.from({ length: 40 }, (_, n) =>
      app.inject({ method: 'POST', url: SHIPMENT_URL, payload: shipmentRequest({ id: 'acme', password: `soap-${n}` }), headers: { 'content-type': 'text/xml' }, remoteAddress: `10.9.0.${n}` }),
    ),
  );
  const soapBusy = soapFlood.filter((a) => a.statusCode === 503);
  expect(soapBusy.length).toBeGreaterThan(0);
  expect(faultOf(soapBusy[0]!.body)).toEqual({ code: 'soap:Server', message: 'Server busy — retry in a second' });
  expect(soapBusy[0]!.headers['retry-after']).toBe('1');
  expect(soapFlood.filter((a) => faultOf(a.body)?.message === 'Internal error')).toEqual([]);
});

it("lets a handful of first logins arriving together wait their turn: eight partners starting at once (per check slot of this host) are all served", async () => {
  // The default bound, as `ossn serve` has it on this host (two cores here: one check at a time).
  // The queue is what is under test: the checks take no time here, so that the machine's load
  // cannot make a waiting one pass the bound's wait.
  const partners = 8 * DEFAULT_CHECK_SLOTS.concurrent;
  const docs = Array.from({ length: partners }, (_, n) => ({ _id: `partner-${n}`, passwordHash: `right-${n}`, scopes: ['order_status' as const, 'osn' as const], clientIds: ['C1'], active: true, createdAt: new Date() }));
  const authenticator = new CachingAuthenticator(
    { find: async (id) => docs.find((d) => d._id === id) ?? null },
    { verifyPassword: async (password, hash) => password === hash },
  );
  const app = await appWithLimits(createRequestLimits({ requestsPerMinute: 1_000 }), 0, authenticator);
  apps.push(app);
  // Each partner's first polls: 1.0.0 SOAP, 2.0.0 SOAP and JSON alike, four at once (the lookups in flight a credential may have).
  const polls = docs.flatMap((doc, n) =>
    Array.from({ length: 4 }, (_, copy) =>
      copy % 2 === 0
        ? app.inject({ url: STATUS, headers: { authorization: basic(doc._id, `right-${n}`) }, remoteAddress: `10.6.0.${n}` })
        : app.inject({ method: 'POST', url: SHIPMENT_URL, payload: shipmentRequest({ id: doc._id, password: `right-${n}` }), headers: { 'content-type': 'text/xml' }, remoteAddress: `10.6.0.${n}` }),
    ),
  );
  const answers = await Promise.all(polls);
  expect(answers.map((a) => a.statusCode)).toEqual(Array<number>(polls.length).fill(200));
});

it('refuses a check that waited its longest for a slot, refuses one beyond the queue at once, and hands a freed slot on', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const slots = new CheckSlots({ concurrent: 1, queued: 1, maxWaitMs: 50 });
  const release = await slots.acquire();
  let waited: unknown;
  const waiting = slots.acquire().then(
    () => (waited = 'granted'),
    (error: unknown) => (waited = error),
  );
  await expect(slots.acquire()).rejects.toBeInstanceOf(PasswordChecksBusyError); // the queue is full
  await vi.advanceTimersByTimeAsync(49);
  expect(waited).toBeUndefined();
  await vi.advanceTimersByTimeAsync(1);
  expect(waited).toBeInstanceOf(PasswordChecksBusyError);
  await waiting;
  // The one that gave up holds nothing: after the release, a slot is there at once.
  const next = slots.acquire();
  release();
  (await next)();
  (await slots.acquire())();
});
