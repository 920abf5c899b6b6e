import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultStateCacheSize, type ProjectorConfig } from '../config/config.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { freePort } from '../../test/support/free-port.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const tsxLoader = import.meta.resolve('tsx');

// A process of its own that starts a projector, gives the start up after `abortAfterMs` and
// returns: it must then end by itself (nothing it opened left open to keep it alive).
const script = `
const { startProjector } = await import(${JSON.stringify(new URL('./run.ts', import.meta.url).href)});
const { createLogger } = await import(${JSON.stringify(new URL('../plumbing/logging/logger.ts', import.meta.url).href)});
const config = JSON.parse(process.env.PROJECTOR_CONFIG);
const stop = new AbortController();
setTimeout(() => stop.abort(new Error('start given up')), Number(process.env.ABORT_AFTER_MS));
try {
  await startProjector(config, createLogger('start-given-up', 'silent'), { signal: stop.signal });
  console.log('started');
} catch (error) {
  console.log('start rejected: ' + error.message);
}
`;

/** Runs the script; resolves with its output and how it ended, or with `alive` when it is still running `graceMs` after the start was given up. */
function startAndGiveUp(config: ProjectorConfig, abortAfterMs: number, graceMs: number): Promise<{ output: string; code: number | null; alive: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', tsxLoader, '--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, PROJECTOR_CONFIG: JSON.stringify(config), ABORT_AFTER_MS: String(abortAfterMs) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let timer: NodeJS.Timeout | undefined;
    const watch = (chunk: Buffer) => {
      output += chunk.toString();
      if (!timer && output.includes('start rejected')) {
        timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve({ output, code: null, alive: true });
        }, graceMs);
      }
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ output, code, alive: false });
    });
  });
}

function projectorConfig(label: string, overrides: Partial<ProjectorConfig>): ProjectorConfig {
  const env = testEnvironment();
  const names = uniqueNames(label);
  return {
    logLevel: 'silent',
    store: { mongodbUri: env.mongodbUri, database: names.database, readModelVersion: 1 },
    kafkaBrokers: env.kafkaBrokers,
    topic: names.topic,
    topicPartitions: 1,
    consumerGroup: `${names.group}-v1`,
    stateCacheSize: defaultStateCacheSize,
    ...overrides,
  };
}

describe('a projector start given up after MongoDB answered', () => {
  it('closes the MongoDB client and the dead-letter producer it had opened: the process ends by itself', { timeout: 60_000 }, async () => {
    // Kafka answers, the producer connects, the consumer never starts (a group Kafka refuses): the
    // start waits, retrying, until it is given up.
    const run = await startAndGiveUp(projectorConfig('start-given-up-consumer', { consumerGroup: '' }), 4_000, 10_000);
    expect(run.output).toContain('start rejected');
    expect(run.alive).toBe(false);
    expect(run.code).toBe(0);
  });

  it('closes the MongoDB client when Kafka is away: the process ends by itself', { timeout: 120_000 }, async () => {
    const run = await startAndGiveUp(projectorConfig('start-given-up-kafka', { kafkaBrokers: [`127.0.0.1:${await freePort()}`] }), 2_000, 10_000);
    expect(run.output).toContain('start rejected');
    expect(run.alive).toBe(false);
    expect(run.code).toBe(0);
  });
});
