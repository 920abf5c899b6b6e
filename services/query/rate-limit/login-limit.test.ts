// The failed-login limit against guesses that try to slip past it: requests aborted while their
// password is checked, checks that outlive the store deadline, parallel copies of one guess, many
// addresses against one id, and an IPv6 /64's many addresses. Real scrypt, real CachingAuthenticator
// (its credential lookup in memory: no server is involved in the limit's decision).
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CachingAuthenticator } from '../../domain/credentials/authenticator.js';
import { hashPassword } from '../../domain/credentials/password-hash.js';
import { withDeadline } from '../../plumbing/lifecycle/deadline.js';
import { basic } from '../../../test/support/json-requests.js';
import { osnV2Request, SHIPMENT_URL, SHIPMENT_V2_URL, shipmentRequest } from '../../../test/support/soap-requests.js';
import type { Authenticator } from '../../domain/credentials/credential.js';
import { loginAddressKey } from './login-guard.js';
import { createRequestLimits, type RequestLimitOptions } from './request-limits.js';
import { appWithLimits } from '../../../test/support/test-apps.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

const STATUS = '/api/partners/v1/orders/status?queryType=4';

/** The real authenticator over one credential, acme:right, whose lookup answers once `answered` resolves. */
async function acme(answered?: Promise<void>, ttlMs?: number): Promise<CachingAuthenticator> {
  const doc = { _id: 'acme', passwordHash: await hashPassword('right'), scopes: ['order_status' as const, 'osn' as const], clientIds: ['C1'], active: true, createdAt: new Date() };
  // Room for every check: the bound on checks in flight is not under test here.
  return new CachingAuthenticator(
    { find: async (id) => (await answered, id === doc._id ? doc : null) },
    { checkSlots: { concurrent: 4, queued: 1_000, maxWaitMs: 60_000 }, ...(ttlMs === undefined ? {} : { ttlMs }) },
  );
}

/** A login with the pair over each interface and version: 1.0.0 SOAP, 2.0.0 SOAP, JSON v1, JSON v2. */
const INTERFACES = {
  'SOAP 1.0.0': (app: FastifyInstance, password: string, remoteAddress: string) =>
    app.inject({ method: 'POST', url: SHIPMENT_URL, payload: shipmentRequest({ id: 'acme', password }), headers: { 'content-type': 'text/xml' }, remoteAddress }),
  'SOAP 2.0.0': (app: FastifyInstance, password: string, remoteAddress: string) =>
    app.inject({
      method: 'POST',
      url: SHIPMENT_V2_URL,
      payload: osnV2Request({ id: 'acme', password, queryType: '1', referenceNumber: 'PO-1' }),
      headers: { 'content-type': 'text/xml' },
      remoteAddress,
    }),
  'JSON v1': (app: FastifyInstance, password: string, remoteAddress: string) => login(app, password, remoteAddress),
  'JSON v2': (app: FastifyInstance, password: string, remoteAddress: string) =>
    app.inject({ url: '/api/partners/v2/orders/shipments?queryType=1&referenceNumber=PO-1', headers: { authorization: basic('acme', password) }, remoteAddress }),
};

/** The authenticator, counting the checks that have begun and those that have ended. */
function counted(inner: Authenticator): Authenticator & { begun: number; settled: number } {
  const checks = {
    begun: 0,
    settled: 0,
    verify: (...args: Parameters<Authenticator['verify']>) => (checks.begun++, inner.verify(...args).finally(() => void checks.settled++)),
  };
  return checks;
}

async function appWith(authenticator: Authenticator, options: Partial<RequestLimitOptions> = {}): Promise<FastifyInstance> {
  const app = await appWithLimits(createRequestLimits({ requestsPerMinute: 300, ...options }), 0, authenticator);
  apps.push(app);
  return app;
}

const login = (app: FastifyInstance, password: string, remoteAddress = '10.0.0.1', id = 'acme') =>
  app.inject({ url: STATUS, headers: { authorization: basic(id, password) }, remoteAddress });

