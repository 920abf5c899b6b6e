// The limits wired into the app (in-process counting): one count per credential across SOAP and
// JSON, and failed logins per source address, with the answers each protocol gives.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { LoginGuard } from '../../domain/credentials/credential.js';
import { basic } from '../../../test/support/json-requests.js';
import { FakeAuthenticator, ACCOUNTS } from '../../../test/support/fake-ports.js';
import { faultOf, ORDER_STATUS_URL, post, shipmentRequest, SHIPMENT_URL, statusDetailsRequest } from '../../../test/support/soap-requests.js';
import { createRequestLimits, type RequestLimitOptions } from './request-limits.js';
import { appWithLimits } from '../../../test/support/test-apps.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

async function appWith(options: Omit<RequestLimitOptions, 'requestsPerMinute'> & { requestsPerMinute?: number }, trustedProxyHops = 0) {
  const app = await appWithLimits(createRequestLimits({ requestsPerMinute: 300, ...options }), trustedProxyHops);
  apps.push(app);
  return app;
}

const json = (app: FastifyInstance, authorization: string, remoteAddress = '10.0.0.1') =>
  app.inject({ url: '/api/partners/v1/orders/status?queryType=4', headers: { authorization }, remoteAddress });
const soap = (app: FastifyInstance, fields: Record<string, string> = {}, remoteAddress = '10.0.0.1') =>
  app.inject({ method: 'POST', url: SHIPMENT_URL, payload: shipmentRequest(fields), headers: { 'content-type': 'text/xml' }, remoteAddress });

describe('requests per credential', () => {
  it('are counted across SOAP and JSON; above the limit both answer 429 with Retry-After', async () => {
    const app = await appWith({ requestsPerMinute: 4 });
    const codes = [(await json(app, basic('both', 'secret'))).statusCode, (await soap(app)).statusCode];
    codes.push((await json(app, basic('both', 'secret'))).statusCode, (await soap(app)).statusCode);
    expect(codes).toEqual([200, 200, 200, 200]);

    const refusedJson = await json(app, basic('both', 'secret'));
    expect(refusedJson.statusCode).toBe(429);
    expect(refusedJson.json()).toEqual({ error: 'Rate limit exceeded' });
    const seconds = Number(refusedJson.headers['retry-after']);
    expect(Number.isInteger(seconds) && seconds > 55 && seconds <= 61).toBe(true);

    const refusedSoap = await soap(app);
    expect(refusedSoap.statusCode).toBe(429);
    expect(faultOf(refusedSoap.body)).toEqual({ code: 'soap:Server', message: 'Rate limit exceeded — retry later' });
    expect(Number(refusedSoap.headers['retry-after'])).toBeGreaterThan(55);

    // Another credential has its own count.
    expect((await json(app, basic('statusOnly', 'secret'))).statusCode).toBe(200);
  });

  it('count only authenticated requests: bad arguments and failed logins are not charged', async () => {
    const app = await appWith({ requestsPerMinute: 1 });
    await app.inject({ url: '/api/partners/v1/orders/status?queryType=1', headers: { authorization: basic('both', 'secret') } });
    await post(app, ORDER_STATUS_URL, statusDetailsRequest({ queryType: 'x' }));
    await json(app, basic('both', 'wrong'));
    expect((await json(app, basic('both', 'secret'))).statusCode).toBe(200);
    expect((await json(app, basic('both', 'secret'))).statusCode).toBe(429);
  });

  it('tell when a request will be accepted again, and accept it then', async () => {
    // The clock the windows read, moved by the test.
    vi.useFakeTimers({ toFake: ['Date'] });
    const app = await appWith({ requestsPerMinute: 1, windowMs: 1_500 });
    expect((await json(app, basic('both', 'secret'))).statusCode).toBe(200);
    vi.advanceTimersByTime(100);
    const refused = await json(app, basic('both', 'secret'));
    expect(refused.statusCode).toBe(429);
    // 1.4 s left, rounded up.
    expect(refused.headers['retry-after']).toBe('2');
    vi.advanceTimersByTime(1_399);
    expect((await json(app, basic('both', 'secret'))).statusCode).toBe(429);
    vi.advanceTimersByTime(1);
    expect((await json(app, basic('both', 'secret'))).statusCode).toBe(200);
  });
});

