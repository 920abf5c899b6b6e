// The operators' port: /metrics, /healthz and /readyz are served there (loopback by default), and
// not on the partner port, where anyone could read the counters or make each probe ping the store.
import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sample } from '../../test/support/metrics-scrape.js';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from '../../test/support/free-port.js';
import { servers, uniqueNames } from '../../test/support/servers.js';
import { readQueryConfig } from '../config/config.js';
import { CredentialStore, credentialsCollection } from '../adapters/mongodb/credential-store.js';
import { hashPassword } from '../domain/credentials/password-hash.js';
import { createLogger } from '../plumbing/logging/logger.js';
import { connectMongo } from '../adapters/mongodb/connect.js';
import { ensureIndexes, readModelCollections } from '../adapters/mongodb/documents.js';
import { basic } from '../../test/support/json-requests.js';
import { startQueryService, type RunningQueryService } from './server.js';

const env = servers();
const names = uniqueNames('ops-port');
let mongo: MongoClient;
let service: RunningQueryService;

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'ops-port-test');
  const db = mongo.db(names.database);
  await ensureIndexes(readModelCollections(db, 1));
  await new CredentialStore(credentialsCollection(db)).add({ id: 'ops-acme', passwordHash: await hashPassword('pw'), scopes: ['order_status'], clientIds: ['C1'] });
  const config = readQueryConfig({ MONGODB_URI: env.mongodbUri, MONGODB_DATABASE: names.database, PORT: '0', OPS_PORT: '0' });
  service = await startQueryService(config, createLogger('ossn-query', 'silent'));
});

afterAll(async () => {
  await service?.close();
  await mongo.db(names.database).dropDatabase();
  await mongo.close();
});

it('serves the probes and the metrics on the operators\' port only, on loopback by default', async () => {
  expect(new URL(service.opsUrl).hostname).toBe('127.0.0.1');
  expect(service.opsUrl).not.toBe(service.url);

  const answered = await fetch(`${service.url}/api/partners/v1/orders/status?queryType=4`, { headers: { authorization: basic('ops-acme', 'pw') } });
  expect(answered.status).toBe(200);

  for (const path of ['/metrics', '/healthz', '/readyz']) {
    const partnerPort = await fetch(`${service.url}${path}`);
    expect(partnerPort.status, path).toBe(404);
    expect(await partnerPort.json()).toEqual({ error: 'Not found' });
  }

  expect((await fetch(`${service.opsUrl}/healthz`)).status).toBe(200);
  await expect.poll(async () => (await fetch(`${service.opsUrl}/readyz`)).status, { timeout: 15_000, interval: 200 }).toBe(200);
  const scrape = await (await fetch(`${service.opsUrl}/metrics`)).text();
  expect(sample(scrape, 'ossn_query_requests_total{interface="json",operation="getOrderStatus",query_type="4",outcome="ok"}')).toBe(1);
});

it('exports what stock dashboards read: the Node.js and process metrics unprefixed, ossn_build_info, and whether it counts the rate limits alone', async () => {
  const scrape = await (await fetch(`${service.opsUrl}/metrics`)).text();
  for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes']) {
    expect(scrape, name).toMatch(new RegExp(`^${name}(\\{[^}]*\\})? `, 'm'));
  }
  expect(scrape).not.toMatch(/^ossn_query_process_|^ossn_query_nodejs_/m);
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  expect(scrape).toMatch(new RegExp(`^ossn_build_info\\{version="${version}",node_version="${process.version}",commit="([0-9a-f]{12}|unknown)"\\} 1$`, 'm'));
  // Started without REDIS_URL: it counts on its own.
  expect(sample(scrape, 'ossn_query_rate_limit_local')).toBe(1);
});

it('is given its address and port by OPS_HOST and OPS_PORT, each checked at start', () => {
  const config = readQueryConfig({ MONGODB_URI: env.mongodbUri, OPS_HOST: '0.0.0.0', OPS_PORT: '9999' });
  expect([config.opsHost, config.opsPort]).toEqual(['0.0.0.0', 9999]);
  expect(() => readQueryConfig({ MONGODB_URI: env.mongodbUri, OPS_PORT: 'ninety' })).toThrow(/OPS_PORT/);
});

it('leaves nothing listening when its partner port cannot be had', async () => {
  const partnerPort = new URL(service.url).port;
  const opsPort = String(await freePort());
  const config = readQueryConfig({ MONGODB_URI: env.mongodbUri, MONGODB_DATABASE: names.database, PORT: partnerPort, OPS_PORT: opsPort });
  await expect(startQueryService(config, createLogger('ossn-query', 'silent'))).rejects.toThrow(/EADDRINUSE/);
  // Its operators' port was opened first, and is closed again: another process can have it.
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(Number(opsPort), '127.0.0.1', resolve));
  await new Promise((resolve) => server.close(resolve));
});

it('says on /readyz and in a metric when the rate limits are counted in this instance alone, and when they are shared again', async () => {
  // The first service has no REDIS_URL.
  expect(await (await fetch(`${service.opsUrl}/readyz`)).json()).toEqual({ status: 'ready', details: { rateLimits: 'counted in this instance alone: no REDIS_URL' } });
  expect(sample(await (await fetch(`${service.opsUrl}/metrics`)).text(), 'ossn_query_rate_limit_local')).toBe(1);

  const shared = await startQueryService(
    readQueryConfig({ MONGODB_URI: env.mongodbUri, MONGODB_DATABASE: names.database, PORT: '0', OPS_PORT: '0', REDIS_URL: env.redisUrl }),
    createLogger('ossn-query', 'silent'),
  );
  try {
    await expect.poll(async () => (await (await fetch(`${shared.opsUrl}/readyz`)).json()) as unknown, { timeout: 15_000, interval: 200 }).toEqual({ status: 'ready' });
    expect(sample(await (await fetch(`${shared.opsUrl}/metrics`)).text(), 'ossn_query_rate_limit_local')).toBe(0);
  } finally {
    await shared.close();
  }
});
