// What a partner request's lookup is bound to: a few lookups at once per credential, the rest waiting, and
// a signal that aborts the lookup's store work once its client has gone away. In the integration
// tier: clients go away over real sockets, and the server's notice of it is waited for on the wall
// clock (docs/development.md, test tiers).
import type { FastifyInstance } from 'fastify';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { basic, STATUS_URL } from '../../../test/support/json-requests.js';
import { inOneBatch, type OrderLookups } from '../../../contracts/lookups.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups, FakeLookupsV2 } from '../../../test/support/fake-ports.js';
import { faultOf, ORDER_STATUS_URL, ORDER_STATUS_V2_URL, ossV2Request, serviceMessagesOf, statusDetailsRequest } from '../../../test/support/soap-requests.js';
import { ORDER_STATUS_JSON_V2_PATH } from '../versions/2.0.0/json/plugin.js';

/** Lookups that answer only when released, recording each one's signal. */
class HeldLookups implements OrderLookups {
  readonly signals: AbortSignal[] = [];
  private readonly waiting: Array<() => void> = [];

  orderStatus(_clientIds: string[], _query: unknown, signal?: AbortSignal) {
    this.signals.push(signal!);
    return new Promise<[]>((resolve) => this.waiting.push(() => resolve([])));
  }

  shipmentNotificationBatches(clientIds: string[], query: unknown, signal?: AbortSignal) {
    return inOneBatch(this.orderStatus(clientIds, query, signal));
  }

  get held(): number {
    return this.waiting.length;
  }

  releaseAll(): void {
    this.waiting.splice(0).forEach((release) => release());
  }
}

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function appWith(lookups: OrderLookups, lookupWaitMs = 60_000): Promise<FastifyInstance> {
  const accounts = { ...ACCOUNTS, other: { password: 'secret', credential: { id: 'other', scopes: ['order_status' as const], clientIds: ['C9'] } } };
  const app = await buildApp({ logger: pino({ level: 'silent' }), publicBaseUrl: 'http://x', lookups, authenticator: new FakeAuthenticator(accounts), lookupsInFlightPerCredential: 4, lookupWaitMs });
  apps.push(app);
  return app;
}

const json = (app: FastifyInstance, id = 'both') => app.inject({ url: `${STATUS_URL}?queryType=4`, headers: { authorization: basic(id, 'secret') } });
const soap = (app: FastifyInstance) => app.inject({ method: 'POST', url: ORDER_STATUS_URL, payload: statusDetailsRequest(), headers: { 'content-type': 'text/xml' } });