describe('failed logins per address', () => {
  it('block the address, correct credentials included, for both protocols; other addresses are not affected', async () => {
    const app = await appWith({ loginFailuresPerMinute: 3 });
    expect((await json(app, basic('both', 'guess-1'))).statusCode).toBe(401);
    expect(faultOf((await soap(app, { password: 'guess-2' })).body)?.message).toBe('Invalid id or password');
    expect((await json(app, basic('nobody', 'guess-3'))).statusCode).toBe(401);

    const blocked = await json(app, basic('both', 'secret'));
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toEqual({ error: 'Rate limit exceeded' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(55);
    const blockedSoap = await soap(app);
    expect(blockedSoap.statusCode).toBe(429);
    expect(faultOf(blockedSoap.body)?.code).toBe('soap:Server');

    expect((await json(app, basic('both', 'secret'), '10.0.0.2')).statusCode).toBe(200);
    expect((await soap(app, {}, '10.0.0.2')).statusCode).toBe(200);
    // Requests without credentials (WSDL, OpenAPI) are still served to the blocked address.
    expect((await app.inject({ url: `${SHIPMENT_URL}?wsdl`, remoteAddress: '10.0.0.1' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/partners/v1/openapi.json', remoteAddress: '10.0.0.1' })).statusCode).toBe(200);
  });

  it('count the connecting address, not a forged X-Forwarded-For, unless a proxy in front is configured', async () => {
    const guess = (app: FastifyInstance, forwardedFor: string, password = 'guess') =>
      app.inject({
        url: '/api/partners/v1/orders/status?queryType=4',
        headers: { authorization: basic('both', password), 'x-forwarded-for': forwardedFor },
        remoteAddress: '10.0.0.9',
      });
    const direct = await appWith({ loginFailuresPerMinute: 2 });
    // Changing the header neither escapes the block nor pins it on the partner named in it.
    expect((await guess(direct, '192.0.2.1')).statusCode).toBe(401);
    expect((await guess(direct, '192.0.2.2')).statusCode).toBe(401);
    expect((await guess(direct, '192.0.2.3', 'secret')).statusCode).toBe(429);
    expect((await json(direct, basic('both', 'secret'), '192.0.2.1')).statusCode).toBe(200);

    const behindProxy = await appWith({ loginFailuresPerMinute: 2 }, 1);
    expect((await guess(behindProxy, '192.0.2.1')).statusCode).toBe(401);
    expect((await guess(behindProxy, '192.0.2.1')).statusCode).toBe(401);
    expect((await guess(behindProxy, '192.0.2.1', 'secret')).statusCode).toBe(429);
    expect((await guess(behindProxy, '192.0.2.2', 'secret')).statusCode).toBe(200);
  });

  it('hold against parallel guesses: no more passwords are checked than the limit allows', async () => {
    // A password check that does not end while guesses arrive (as scrypt is slow): all are in flight
    // at once. The checks end once the limit's twenty have begun; any beyond them would not wait.
    const checked: string[] = [];
    let checking = () => {};
    const twentyBegun = new Promise<void>((resolve) => (checking = resolve));
    const accounts = new FakeAuthenticator(ACCOUNTS);
    const authenticator = {
      async verify(id: string, password: string, guard?: LoginGuard) {
        const giveBack = await guard?.reserve(id);
        checked.push(password);
        if (checked.length === 20) checking();
        await twentyBegun;
        const credential = await accounts.verify(id, password);
        if (credential) giveBack?.();
        return credential;
      },
    };
    const app = await appWithLimits(createRequestLimits({ requestsPerMinute: 300, loginFailuresPerMinute: 20 }), 0, authenticator);
    apps.push(app);
    const answers = await Promise.all(Array.from({ length: 150 }, (_, n) => json(app, basic('both', `guess-${n}`))));
    expect(checked).toHaveLength(20);
    expect(answers.filter((a) => a.statusCode === 401)).toHaveLength(20);
    expect(answers.filter((a) => a.statusCode === 429)).toHaveLength(130);
    // The address stays blocked, the right password included.
    expect((await json(app, basic('both', 'secret'))).statusCode).toBe(429);
  });

  it('let parallel logins that succeed through: only failures use up the limit', async () => {
    const app = await appWith({ loginFailuresPerMinute: 3 });
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 3 }, () => json(app, basic('both', 'secret'))));
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    }
    expect((await json(app, basic('both', 'wrong'))).statusCode).toBe(401);
    expect((await json(app, basic('both', 'secret'))).statusCode).toBe(200);
  });

  it('do not count requests without credentials or refused for other reasons', async () => {
    const app = await appWith({ loginFailuresPerMinute: 1 });
    await app.inject({ url: '/api/partners/v1/orders/status?queryType=4', remoteAddress: '10.0.0.1' });
    await json(app, basic('osnOnly', 'secret'));
    await soap(app, { id: 'statusOnly' });
    expect((await json(app, basic('both', 'secret'))).statusCode).toBe(200);
  });
});

it('the app closes its limits', async () => {
  const limits = createRequestLimits({ requestsPerMinute: 1 });
  let closed = false;
  const app = await appWithLimits({ ...limits, close: async () => ((closed = true), limits.close()) });
  await app.close();
  expect(closed).toBe(true);
});
