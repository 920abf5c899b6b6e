// The limits counted in a real Redis: 300 per credential and minute across SOAP and JSON, one
// count shared by two app instances, and failed logins per address shared the same way.
import { createServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, expect, it } from 'vitest';
import { servers, uniqueNames } from '../../../test/support/servers.js';
import { basic } from '../../../test/support/json-requests.js';
import { faultOf, shipmentRequest, SHIPMENT_URL } from '../../../test/support/soap-requests.js';
import { RateLimitedError } from './rate-limited-error.js';
import { createRequestLimits, type RequestLimitOptions, type RequestLimits } from './request-limits.js';
import { redisClientOptions } from '../../adapters/redis/redis-connection.js';
import { appWithLimits } from '../../../test/support/test-apps.js';
import { CachingAuthenticator } from '../../domain/credentials/authenticator.js';
import type { Authenticator } from '../../domain/credentials/credential.js';
import { hashPassword } from '../../domain/credentials/password-hash.js';

const { redisUrl } = servers();
const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

const redis = new Redis(redisClientOptions(redisUrl));
afterAll(() => redis.quit());

/** An app instance counting in Redis under `keyPrefix`; instances given the same prefix share counts. */
async function instance(keyPrefix: string, options: Partial<RequestLimitOptions> = {}, authenticator?: Authenticator): Promise<FastifyInstance> {
  const limits = createRequestLimits({ requestsPerMinute: 300, redisUrl, keyPrefix, ...options });
  const app = await appWithLimits(limits, 0, authenticator);
  apps.push(app);
  // An instance counts on its own until Redis first answers (moments after its start).
  await expect.poll(() => limits.countsLocally(), { timeout: 5_000 }).toBe(false);
  return app;
}

const prefix = () => `test-${uniqueNames('rate-limit').suffix}`;

function json(app: FastifyInstance, authorization = basic('both', 'secret'), remoteAddress = '10.1.0.1') {
  return app.inject({ url: '/api/partners/v1/orders/status?queryType=4', headers: { authorization }, remoteAddress });
}

function soap(app: FastifyInstance, fields: Record<string, string> = {}, remoteAddress = '10.1.0.1') {
  return app.inject({ method: 'POST', url: SHIPMENT_URL, payload: shipmentRequest(fields), headers: { 'content-type': 'text/xml' }, remoteAddress });
}

/** `count` requests, SOAP and JSON alternating, over the given instances in turn, 20 at a time. */
async function mixed(apps: FastifyInstance[], count: number): Promise<LightMyRequestResponse[]> {
  const answers: LightMyRequestResponse[] = [];
  for (let start = 0; start < count; start += 20) {
    const batch = Array.from({ length: Math.min(20, count - start) }, (_, i) => {
      const n = start + i;
      const app = apps[n % apps.length]!;
      return Math.floor(n / apps.length) % 2 === 0 ? json(app) : soap(app);
    });
    answers.push(...(await Promise.all(batch)));
  }
  return answers;
}

function expectRefusedWithin(res: LightMyRequestResponse, startedAt: number, windowMs = 60_000) {
  expect(res.statusCode).toBe(429);
  // Whole seconds until the window that opened with the first request ends.
  const seconds = Number(res.headers['retry-after']);
  expect(Number.isInteger(seconds)).toBe(true);
  const left = startedAt + windowMs - Date.now();
  expect(seconds).toBeGreaterThanOrEqual(Math.floor(left / 1000));
  expect(seconds).toBeLessThanOrEqual(Math.ceil((left + 1_000) / 1000));
}

it('serves 300 requests of a credential within a minute over SOAP and JSON, and refuses the 301st at once', async () => {
  const app = await instance(prefix());
  const startedAt = Date.now();
  const answers = await mixed([app], 300);
  expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(300);

  const refusedJson = await json(app);
  expectRefusedWithin(refusedJson, startedAt);
  expect(refusedJson.json()).toEqual({ error: 'Rate limit exceeded' });
  const refusedSoap = await soap(app);
  expectRefusedWithin(refusedSoap, startedAt);
  expect(faultOf(refusedSoap.body)).toEqual({ code: 'soap:Server', message: 'Rate limit exceeded — retry later' });
});

it('counts one limit for two instances sharing Redis: the 301st request overall is refused', async () => {
  const keyPrefix = prefix();
  const [a, b] = [await instance(keyPrefix), await instance(keyPrefix)];
  const startedAt = Date.now();
  const answers = await mixed([a!, b!], 300);
  expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(300);
  expectRefusedWithin(await json(b!), startedAt);
  expectRefusedWithin(await soap(a!), startedAt);
  // Another credential still has its own 300.
  expect((await json(a!, basic('statusOnly', 'secret'))).statusCode).toBe(200);
  // And an instance counting under another prefix (another deployment) does not share.
  expect((await json(await instance(prefix()))).statusCode).toBe(200);
});

