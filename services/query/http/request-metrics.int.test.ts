// The request metrics where a request ends without its answer, over real sockets (inject has no
// socket to close): a partner that leaves before the first byte, a body over the limit. In the
// integration tier: the server's notice of a closed socket is waited for on the wall clock
// (docs/development.md, test tiers).
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
  return { port: Number(new URL(url).port), lookupsV2, scrape };
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