it('runs at most 4 lookups of a credential at once: the others wait their turn, and another credential is not affected', async () => {
  const lookups = new HeldLookups();
  const app = await appWith(lookups);
  const first = [json(app), soap(app), json(app), soap(app)];
  await expect.poll(() => lookups.held).toBe(4);

  const waiting = [json(app), soap(app)];
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(lookups.held).toBe(4); // not started: no store work for them yet

  const other = json(app, 'other'); // another credential has slots of its own
  await expect.poll(() => lookups.held).toBe(5);

  lookups.releaseAll(); // four slots free: the two waiting start
  expect((await Promise.all([...first, other])).map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
  await expect.poll(() => lookups.held).toBe(2);
  lookups.releaseAll();
  expect((await Promise.all(waiting)).map((r) => r.statusCode)).toEqual([200, 200]);
  expect(lookups.signals).toHaveLength(7);
});

/** A 1.0.0 request over HTTP as partner `both`: JSON getOrderStatus (a GET) or SOAP getOrderStatusDetails (a POST with a body). */
const V1_OVER_HTTP = {
  'JSON 1.0.0': (url: string, signal?: AbortSignal) => fetch(`${url}${STATUS_URL}?queryType=4`, { headers: { authorization: basic('both', 'secret') }, ...(signal ? { signal } : {}) }),
  'SOAP 1.0.0': (url: string, signal?: AbortSignal) =>
    fetch(`${url}${ORDER_STATUS_URL}`, { method: 'POST', body: statusDetailsRequest(), headers: { 'content-type': 'text/xml' }, ...(signal ? { signal } : {}) }),
};

it.each(Object.keys(V1_OVER_HTTP) as Array<keyof typeof V1_OVER_HTTP>)('%s: aborts a lookup\'s signal when its client goes away, frees its slot, and drops a waiting one', async (over) => {
  const sendOver = V1_OVER_HTTP[over];
  const lookups = new HeldLookups();
  const app = await appWith(lookups);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const clients = Array.from({ length: 4 }, () => new AbortController());
  const requests = clients.map((client) =>
    sendOver(url, client.signal).catch(() => 'gone'),
  );
  await expect.poll(() => lookups.held).toBe(4);
  expect(lookups.signals.map((signal) => signal.aborted)).toEqual([false, false, false, false]);
  const gaveUpWaiting = new AbortController();
  const waiting = sendOver(url, gaveUpWaiting.signal).catch(() => 'gone');
  await new Promise((resolve) => setTimeout(resolve, 100));
  gaveUpWaiting.abort();
  await waiting;
  await new Promise((resolve) => setTimeout(resolve, 500)); // the server sees the socket close

  clients.forEach((client) => client.abort());
  await Promise.all(requests);
  await expect.poll(() => lookups.signals.every((signal) => signal.aborted)).toBe(true);
  // All four slots are free again although the lookups themselves never answered, and the one
  // that gave up waiting never started.
  const next = Array.from({ length: 4 }, () => sendOver(url));
  await expect.poll(() => lookups.held).toBe(8);
  expect(lookups.signals).toHaveLength(8);
  lookups.releaseAll();
  expect((await Promise.all(next)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
});

it('answers a lookup whose turn does not come within the wait 500, SOAP and JSON alike, and frees nothing it did not hold', async () => {
  const lookups = new HeldLookups();
  const app = await appWith(lookups, 300);
  const held = [json(app), json(app), json(app), json(app)];
  await expect.poll(() => lookups.held).toBe(4);
  const answers = Promise.all([json(app), soap(app)]);
  // A garbage collection while they wait does not take their deadline with it.
  await new Promise((resolve) => setTimeout(resolve, 100));
  collectGarbage();
  const [late, lateSoap] = await answers;
  expect(late.statusCode).toBe(500);
  expect(late.json()).toEqual({ error: 'Internal error' });
  expect(faultOf(lateSoap.body)).toEqual({ code: 'soap:Server', message: 'Internal error' });
  expect(lookups.held).toBe(4); // they never started
  lookups.releaseAll();
  expect((await Promise.all(held)).map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
  const next = json(app);
  await expect.poll(() => lookups.held).toBe(1);
  lookups.releaseAll();
  expect((await next).statusCode).toBe(200);
});

// ---- the same machinery on the 2.0.0 endpoints, SOAP and JSON (one getOrderStatus each) ----

interface V2Endpoint {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers(id: string): Record<string, string>;
  payload?(id: string): string;
  /** The codes of an answer's ServiceMessages, in order. */
  codes(answer: { status: number; body: string }): number[];
  /** The HTTP status of a 999 (General Error). */
  generalErrorStatus: number;
}

const V2_ENDPOINTS: V2Endpoint[] = [
  {
    name: 'SOAP 2.0.0',
    method: 'POST',
    path: ORDER_STATUS_V2_URL,
    headers: () => ({ 'content-type': 'text/xml' }),
    payload: (id) => ossV2Request('GetOrderStatusRequest', { id, queryType: 'allOpen' }),
    codes: ({ body }) => serviceMessagesOf(body).map((m) => m.code),
    generalErrorStatus: 200,
  },
  {
    name: 'JSON 2.0.0',
    method: 'GET',
    path: `${ORDER_STATUS_JSON_V2_PATH}?queryType=allOpen`,
    headers: (id) => ({ authorization: basic(id, 'secret') }),
    codes: ({ body }) => ((JSON.parse(body) as { ServiceMessageArray?: Array<{ code: number }> }).ServiceMessageArray ?? []).map((m) => m.code),
    generalErrorStatus: 500,
  },
];

async function appWithV2(lookupWaitMs = 60_000): Promise<{ app: FastifyInstance; lookups: FakeLookupsV2 }> {
  const lookups = new FakeLookupsV2();
  lookups.hold = true;
  const accounts = { ...ACCOUNTS, other: { password: 'secret', credential: { id: 'other', scopes: ['order_status' as const], clientIds: ['C9'] } } };
  const app = await buildApp({
    logger: pino({ level: 'silent' }),
    publicBaseUrl: 'http://x',
    lookups: new FakeLookups(),
    lookupsV2: lookups,
    authenticator: new FakeAuthenticator(accounts),
    lookupsInFlightPerCredential: 4,
    lookupWaitMs,
  });
  apps.push(app);
  return { app, lookups };
}

describe.each(V2_ENDPOINTS)('$name', (endpoint) => {
  const send = async (app: FastifyInstance, id = 'both') => {
    const res = await app.inject({ method: endpoint.method, url: endpoint.path, headers: endpoint.headers(id), ...(endpoint.payload ? { payload: endpoint.payload(id) } : {}) });
    return { status: res.statusCode, body: res.body };
  };
  const sendOver = (url: string, signal?: AbortSignal) =>
    fetch(`${url}${endpoint.path}`, { method: endpoint.method, headers: endpoint.headers('both'), ...(endpoint.payload ? { body: endpoint.payload('both') } : {}), ...(signal ? { signal } : {}) });
  /** An answer (200, no service message): the lookup ran. */
  const answered = (answer: { status: number; body: string }) => ({ status: answer.status, codes: endpoint.codes(answer) });
  const ANSWERED = { status: 200, codes: [] };

  it('runs at most 4 lookups of a credential at once: the others wait their turn, and another credential is not affected', async () => {
    const { app, lookups } = await appWithV2();
    const first = [send(app), send(app), send(app), send(app)];
    await expect.poll(() => lookups.held).toBe(4);

    const waiting = [send(app), send(app)];
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lookups.held).toBe(4); // not started: no store work for them yet
    expect(lookups.signals).toHaveLength(4);

    const other = send(app, 'other'); // another credential has slots of its own
    await expect.poll(() => lookups.held).toBe(5);

    lookups.releaseAll(); // four slots free: the two waiting start
    expect((await Promise.all([...first, other])).map(answered)).toEqual([ANSWERED, ANSWERED, ANSWERED, ANSWERED, ANSWERED]);
    await expect.poll(() => lookups.held).toBe(2);
    lookups.releaseAll();
    expect((await Promise.all(waiting)).map(answered)).toEqual([ANSWERED, ANSWERED]);
    expect(lookups.signals).toHaveLength(7);
  });

  it('aborts a lookup\'s signal when its client goes away, frees its slot, and drops a waiting one', async () => {
    const { app, lookups } = await appWithV2();
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const clients = Array.from({ length: 4 }, () => new AbortController());
    const requests = clients.map((client) => sendOver(url, client.signal).catch(() => 'gone'));
    await expect.poll(() => lookups.held).toBe(4);
    expect(lookups.signals.map((signal) => signal.aborted)).toEqual([false, false, false, false]);
    const gaveUpWaiting = new AbortController();
    const waiting = sendOver(url, gaveUpWaiting.signal).catch(() => 'gone');
    await new Promise((resolve) => setTimeout(resolve, 100));
    gaveUpWaiting.abort();
    await waiting;
    await new Promise((resolve) => setTimeout(resolve, 500)); // the server sees the socket close

    clients.forEach((client) => client.abort());
    await Promise.all(requests);
    await expect.poll(() => lookups.signals.every((signal) => signal.aborted)).toBe(true);
    await expect.poll(() => lookups.held).toBe(0); // each held lookup gave up with its signal
    // All four slots are free again, and the one that gave up waiting never started.
    const next = Array.from({ length: 4 }, () => sendOver(url));
    await expect.poll(() => lookups.held).toBe(4);
    expect(lookups.signals).toHaveLength(8);
    lookups.releaseAll();
    const answers = await Promise.all(next.map(async (r) => ({ status: (await r).status, body: await (await r).text() })));
    expect(answers.map(answered)).toEqual([ANSWERED, ANSWERED, ANSWERED, ANSWERED]);
  });

  it(`answers a lookup whose turn does not come within the wait 999 (HTTP ${endpoint.generalErrorStatus}), and frees nothing it did not hold`, async () => {
    const { app, lookups } = await appWithV2(300);
    const held = [send(app), send(app), send(app), send(app)];
    await expect.poll(() => lookups.held).toBe(4);
    const late = send(app);
    // A garbage collection while it waits does not take its deadline with it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    collectGarbage();
    const lateAnswer = await late;
    expect(answered(lateAnswer)).toEqual({ status: endpoint.generalErrorStatus, codes: [999] });
    expect(lookups.signals).toHaveLength(4); // it never started
    lookups.releaseAll();
    expect((await Promise.all(held)).map(answered)).toEqual([ANSWERED, ANSWERED, ANSWERED, ANSWERED]);
    const next = send(app);
    await expect.poll(() => lookups.held).toBe(1);
    lookups.releaseAll();
    expect(answered(await next)).toEqual(ANSWERED);
  });
});

// ---- a client that goes away before its lookup asks for a slot (a slow password check) ----

/** An authenticator whose checks each take `delayMs` (a first login's password hash, on a busy machine). */
class SlowAuthenticator extends FakeAuthenticator {
  constructor(private readonly delayMs: number) {
    super({ ...ACCOUNTS });
  }
  override async verify(...args: Parameters<FakeAuthenticator['verify']>) {
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return super.verify(...args);
  }
}

it.each(Object.keys(V1_OVER_HTTP) as Array<keyof typeof V1_OVER_HTTP>)('%s: a client that goes away while its password is checked takes no lookup slot, and its credential is served after', async (over) => {
  const sendOver = V1_OVER_HTTP[over];
  const lookups = new HeldLookups();
  const app = await buildApp({ logger: pino({ level: 'silent' }), publicBaseUrl: 'http://x', lookups, authenticator: new SlowAuthenticator(400), lookupsInFlightPerCredential: 4, lookupWaitMs: 60_000 });
  apps.push(app);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const clients = Array.from({ length: 4 }, () => new AbortController());
  const gone = clients.map((client) => sendOver(url, client.signal).catch(() => 'gone'));
  await new Promise((resolve) => setTimeout(resolve, 100));
  clients.forEach((client) => client.abort()); // mid password check: no lookup has asked for a slot yet
  await Promise.all(gone);
  await new Promise((resolve) => setTimeout(resolve, 700)); // the checks end; a lookup would start now
  lookups.releaseAll(); // any that did start answer (into closed sockets)
  const next = Array.from({ length: 4 }, () => sendOver(url));
  await expect.poll(() => lookups.held, { timeout: 3_000 }).toBe(4);
  lookups.releaseAll();
  expect((await Promise.all(next)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
});