it('answers Retry-After from the shared window, and accepts again when it has passed', async () => {
  const keyPrefix = prefix();
  const [a, b] = [await instance(keyPrefix, { requestsPerMinute: 3, windowMs: 2_000 }), await instance(keyPrefix, { requestsPerMinute: 3, windowMs: 2_000 })];
  const startedAt = Date.now();
  expect([(await json(a!)).statusCode, (await soap(b!)).statusCode, (await json(b!)).statusCode]).toEqual([200, 200, 200]);
  const refused = await soap(a!);
  expectRefusedWithin(refused, startedAt, 2_000);
  await new Promise((resolve) => setTimeout(resolve, Number(refused.headers['retry-after']) * 1000));
  expect((await json(b!)).statusCode).toBe(200);
  // A new window: the take that refilled it counts, so two more, then refused.
  expect([(await json(a!)).statusCode, (await soap(a!)).statusCode, (await json(b!)).statusCode]).toEqual([200, 200, 429]);
});

it('shares failed logins per address between instances', async () => {
  const keyPrefix = prefix();
  const [a, b] = [await instance(keyPrefix, { loginFailuresPerMinute: 4 }), await instance(keyPrefix, { loginFailuresPerMinute: 4 })];
  expect((await json(a!, basic('both', 'guess-1'), '10.9.0.1')).statusCode).toBe(401);
  expect((await json(b!, basic('both', 'guess-2'), '10.9.0.1')).statusCode).toBe(401);
  expect(faultOf((await soap(a!, { password: 'guess-3' }, '10.9.0.1')).body)?.message).toBe('Invalid id or password');
  expect(faultOf((await soap(b!, { password: 'guess-4' }, '10.9.0.1')).body)?.message).toBe('Invalid id or password');

  const blocked = await json(b!, basic('both', 'secret'), '10.9.0.1');
  expect(blocked.statusCode).toBe(429);
  expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(55);
  expect((await soap(a!, {}, '10.9.0.1')).statusCode).toBe(429);
  expect((await json(a!, basic('both', 'secret'), '10.9.0.2')).statusCode).toBe(200);
});

it('refuses the right password of a partner verified on one instance while guesses on another have locked out its address or id', async () => {
  const keyPrefix = prefix();
  const doc = { _id: 'acme', passwordHash: await hashPassword('right'), scopes: ['order_status' as const, 'osn' as const], clientIds: ['C1'], active: true, createdAt: new Date() };
  const authenticator = () => new CachingAuthenticator({ find: async (id) => (id === doc._id ? doc : null) });
  const limits = { requestsPerMinute: 300, redisUrl, keyPrefix, loginFailuresPerMinute: 2, loginFailuresPerIdPerMinute: 4 };
  const [a, b] = [await instance(keyPrefix, limits, authenticator()), await instance(keyPrefix, limits, authenticator())];
  expect((await json(a, basic('acme', 'right'), '10.9.1.1')).statusCode).toBe(200);
  for (const n of [1, 2]) expect((await json(b, basic('acme', `guess-${n}`), '10.9.1.1')).statusCode).toBe(401);
  // Verified moments ago on a: its cache does not answer while the address is locked out.
  const byAddress = await json(a, basic('acme', 'right'), '10.9.1.1');
  expect(byAddress.statusCode).toBe(429);
  expect(Number(byAddress.headers['retry-after'])).toBeGreaterThan(55);
  expect((await soap(a, { id: 'acme', password: 'right' }, '10.9.1.1')).statusCode).toBe(429);
  for (const n of [3, 4]) expect((await json(b, basic('acme', `guess-${n}`), '10.9.1.2')).statusCode).toBe(401);
  expect((await json(a, basic('acme', 'right'), '10.9.1.3')).statusCode).toBe(429);
  expect((await soap(a, { id: 'acme', password: 'right' }, '10.9.1.3')).statusCode).toBe(429);
  // An instance started since, which has counted nothing itself, reads the lock-out from Redis.
  const c = await instance(keyPrefix, limits, authenticator());
  expect((await json(c, basic('acme', 'right'), '10.9.1.4')).statusCode).toBe(429);
  expect((await json(c, basic('other', 'right'), '10.9.1.1')).statusCode).toBe(429);
  expect((await json(c, basic('other', 'wrong'), '10.9.1.5')).statusCode).toBe(401);
});

it('keeps its counts in Redis: an instance started anew under the same prefix goes on counting', async () => {
  const keyPrefix = prefix();
  const first = await instance(keyPrefix, { requestsPerMinute: 2 });
  expect((await json(first)).statusCode).toBe(200);
  await first.close();
  const second = await instance(keyPrefix, { requestsPerMinute: 2 });
  expect((await json(second)).statusCode).toBe(200);
  const refused = await json(second);
  expect(refused.statusCode).toBe(429);
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(55);
});

