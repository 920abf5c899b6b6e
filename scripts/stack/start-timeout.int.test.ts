// A server that starts but never answers: the start's error gives the machine's load and quotes the
// end of its log, the only account of why where the log goes with its machine (a CI run's clone),
// and stops what it started.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Server } from './server.js';
import { ensureServers } from './stack.js';
import { StackError } from './stack-error.js';

const stackDir = mkdtempSync(join(tmpdir(), 'ossn-start-timeout-'));

afterAll(() => {
  rmSync(stackDir, { recursive: true, force: true });
});

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

it('names the server, the machine\'s load, its log and the log\'s last lines when a started server does not answer in time', { timeout: 60_000 }, async () => {
  const port = await freePort();
  const silent: Server = {
    name: 'silent',
    ports: [{ port, variable: 'SILENT_PORT' }],
    address: `127.0.0.1:${port}`,
    startTimeoutMs: 5_000,
    stopGraceMs: 2_000,
    prepare: async () => undefined,
    // Says where it stands, with a stack frame, then waits for ever without listening.
    launch: async () => ({
      command: process.execPath,
      args: ['-e', "console.log('loading logs');console.log('  at Loader.load(Loader.java:1)');console.log('registration refused: DUPLICATE_BROKER_REGISTRATION');setInterval(()=>{},1000)"],
    }),
    answers: async () => false,
  };
  const paths = {
    repoRoot: stackDir,
    cacheDir: join(stackDir, 'cache'),
    stackDir,
    logsDir: join(stackDir, 'logs'),
    stateFile: join(stackDir, 'state.json'),
    envFile: join(stackDir, 'env'),
    lockFile: join(stackDir, 'lock'),
  };

  const failure = await ensureServers({ paths, servers: [silent], env: { KAFKA_BROKERS: '', MONGODB_URI: '', REDIS_URL: '' } }, { log: () => undefined }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(StackError);
  const message = (failure as Error).message;
  expect(message).toMatch(new RegExp(`^silent did not answer on 127\\.0\\.0\\.1:${port} within 5 s \\(load average \\d+\\.\\d over the last minute\\); see `));
  expect(message).toMatch(/logs\/silent\.log, which ends:\n {2}loading logs\n {2}registration refused: DUPLICATE_BROKER_REGISTRATION$/);
});
