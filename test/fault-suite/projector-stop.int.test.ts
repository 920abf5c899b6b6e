// Fault suite, issue 16: `ossn projector` (its own process, as a container runs it) ends on ONE
// SIGTERM within its stop deadline while batches are in flight and a server does not answer, and
// loses nothing: restarted with the servers healthy, the read models equal the fold of every event.
import type { Kafka } from 'kafkajs';
import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoEvents } from '../../services/ossn/demo-events/demo-events.js';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { deadLetterTopic } from '../../contracts/transport.js';
import { createKafka } from '../../services/adapters/kafka/client.js';
import { topicSize, waitUntilCaughtUp } from '../../services/adapters/kafka/progress.js';
import { groupLag } from '../support/kafka-progress.js';
import { ensureTopics } from '../../services/adapters/kafka/topics.js';
import { createLogger } from '../../services/plumbing/logging/logger.js';
import { connectMongo } from '../../services/adapters/mongodb/connect.js';
import { readModelCollections } from '../../services/adapters/mongodb/documents.js';
import { startDedicatedKafka } from '../support/dedicated-kafka.js';
import { startOssnProjector, type OssnProcess } from '../support/ossn-cli.js';
import { publishEvents } from '../support/projector-system.js';
import { readModels, reference } from '../support/read-models.js';
import { testEnvironment, uniqueNames, type UniqueNames } from '../support/servers.js';
import { startProxyTo } from '../support/tcp-proxy.js';

const logger = createLogger('fault-stop', 'silent');
const env = testEnvironment();
let mongo: MongoClient;

/** The stop deadline `ossn projector` keeps by default (OSSN_STOP_TIMEOUT_MS), and the slack allowed on a loaded machine. */
const STOP_DEADLINE_MS = 10_000;
const SLACK_MS = 5_000;

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'fault-stop');
});

afterAll(async () => {
  await mongo?.close();
});

type Projector = OssnProcess;

/** `ossn projector` on the given servers, logging at info into `output`. */
function projectorProcess(names: UniqueNames, brokers: string[], mongodbUri: string): Projector {
  return startOssnProjector({
    kafkaBrokers: brokers,
    mongodbUri,
    database: names.database,
    topic: names.topic,
    consumerGroup: names.group,
    topicPartitions: 3,
    // Partitions of a projector that left without a word are handed on after this silence.
    consumerSessionTimeoutMs: 6000,
  });
}

/** Sends one SIGTERM and waits for the exit, at most `waitMs`: the exit (or 'still running') and how long it took. */
async function stopOnce(projector: Projector, waitMs = STOP_DEADLINE_MS + 30_000): Promise<{ exit: number | NodeJS.Signals | null | 'still running'; ms: number }> {
  const sentAt = Date.now();
  projector.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const exit = await Promise.race([projector.exit, new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), waitMs)))]);
  clearTimeout(timer);
  const ms = Date.now() - sentAt;
  // What the stop did, for whoever reads the test's output.
  const said = projector
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{') && (JSON.parse(line) as { time: number }).time >= sentAt)
    .map((line) => JSON.parse(line) as { msg: string; abandoned?: string[] });
  process.stdout.write(`SIGTERM -> ${String(exit)} in ${ms} ms: ${said.map((line) => line.msg + (line.abandoned ? ` ${JSON.stringify(line.abandoned)}` : '')).join(' | ')}\n`);
  return { exit, ms };
}

const countStatuses = (names: UniqueNames) => readModelCollections(mongo.db(names.database), 1).orderStatus.countDocuments();

/** With the servers healthy again: a new projector catches up, and the read models equal the fold of every event. */
async function restartAndCompare(kafka: Kafka, names: UniqueNames, brokers: string[], events: ErpEvent[]): Promise<void> {
  const projector = projectorProcess(names, brokers, env.mongodbUri);
  try {
    await waitUntilCaughtUp(kafka, names.group, names.topic, 240_000);
    expect(await stopOnce(projector)).toMatchObject({ exit: 0 });
  } finally {
    projector.child.kill('SIGKILL');
  }
  expect(await readModels(mongo.db(names.database))).toEqual(reference(events));
  // An event applied twice or out of order would have been rejected into the dead-letter topic.
  expect(await topicSize(kafka, deadLetterTopic(names.topic))).toBe(0n);
}

describe('fault suite: ossn projector stops on the first SIGTERM', () => {
  it('with MongoDB frozen (connections open, nothing answered) and batches in flight: exits within its deadline, and a restart projects every event', { timeout: 400_000 }, async () => {
    const kafka = createKafka(env.kafkaBrokers, 'fault-stop-mongo', logger);
    const names = uniqueNames('fault-stop-mongo');
    await ensureTopics(kafka, names.topic, 3);
    const events = generateDemoEvents({ clients: 4, orders: 1_200, seed: 31 });
    await publishEvents(kafka, names.topic, events);

    const { proxy, url: viaProxy } = await startProxyTo(env.mongodbUri);
    const projector = projectorProcess(names, env.kafkaBrokers, viaProxy);
    try {
      await expect.poll(() => countStatuses(names), { timeout: 120_000, interval: 20 }).toBeGreaterThan(0);
      proxy.freeze();
      // Long enough for every batch in flight to wait on the store, and for a check of the active
      // read-model version (every 2 s) to wait on it too.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(await groupLag(kafka, names.group, names.topic)).toBeGreaterThan(0n); // events were left to project
      const stopped = await stopOnce(projector);
      expect(stopped, projector.output()).toMatchObject({ exit: 0 });
      expect(stopped.ms).toBeLessThan(STOP_DEADLINE_MS + SLACK_MS);
      expect(projector.output()).toMatch(/batch abandoned/);
    } finally {
      projector.child.kill('SIGKILL');
      proxy.thaw();
      await proxy.close();
    }
    await restartAndCompare(kafka, names, env.kafkaBrokers, events);
  });

  it('with the broker frozen (SIGSTOP) and batches in flight: exits within its deadline, and a restart projects every event', { timeout: 400_000 }, async () => {
    const broker = await startDedicatedKafka();
    try {
      const kafka = createKafka(broker.brokers, 'fault-stop-broker', logger);
      const names = uniqueNames('fault-stop-broker');
      await ensureTopics(kafka, names.topic, 3);
      const events = generateDemoEvents({ clients: 4, orders: 1_200, seed: 32 });
      await publishEvents(kafka, names.topic, events);

      const projector = projectorProcess(names, broker.brokers, env.mongodbUri);
      let atFreeze = 0;
      try {
        await expect.poll(() => countStatuses(names), { timeout: 120_000, interval: 20 }).toBeGreaterThan(0);
        // Into the stream, where a batch is most likely being written (its commit then waits).
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        broker.freeze();
        atFreeze = await countStatuses(names);
        // Batches fetched before the freeze are written, then wait for their commit.
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        const stopped = await stopOnce(projector);
        expect(stopped, projector.output()).toMatchObject({ exit: 0 });
        expect(stopped.ms).toBeLessThan(STOP_DEADLINE_MS + SLACK_MS);
        expect(projector.output()).toMatch(/abandon/);
      } finally {
        projector.child.kill('SIGKILL');
        broker.thaw();
      }
      expect(atFreeze).toBeLessThan(reference(events).statuses.length); // the freeze came mid-stream
      await restartAndCompare(kafka, names, broker.brokers, events);
    } finally {
      await broker.stop();
    }
  });
});