/** Sends a GET with the pair over a real socket and closes it once its check has `begun()`, while it runs. */
function abortedGuess(port: number, password: string, begun: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET ${STATUS} HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic('acme', password)}\r\n\r\n`);
      void vi.waitUntil(begun, { timeout: 10_000, interval: 1 }).finally(() => socket.destroy());
    });
    socket.on('close', () => resolve());
    socket.on('error', () => undefined);
  });
}

describe('a locked-out address or id', () => {
  // Before the fix the right password of a partner verified on this instance answered 200 while
  // every wrong one answered 429: a password oracle.
  it.each([
    ['verified moments ago (cached)', 30_000],
    ['verified past the cache (renewed from the store)', 1],
  ])('gets 429 with Retry-After for every password, the right one %s included, on every interface', async (_case, ttlMs) => {
    // The clock the cache and the windows read, moved by the test.
    vi.useFakeTimers({ toFake: ['Date'] });
    const app = await appWith(await acme(undefined, ttlMs), { loginFailuresPerMinute: 3, loginFailuresPerIdPerMinute: 6 });
    // Served (JSON v2 answers a purchase order it does not know 404).
    for (const [name, send] of Object.entries(INTERFACES)) expect([200, 404], name).toContain((await send(app, 'right', '10.0.0.1')).statusCode);
    vi.advanceTimersByTime(5);
    // The address uses up its failures; then the id does, from other addresses.
    for (let n = 0; n < 3; n++) expect((await login(app, `guess-${n}`, '10.0.0.1')).statusCode).toBe(401);
    for (const [name, send] of Object.entries(INTERFACES)) {
      const locked = await send(app, 'right', '10.0.0.1');
      expect([name, locked.statusCode]).toEqual([name, 429]);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(50);
      expect((await send(app, 'wrong', '10.0.0.1')).statusCode).toBe(429);
    }
    for (let n = 0; n < 3; n++) expect((await login(app, `guess-${n}`, `10.0.1.${n}`)).statusCode).toBe(401);
    for (const [name, send] of Object.entries(INTERFACES)) {
      const locked = await send(app, 'right', '10.0.2.1');
      expect([name, locked.statusCode]).toEqual([name, 429]);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(50);
    }
  });

  it('is served again once its window ends, not before', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const app = await appWith(await acme(), { loginFailuresPerMinute: 1, windowMs: 3_000 });
    expect((await login(app, 'right')).statusCode).toBe(200);
    expect((await login(app, 'guess')).statusCode).toBe(401);
    expect((await login(app, 'right')).statusCode).toBe(429);
    vi.advanceTimersByTime(2_990);
    expect((await login(app, 'right')).statusCode).toBe(429);
    vi.advanceTimersByTime(10);
    expect((await login(app, 'right')).statusCode).toBe(200);
  });
});

it('reads a password with surrounding whitespace the same way on every interface', async () => {
  const app = await appWith(await acme());
  const answers: Record<string, number> = {};
  for (const [name, send] of Object.entries(INTERFACES)) answers[name] = (await send(app, '  right ', '10.0.0.9')).statusCode;
  // Served everywhere (JSON v2 answers a purchase order it does not know 404); SOAP read it trimmed, JSON did not.
  expect(answers).toEqual({ 'SOAP 1.0.0': 200, 'SOAP 2.0.0': 200, 'JSON v1': 200, 'JSON v2': 404 });
});

describe('failed logins stay counted', () => {
  it('when the guessing requests are aborted while their passwords are checked', async () => {
    // The store answers only once every guess is gone.
    let answer = () => {};
    const checks = counted(await acme(new Promise((resolve) => (answer = resolve))));
    const app = await appWith(checks, { loginFailuresPerMinute: 5 });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    for (let n = 0; n < 10; n++) await abortedGuess(port, `guess-${n}`, () => checks.begun === n + 1);
    answer();
    // The checks finish after their requests are gone: wait for all ten, however loaded the machine.
    await expect.poll(() => checks.settled, { timeout: 20_000, interval: 50 }).toBe(10);
    const right = await fetch(`http://127.0.0.1:${port}${STATUS}`, { headers: { authorization: basic('acme', 'right') } });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(50);
  });

  it('when their checks outlive the store deadline and are answered 500', async () => {
    // The store answers only once every guess has had its answer.
    let answer = () => {};
    const checks = counted(await acme(new Promise((resolve) => (answer = resolve))));
    // As server.ts wraps it: the store's deadline, here 20 ms; the check itself goes on.
    const authenticator: Authenticator = { verify: (id, password, guard) => withDeadline(checks.verify(id, password, guard), 20, 'a store operation') };
    const app = await appWith(authenticator, { loginFailuresPerMinute: 5 });
    const codes = [];
    for (let n = 0; n < 8; n++) codes.push((await login(app, `guess-${n}`)).statusCode);
    expect(codes).toEqual([500, 500, 500, 500, 500, 429, 429, 429]);
    answer();
    await expect.poll(() => checks.settled, { timeout: 20_000, interval: 20 }).toBe(8);
    expect((await login(app, 'right')).statusCode).toBe(429);
  });

  it('when parallel copies of one wrong pair share a check: each copy counts', async () => {
    const app = await appWith(await acme(), { loginFailuresPerMinute: 20 });
    // One check answers them all (one guess learnt), and each copy counts as a failure.
    const answers = await Promise.all(Array.from({ length: 30 }, () => login(app, 'guess')));
    expect(answers.map((a) => a.statusCode)).toEqual(Array<number>(30).fill(401));
    expect((await login(app, 'right')).statusCode).toBe(429);
  });

  it("but parallel copies of the right pair (a partner's first polls) are all served and count nothing", async () => {
    const app = await appWith(await acme(), { loginFailuresPerMinute: 3 });
    const answers = await Promise.all(Array.from({ length: 30 }, () => login(app, 'right')));
    expect(answers.map((a) => a.statusCode)).toEqual(Array<number>(30).fill(200));
    // The address's three failures are all still there.
    const guesses = [];
    for (let n = 0; n < 4; n++) guesses.push((await login(app, `guess-${n}`)).statusCode);
    expect(guesses).toEqual([401, 401, 401, 429]);
  });

  it('per id, from every address together: many addresses cannot guess one id freely', async () => {
    const app = await appWith(await acme(), { loginFailuresPerMinute: 2, loginFailuresPerIdPerMinute: 6 });
    const codes = [];
    for (let n = 0; n < 8; n++) codes.push((await login(app, `guess-${n}`, `10.7.0.${n}`)).statusCode);
    expect(codes).toEqual([401, 401, 401, 401, 401, 401, 429, 429]);
    // The id is locked from a fresh address too, its right password included, until the window ends.
    const locked = await login(app, 'right', '10.7.1.1');
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(50);
    // Another id from a fresh address is not.
    expect((await login(app, 'whatever', '10.7.1.2', 'other')).statusCode).toBe(401);
  });

  it('per IPv6 /64: its addresses count as one', async () => {
    const app = await appWith(await acme(), { loginFailuresPerMinute: 3 });
    const codes = [];
    for (const address of ['2001:db8:1:2::1', '2001:db8:1:2:ffff::9', '2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::77']) {
      codes.push((await login(app, 'guess', address)).statusCode);
    }
    expect(codes).toEqual([401, 401, 401, 429]);
    expect((await login(app, 'right', '2001:db8:1:3::1')).statusCode).toBe(200);
  });
});

