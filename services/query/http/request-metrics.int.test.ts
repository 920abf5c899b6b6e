// The request metrics where a request ends without its answer, over real sockets (inject has no
// socket to close): a partner that leaves before the first byte, a body over the limit, a body too
// slow. In the integration tier: the server's notice of a closed socket and its request timeout
// are waited for on the wall clock (docs/development.md, test tiers).
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { basic } from '../../../test/support/json-requests.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups, FakeLookupsV2 } from '../../../test/support/fake-ports.js';
import { faultOf, ORDER_STATUS_URL, ORDER_STATUS_V2_URL, ossV2Request } from '../../../test/support/soap-requests.js';
import { createQueryMetrics } from '../../plumbing/metrics/query-metrics.js';
import { buildOpsApp } from '../../plumbing/ops-port/ops-server.js';
import { buildApp } from '../app.js';
import { ORDER_STATUS_JSON_V2_PATH } from '../versions/2.0.0/json/plugin.js';
import type { ServerLimits } from './server-limits.js';

const apps: FastifyInstance[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** The whole app with its metrics on a real port, its 2.0.0 lookups held until their signal aborts, and the operators' scrape. */
async function listening(serverLimits: Partial<ServerLimits> = {}) {
  const metrics = createQueryMetrics();
  const lookupsV2 = new FakeLookupsV2();
  lookupsV2.hold = true;
  const app = await buildApp({
    logger: pino({ level: 'silent' }),
    publicBaseUrl: 'http://x',
    lookups: new FakeLookups(),
    lookupsV2,
    authenticator: new FakeAuthenticator(ACCOUNTS),
    metrics,
    serverLimits,
  });
  const ops = await buildOpsApp({ logger: pino({ level: 'silent' }), registry: metrics.registry, readinessCheck: async () => {} });
  apps.push(app, ops);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const scrape = async () => (await ops.inject({ method: 'GET', url: '/metrics' })).body;
  return { port: Number(new URL(url).port), server: app.server, lookupsV2, scrape };
}

/** The request counters with a count, as scraped: each request once, under its outcome. */
const counted = (scrape: string) => scrape.split('\n').filter((line) => line.startsWith('ossn_query_requests_total{') && !line.endsWith(' 0'));
const durations = (scrape: string) =>
  scrape
    .split('\n')
    .filter((line) => line.startsWith('ossn_query_request_duration_seconds_count{'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);

function open(port: number): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', () => undefined);
    sockets.push(socket);
  });
}

/** What the server wrote on `socket` until it closed it. */
function readUntilClosed(socket: Socket): Promise<string> {
  let read = '';
  socket.on('data', (chunk: Buffer) => (read += chunk.toString()));
  return new Promise((resolve) => socket.once('close', () => resolve(read)));
}

