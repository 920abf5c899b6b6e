// Every process with a port fails fast on a port it cannot have, naming the variable, and stops on
// the first SIGTERM within its stop deadline whatever failed at start. Real processes, real sockets.
import { createServer, type Server } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { freePort } from '../../test/support/free-port.js';
import { startOssn as start, type OssnProcess } from '../../test/support/ossn-cli.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';

const env = testEnvironment();

const held: Server[] = [];
const started: OssnProcess[] = [];
afterEach(async () => {
  // One that did not end as it should (the behaviour under test missing) must not outlive the test.
  for (const ossn of started.splice(0)) if (ossn.child.exitCode === null && ossn.child.signalCode === null) ossn.child.kill('SIGKILL');
  await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function startOssn(...args: Parameters<typeof start>): OssnProcess {
  const ossn = start(...args);
  started.push(ossn);
  return ossn;
}

/** A port another process (this one) listens on. */
async function takenPort(): Promise<number> {
  const server = createServer();
  held.push(server);
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  return (server.address() as { port: number }).port;
}

/** The variables of a query service and a projector on this test's servers, every port free unless given. */
async function variables(overrides: Record<string, string>): Promise<Record<string, string>> {
  const names = uniqueNames('ports');
  return {
    KAFKA_BROKERS: env.kafkaBrokers.join(','),
    MONGODB_URI: env.mongodbUri,
    MONGODB_DATABASE: names.database,
    OSSN_TOPIC: names.topic,
    OSSN_CONSUMER_GROUP: names.group,
    OSSN_TOPIC_PARTITIONS: '1',
    PORT: String(await freePort()),
    OPS_PORT: String(await freePort()),
    OSSN_METRICS_PORT: String(await freePort()),
    LOG_LEVEL: 'info',
    ...overrides,
  };
}

/** How long a process took to end, and how. */
async function timedExit(exit: Promise<number | NodeJS.Signals | null>): Promise<{ code: number | NodeJS.Signals | null; ms: number }> {
  const startedAt = Date.now();
  const code = await exit;
  return { code, ms: Date.now() - startedAt };
}

it.each([
  ['projector', 'OSSN_METRICS_PORT'],
  ['serve', 'OPS_PORT'],
  ['serve', 'PORT'],
  ['start', 'OSSN_METRICS_PORT'],
])('ossn %s with %s taken ends at once, non-zero, with one line naming the variable', { timeout: 60_000 }, async (command, variable) => {
  const port = await takenPort();
  const ossn = startOssn([command], await variables({ [variable]: String(port) }));
  const { code } = await timedExit(ossn.exit);
  expect(code).toBe(1);
  const lines = ossn
    .output()
    .split('\n')
    .filter((line) => line.includes(`${variable}=${port}`));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/another process listens on it/);
  expect(ossn.output()).not.toContain('projector consuming');
});

it('ossn serve stops on the first SIGTERM within its stop deadline while the store does not answer', { timeout: 60_000 }, async () => {
  const ossn = startOssn(['serve'], await variables({ MONGODB_URI: 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=60000', OSSN_STOP_TIMEOUT_MS: '2000' }));
  await expect.poll(ossn.output, { timeout: 30_000, interval: 100 }).toContain('query service listening');
  ossn.child.kill('SIGTERM');
  const { code, ms } = await timedExit(ossn.exit);
  expect(code).toBe(0);
  expect(ms).toBeLessThan(2_000 + 1_000);
});

it('ossn projector stops on the first SIGTERM while Kafka does not answer, its probes port bound', { timeout: 60_000 }, async () => {
  const ossn = startOssn(['projector'], await variables({ KAFKA_BROKERS: '127.0.0.1:1', OSSN_STOP_TIMEOUT_MS: '2000' }));
  await expect.poll(ossn.output, { timeout: 30_000, interval: 100 }).toContain('projector metrics and probes listening');
  ossn.child.kill('SIGTERM');
  const { code, ms } = await timedExit(ossn.exit);
  expect(code).toBe(0);
  expect(ms).toBeLessThan(3_000);
});