it('serves requests, counting in this instance, when Redis cannot be reached', async () => {
  const warnings: string[] = [];
  const logger = { warn: (_: object, message: string) => warnings.push(message), info() {} };
  const limits = createRequestLimits({ requestsPerMinute: 2, redisUrl: 'redis://127.0.0.1:1', storeTimeoutMs: 300, logger });
  const app = await appWithLimits(limits);
  apps.push(app);
  const codes = [];
  for (let n = 0; n < 3; n++) codes.push((await json(app)).statusCode);
  expect(codes).toEqual([200, 200, 429]);
  await expect.poll(() => warnings, { timeout: 5_000 }).toEqual(['rate-limit store unreachable: counting in this instance until it answers']);
  // What ossn_query_rate_limit_local reports.
  expect(limits.countsLocally()).toBe(true);
});

it('starts counting at once, in this instance, while Redis is not there: no count waits for it', async () => {
  // A Redis that accepts connections and never answers (frozen, or a firewall that lets SYNs in).
  const sockets: Socket[] = [];
  const silent = createServer((socket) => void sockets.push(socket.on('error', () => undefined)));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const limits = createRequestLimits({ requestsPerMinute: 5, redisUrl: `redis://127.0.0.1:${(silent.address() as { port: number }).port}`, storeTimeoutMs: 1_000 });
  try {
    const startedAt = Date.now();
    const answers = [];
    for (let n = 0; n < 6; n++) answers.push(await limits.admit({ id: 'both', scopes: [], clientIds: [] }).then(() => 'admitted', () => 'refused'));
    expect(answers).toEqual(['admitted', 'admitted', 'admitted', 'admitted', 'admitted', 'refused']);
    // Each count used to wait for the store's 1 s before it was counted here.
    expect(Date.now() - startedAt).toBeLessThan(500);
    expect(limits.countsLocally()).toBe(true);
  } finally {
    const closed = new Promise((resolve) => silent.close(resolve));
    for (const socket of sockets) socket.destroy();
    await Promise.all([limits.close(), closed]);
  }
});

it('counts on its own from its start until Redis first answers, then shares its counts', async () => {
  const limits = createRequestLimits({ requestsPerMinute: 5, redisUrl, keyPrefix: prefix() });
  try {
    expect(limits.countsLocally()).toBe(true);
    await expect.poll(() => limits.countsLocally(), { timeout: 5_000 }).toBe(false);
  } finally {
    await limits.close();
  }
});

it('heals a credential whose first count met a Redis failure: its count is shared again at once, and no outage is announced while Redis answers', async () => {
  // Instance a connects as a Redis user of its own, so that Redis can fail for it alone: while its
  // scripts are refused (NOPERM), bottleneck cannot make the limiter of a credential's first count.
  const { suffix } = uniqueNames('blip');
  const user = `ossn-blip-${suffix}`;
  await redis.call('ACL', 'SETUSER', user, 'on', `>pw-${suffix}`, '~*', '&*', '+@all');
  const log: string[] = [];
  const logger = { warn: (_: object, message: string) => log.push(message), info: (_: object, message: string) => log.push(message) };
  const asUser = new URL(redisUrl);
  [asUser.username, asUser.password] = [user, `pw-${suffix}`];
  const keyPrefix = prefix();
  const a = createRequestLimits({ requestsPerMinute: 4, redisUrl: asUser.href, keyPrefix, logger });
  const b = createRequestLimits({ requestsPerMinute: 4, redisUrl, keyPrefix });
  const both = { id: 'both', scopes: [], clientIds: [] };
  const admitted = (limits: RequestLimits) =>
    limits.admit(both).then(
      () => 'admitted',
      (error: unknown) => (error instanceof RateLimitedError ? `refused, retry after ${error.retryAfterSeconds > 50 ? 'the window' : error.retryAfterSeconds}` : String(error)),
    );
  try {
    await expect.poll(() => [a.countsLocally(), b.countsLocally()], { timeout: 5_000 }).toEqual([false, false]); // both are connected
    log.length = 0; // its connection's announcement
    await redis.call('ACL', 'SETUSER', user, '-evalsha', '-eval');
    expect(await admitted(a)).toBe('admitted'); // `both` counts first: in instance a meanwhile
    await redis.call('ACL', 'SETUSER', user, '+@all');

    // One count for both instances again: 4 in all, then refused by either until the window ends.
    const answers = [];
    for (const limits of [b, a, b, a, b, a]) answers.push(await admitted(limits));
    expect(answers).toEqual(['admitted', 'admitted', 'admitted', 'admitted', 'refused, retry after the window', 'refused, retry after the window']);
    expect([a.countsLocally(), b.countsLocally()]).toEqual([false, false]);
    await sleep(1_500); // a flip to local counting per request would show as log lines by now
    // Redis answered a PING throughout: one refused script is no outage to announce.
    expect(log).toEqual([]);
  } finally {
    await Promise.all([a.close(), b.close()]);
    await redis.call('ACL', 'DELUSER', user);
  }
});