it('counts IPv4 addresses whole and IPv6 ones by /64', () => {
  expect(loginAddressKey('192.0.2.7')).toBe('192.0.2.7');
  expect(loginAddressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
  expect(loginAddressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  expect(loginAddressKey('2001:DB8:0:0:1::1')).toBe('2001:db8:0:0::/64');
  expect(loginAddressKey('::1')).toBe('0:0:0:0::/64');
  expect(loginAddressKey('fe80::1:2:3:4')).toBe('fe80:0:0:0::/64');
  // A trailing dotted quad is two groups, so the /64 is still the first four.
  expect(loginAddressKey('::a:b:c:d:1.2.3.4')).toBe('0:0:a:b::/64');
  expect(loginAddressKey('2001:db8:1:2:3:4:1.2.3.4')).toBe('2001:db8:1:2::/64');
  expect(loginAddressKey('::ffff:c000:207')).toBe('192.0.2.7');
});

it('counts an address of a NAT64 prefix as the IPv4 client it stands for', () => {
  expect(loginAddressKey('64:ff9b::192.0.2.7')).toBe('192.0.2.7');
  expect(loginAddressKey('64:ff9b::c000:208')).toBe('192.0.2.8');
  expect(loginAddressKey('64:FF9B:0:0:0:0:C633:6401')).toBe('198.51.100.1');
  expect(loginAddressKey('64:ff9b:1::203.0.113.9')).toBe('203.0.113.9');
  expect(loginAddressKey('64:ff9b:1:ab::cb00:710a')).toBe('203.0.113.10');
  // Not NAT64: the rest of 64:ff9b::/32 and its neighbours count by /64.
  expect(loginAddressKey('64:ff9b:2::1.2.3.4')).toBe('64:ff9b:2:0::/64');
  expect(loginAddressKey('64:ff9a::1.2.3.4')).toBe('64:ff9a:0:0::/64');
});
