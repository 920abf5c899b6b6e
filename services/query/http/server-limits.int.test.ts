// The partner port's time and connection limits, over real sockets: a slow body, connections that
// never send a request, and more connections than the cap. In the integration tier: Node's own
// server timers decide, on the wall clock (docs/development.md, test tiers).
import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, expect, it } from 'vitest';
import { pino } from 'pino';
import { buildApp } from '../app.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups } from '../../../test/support/fake-ports.js';
import { ORDER_STATUS_URL } from '../../../test/support/soap-requests.js';
import type { ServerLimits } from './server-limits.js';

const apps: FastifyInstance[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

// Short limits, checked every 100 ms, so that the test need not wait Node's default 30 s.
const SHORT: Partial<ServerLimits> = { headersTimeoutMs: 800, requestTimeoutMs: 1_500, keepAliveTimeoutMs: 500, checkIntervalMs: 100 };

async function listening(serverLimits: Partial<ServerLimits>): Promise<number> {
  const app = await buildApp({
    logger: pino({ level: 'silent' }),
    publicBaseUrl: 'http://x',
    lookups: new FakeLookups(),
    authenticator: new FakeAuthenticator(ACCOUNTS),
    serverLimits,
  });
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as { port: number }).port;
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', () => undefined);
    sockets.push(socket);
  });
}

/** Milliseconds until the server closed the socket, or 'open' after `ms`. */
function closedWithin(socket: Socket, ms: number): Promise<number | 'open'> {
  const started = Date.now();
  return new Promise((resolve) => {
    if (socket.destroyed || socket.readableEnded) return resolve(0);
    const timer = setTimeout(() => resolve('open'), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
    socket.resume();
  });
}

it('cuts off a SOAP body sent one byte at a time once the request timeout has passed', async () => {
  const port = await listening(SHORT);
  const socket = await open(port);
  socket.write(`POST ${ORDER_STATUS_URL} HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 60000\r\n\r\n`);
  const dripping = setInterval(() => socket.writable && socket.write('<'), 200);
  try {
    const closed = await closedWithin(socket, 5_000);
    expect(closed).not.toBe('open');
    expect(closed).toBeLessThan(3_000);
  } finally {
    clearInterval(dripping);
  }
});

it('closes connections that never send a request once the headers timeout has passed', async () => {
  const port = await listening(SHORT);
  const idle = await Promise.all(Array.from({ length: 10 }, () => open(port)));
  const closed = await Promise.all(idle.map((socket) => closedWithin(socket, 5_000)));
  expect(closed.every((ms) => ms !== 'open' && ms < 2_500)).toBe(true);
});

it('refuses connections beyond its maximum at once, and serves again once they are gone', async () => {
  const port = await listening({ maxConnections: 3 });
  const held = await Promise.all([open(port), open(port), open(port)]);
  const extra = await open(port);
  expect(await closedWithin(extra, 1_000)).not.toBe('open');
  expect(await closedWithin(held[0]!, 200)).toBe('open');
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const response = await fetch(`http://127.0.0.1:${port}${ORDER_STATUS_URL}?wsdl`);
  expect(response.status).toBe(200);
});

it('closes a kept-alive connection idle for the keep-alive timeout after its request was answered', async () => {
  const port = await listening(SHORT);
  const socket = await open(port);
  const answered = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString())));
  socket.write(`GET ${ORDER_STATUS_URL}?wsdl HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`);
  expect(await answered).toMatch(/^HTTP\/1\.1 200/);
  const closedAfter = await closedWithin(socket, 3_000);
  expect(closedAfter).not.toBe('open');
  expect(closedAfter).toBeGreaterThanOrEqual(300); // not at once: kept alive for a while
});
