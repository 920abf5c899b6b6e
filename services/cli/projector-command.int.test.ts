// `ossn projector` as a container runs it: SIGTERM stops it cleanly, also while it is still starting.
import { spawn, type ChildProcess } from 'node:child_process';
import { expect, it } from 'vitest';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';

const env = testEnvironment();

function projectorProcess(brokers = env.kafkaBrokers.join(',')): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const names = uniqueNames('projector-command');
  const child = spawn(process.execPath, ['bin/ossn.mjs', 'projector'], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: {
      ...process.env,
      KAFKA_BROKERS: brokers,
      MONGODB_URI: env.mongodbUri,
      MONGODB_DATABASE: names.database,
      OSSN_TOPIC: names.topic,
      OSSN_TOPIC_PARTITIONS: '1',
      OSSN_CONSUMER_GROUP: names.group,
      LOG_LEVEL: 'info',
      OSSN_METRICS_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => text, exit };
}

it('stops on SIGTERM once consuming, with exit code 0', { timeout: 90_000 }, async () => {
  const projector = projectorProcess();
  await expect.poll(projector.output, { timeout: 60_000, interval: 100 }).toContain('projector consuming');
  projector.child.kill('SIGTERM');
  expect(await projector.exit).toBe(0);
  expect(projector.output()).toContain('stopping after the current batch');
});

it('stops on SIGTERM while it cannot reach Kafka yet, with exit code 0', { timeout: 90_000 }, async () => {
  const projector = projectorProcess('127.0.0.1:1'); // nothing listens there: the start keeps retrying
  await expect.poll(projector.output, { timeout: 60_000, interval: 100 }).toMatch(/kafkajs|ECONNREFUSED|Connection/i);
  projector.child.kill('SIGTERM');
  expect(await projector.exit).toBe(0);
  expect(projector.output()).toContain('stopping while starting');
  expect(projector.output()).not.toContain('projector consuming');
});