/** A request as a partner writes it on its socket. */
function httpRequest(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body = ''): string {
  const lines = Object.entries({ host: 'x', ...headers, ...(method === 'POST' ? { 'content-length': String(Buffer.byteLength(body)) } : {}) }).map(([k, v]) => `${k}: ${v}`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

const V2_STATUS = [
  {
    name: 'SOAP 2.0.0',
    request: httpRequest('POST', ORDER_STATUS_V2_URL, { 'content-type': 'text/xml' }, ossV2Request('GetOrderStatusRequest', { queryType: 'allOpen' })),
    series: 'ossn_query_requests_total{interface="soap",operation="v2/getOrderStatus",query_type="allOpen",outcome="disconnected"} 1',
  },
  {
    name: 'JSON 2.0.0',
    request: httpRequest('GET', `${ORDER_STATUS_JSON_V2_PATH}?queryType=allOpen`, { authorization: basic('both', 'secret') }),
    series: 'ossn_query_requests_total{interface="json",operation="v2/getOrderStatus",query_type="allOpen",outcome="disconnected"} 1',
  },
];

describe.each(V2_STATUS)('$name: a partner that leaves before the first byte, its lookup running', ({ request, series }) => {
  it('is counted once, as disconnected, with no duration, and its lookup is aborted', async () => {
    const { port, lookupsV2, scrape } = await listening();
    const partner = await open(port);
    const read = readUntilClosed(partner);
    partner.write(request);
    await vi.waitFor(() => expect(lookupsV2.held).toBe(1), { timeout: 10_000 });
    partner.destroy();
    expect(await read).toBe(''); // not a byte of an answer
    await vi.waitFor(() => expect(lookupsV2.signals[0]?.aborted).toBe(true), { timeout: 10_000 });
    // The held lookup gives up with its signal's reason: its failure has come back before the count is read.
    await vi.waitFor(() => expect(lookupsV2.held).toBe(0), { timeout: 10_000 });
    await vi.waitFor(async () => expect(counted(await scrape())).not.toEqual([]), { timeout: 10_000 });
    const after = await scrape();
    expect(counted(after)).toEqual([series]);
    expect(durations(after)).toBe(0);
  });
});

/** The status line of what the server wrote, and its SOAP fault if any. */
function answerOf(written: string) {
  return { status: written.slice(0, written.indexOf('\r\n')), fault: faultOf(written.slice(written.indexOf('\r\n\r\n') + 4)) };
}

/** A SOAP request's start, its body to come: `length` bytes of it announced. */
const soapHeaders = (path: string, length: number) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: ${length}\r\n\r\n`;

/** Sends `mib` MiB on `socket` as fast as it takes them, until it closes. */
function flood(socket: Socket, mib: number): void {
  const chunk = Buffer.alloc(1024 * 1024, 'a');
  const send = (left: number): void => {
    if (left === 0 || socket.destroyed) return;
    if (socket.write(chunk)) send(left - 1);
    else socket.once('drain', () => send(left - 1));
  };
  send(mib);
}

// The SOAP operation is named in the body: one never read is counted under operation "unknown".
const REFUSED_SOAP = 'ossn_query_requests_total{interface="soap",operation="unknown",query_type="none",outcome="bad_request"} 1';

describe.each([
  { name: 'SOAP 1.0.0', path: ORDER_STATUS_URL },
  { name: 'SOAP 2.0.0', path: ORDER_STATUS_V2_URL },
])('$name: a body over the body limit', ({ path }) => {
  it('is counted once, as bad_request, and the partner reads its fault', async () => {
    const { port, scrape } = await listening();
    const partner = await open(port);
    const written = readUntilClosed(partner);
    partner.write(soapHeaders(path, 64 * 1024) + 'a'.repeat(64 * 1024)); // the limit is 8 KiB (docs/operations.md, Limits)
    expect(answerOf(await written)).toEqual({ status: 'HTTP/1.1 500 Internal Server Error', fault: { code: 'soap:Client', message: 'Malformed SOAP request' } });
    await vi.waitFor(async () => expect(counted(await scrape())).not.toEqual([]), { timeout: 10_000 });
    const after = await scrape();
    expect(counted(after)).toEqual([REFUSED_SOAP]);
    expect(durations(after)).toBe(1); // answered
  });
});

it('a body past what the server drains (16 MiB) is dropped unanswered, and still counted once as bad_request', async () => {
  const { port, scrape } = await listening();
  const partner = await open(port);
  const written = readUntilClosed(partner);
  partner.write(soapHeaders(ORDER_STATUS_URL, 64 * 1024 * 1024));
  flood(partner, 64);
  expect(await written).toBe('');
  await vi.waitFor(async () => expect(counted(await scrape())).not.toEqual([]), { timeout: 10_000 });
  expect(counted(await scrape())).toEqual([REFUSED_SOAP]);
}, 30_000);

describe('a body too slow', () => {
  // A short request timeout, checked every 100 ms, so that the test need not wait the 5 s default.
  const SHORT: Partial<ServerLimits> = { headersTimeoutMs: 800, requestTimeoutMs: 1_500, checkIntervalMs: 100 };

  it('is answered 408 by the server and counted once, as bad_request: the partner was refused, it did not leave', async () => {
    const { port, scrape } = await listening(SHORT);
    const partner = await open(port);
    const written = readUntilClosed(partner);
    partner.write(soapHeaders(ORDER_STATUS_URL, 6_000));
    const dripping = setInterval(() => partner.writable && partner.write('<'), 200);
    try {
      expect(answerOf(await written).status).toBe('HTTP/1.1 408 Request Timeout');
    } finally {
      clearInterval(dripping);
    }
    await vi.waitFor(async () => expect(counted(await scrape())).not.toEqual([]), { timeout: 10_000 });
    const after = await scrape();
    expect(counted(after)).toEqual([REFUSED_SOAP]);
    expect(durations(after)).toBe(1); // answered, if by the server: the 408 at the request timeout
  });

  it('but a partner that leaves in the middle of its body is counted once, as disconnected', async () => {
    const { port, server, scrape } = await listening(SHORT);
    const partner = await open(port);
    const written = readUntilClosed(partner);
    const begun = once(server, 'request');
    partner.write(soapHeaders(ORDER_STATUS_URL, 6_000) + '<soap:Envelope');
    await begun;
    partner.destroy(); // leaves before the rest of its body, well before the request timeout
    expect(await written).toBe('');
    await vi.waitFor(async () => expect(counted(await scrape())).not.toEqual([]), { timeout: 10_000 });
    expect(counted(await scrape())).toEqual(['ossn_query_requests_total{interface="soap",operation="unknown",query_type="none",outcome="disconnected"} 1']);
  });
});
