import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStackConfig, type StackConfig } from '../../scripts/stack/config.js';
import { kafkaServer, stackKafkaNode } from '../../scripts/stack/kafka.js';
import { spawnDetached, stopGroup, type Started } from '../../scripts/stack/process.js';
import { waitFor } from '../../scripts/stack/wait.js';
import { freePort } from './free-port.js';

/**
 * A Kafka broker of one test file's own, to restart or freeze without disturbing the test files
 * that share the run's broker. It is the local stack's broker (scripts/stack/kafka.ts: same
 * classpath, same settings) on free ports with its own data directory, so it needs what the local
 * stack needs (Java 17+, Maven for the first download), whichever servers the run uses otherwise.
 */
export interface DedicatedKafka {
  brokers: string[];
  /** Stops the broker (SIGTERM, as an operator would) and starts it again on its data. */
  restart(): Promise<void>;
  /** SIGSTOP: sockets stay open, nothing is answered. */
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

export async function startDedicatedKafka(): Promise<DedicatedKafka> {
  const shared = readStackConfig();
  const stackDir = mkdtempSync(join(tmpdir(), 'ossn-dedicated-kafka-'));
  const config: StackConfig = {
    ...shared,
    stackDir,
    logsDir: join(stackDir, 'logs'),
    stateFile: join(stackDir, 'state.json'),
    envFile: join(stackDir, 'env'),
    lockFile: join(stackDir, 'lock'),
    ports: { ...shared.ports, kafka: await freePort(), kafkaController: await freePort() },
  };
  mkdirSync(config.logsDir, { recursive: true });
  const server = kafkaServer(config, stackKafkaNode(config));
  const logFile = join(config.logsDir, 'kafka.log');
  const ctx = { config, log: () => undefined, signal: new AbortController().signal };
  await server.prepare(ctx);

  const launch = async (): Promise<Started> => {
    const started = await spawnDetached(await server.launch(ctx), logFile);
    await waitFor(() => server.answers(), {
      timeoutMs: 120_000,
      intervalMs: 250,
      failFast: () => (started.exit ? `the dedicated Kafka broker exited (${JSON.stringify(started.exit)}); see ${logFile}` : undefined),
      timeoutMessage: `the dedicated Kafka broker did not answer on ${server.address} within 120 s; see ${logFile}`,
    });
    return started;
  };
  let broker = await launch();
  const signal = (name: NodeJS.Signals) => process.kill(-broker.pid, name);
  return {
    brokers: [server.address],
    async restart() {
      await stopGroup(broker.pid, server.stopGraceMs);
      broker = await launch();
    },
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
    async stop() {
      await stopGroup(broker.pid, server.stopGraceMs);
      rmSync(stackDir, { recursive: true, force: true });
    },
  };
}
