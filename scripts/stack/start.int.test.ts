// `npm start`'s seam (start.ts, local-servers.ts) against the test run's servers: the servers given
// are used as they are, a process manager's SIGTERM reaches `ossn start` and its exit code comes
// back, a half-given environment is refused, and servers found running are never stopped by it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { startNpmStart, type OssnProcess } from '../../test/support/ossn-cli.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { connectMongo } from '../../services/adapters/mongodb/connect.js';
import { readModelCollections } from '../../services/adapters/mongodb/documents.js';
import { localServers } from './local-servers.js';
import { stackStatus } from './stack.js';
import { StackError } from './stack-error.js';

const env = testEnvironment();
const names = uniqueNames('npm-start');
const cwd = mkdtempSync(join(tmpdir(), 'ossn-npm-start-'));
let started: OssnProcess | undefined;

afterAll(async () => {
  if (started && started.child.exitCode === null && started.child.signalCode === null) {
    started.child.kill('SIGKILL');
    await started.exit.catch(() => undefined);
  }
  rmSync(cwd, { recursive: true, force: true });
});

it('runs ossn start on the servers given, passes a SIGTERM sent to it alone on, and ends with ossn start\'s exit code', { timeout: 300_000 }, async () => {
  started = startNpmStart(
    {
      KAFKA_BROKERS: env.kafkaBrokers.join(','),
      MONGODB_URI: env.mongodbUri,
      MONGODB_DATABASE: names.database,
      REDIS_URL: env.redisUrl,
      OSSN_TOPIC: names.topic,
      OSSN_TOPIC_PARTITIONS: '1',
      OSSN_CONSUMER_GROUP: `${names.group}-v1`,
      PORT: '0',
      OPS_PORT: '0',
      OSSN_METRICS_PORT: '0',
    },
    { cwd },
  );
  await expect.poll(started.output, { timeout: 240_000, interval: 200 }).toContain('Ctrl-C stops everything.');
  // On the servers given: its demo orders are in the database named.
  const mongo = await connectMongo(env.mongodbUri, 'npm-start-test');
  try {
    const { orderStatus } = readModelCollections(mongo.db(names.database), 1);
    await expect.poll(() => orderStatus.countDocuments(), { timeout: 60_000, interval: 500 }).toBeGreaterThan(0);
  } finally {
    await mongo.close();
  }
  // A process manager signals the script alone (not its group): `ossn start` must hear of it.
  started.child.kill('SIGTERM');
  expect(await Promise.race([started.exit, sleep(60_000).then(() => 'still running a minute after SIGTERM')])).toBe(0);
  expect(started.output()).toContain('stopping');
});

it('refuses a half-given environment instead of putting the local stack\'s addresses over it', async () => {
  const refused = await localServers({ KAFKA_BROKERS: '127.0.0.1:1' }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(StackError);
  expect((refused as Error).message).toMatch(/KAFKA_BROKERS set without MONGODB_URI/);
});

// Only the local stack is started by this seam; given or Docker servers are never its to stop.
it.runIf(env.source === 'local-stack')('leaves the local stack running when it found it running', { timeout: 120_000 }, async () => {
  const { KAFKA_BROKERS: _k, MONGODB_URI: _m, REDIS_URL: _r, ...withoutServers } = process.env;
  const servers = await localServers(withoutServers);
  expect(servers.env.MONGODB_URI).toBe(env.mongodbUri);
  await servers.release();
  expect((await stackStatus({ env: withoutServers })).map((s) => [s.name, s.answers])).toEqual([
    ['kafka', true],
    ['mongodb', true],
    ['redis', true],
  ]);
});
