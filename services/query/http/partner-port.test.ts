// The partner port over real sockets, where the behaviour lives in the socket: clients that go
// away mid-body.
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { buildApp, type AppDependencies } from '../app.js';
import { ACCOUNTS, FakeAuthenticator, FakeLookups, FakeLookupsV2 } from '../../../test/support/fake-ports.js';
import { logLines } from '../../../test/support/log-lines.js';
import { ORDER_STATUS_URL, ORDER_STATUS_V2_URL } from '../../../test/support/soap-requests.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** The whole app listening on loopback, its log kept. */
async function listening(deps: Partial<AppDependencies> = {}) {
  const log = logLines();
  const app = await buildApp({
    logger: pino({ level: 'debug' }, log),
    publicBaseUrl: 'http://x',
    lookups: new FakeLookups(),
    lookupsV2: new FakeLookupsV2(),
    authenticator: new FakeAuthenticator(ACCOUNTS),
    ...deps,
  });
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, log, port: (app.server.address() as { port: number }).port };
}

/** Opens a connection, sends `head` and part of a body, and closes it `afterMs` later. */
function abortMidBody(port: number, path: string, afterMs = 50): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 1000\r\n\r\n<soapenv:Envelope`);
      setTimeout(() => socket.destroy(), afterMs);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

it.each([ORDER_STATUS_URL, ORDER_STATUS_V2_URL])('a SOAP body aborted mid-way (%s) is logged at info, never as an error', async (path) => {
  const { log, port } = await listening();
  for (let n = 0; n < 3; n++) await abortMidBody(port, path);
  await expect.poll(() => log.lines.filter((line) => line.msg === 'SOAP request aborted by the client').length, { timeout: 5_000 }).toBe(3);
  expect(log.atLeast('warn')).toEqual([]);
});
