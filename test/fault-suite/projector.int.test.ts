// The fault suite's projector cases (issue 9): the projector against real servers that fail under
// it, and against messages that can never succeed. Each case checks what a user of the read
// models would see: every event projected exactly as the reference fold says, none lost.
import type { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoEvents } from '../../services/ossn/demo-events/demo-events.js';
import { Random } from '../../services/ossn/demo-events/random.js';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { locationRecorded, packageShipped, statusChanged } from '../fixtures/sample-events.js';
import { deadLetterTopic, eventKey } from '../../contracts/transport.js';
import { defaultStateCacheSize, type ProjectorConfig } from '../../services/config/config.js';
import { createKafka } from '../../services/adapters/kafka/client.js';
import { topicSize, waitUntilCaughtUp } from '../../services/adapters/kafka/progress.js';
import { connectProducer } from '../../services/adapters/kafka/producer.js';
import { ensureTopics } from '../../services/adapters/kafka/topics.js';
import { createLogger } from '../../services/plumbing/logging/logger.js';
import { projectBatch } from '../../services/projector/project-batch.js';
import type { ProjectorExtras } from '../../services/projector/run.js';
import { startProjector } from '../../services/projector/run.js';
import { connectMongo } from '../../services/adapters/mongodb/connect.js';
import { readModelCollections } from '../../services/adapters/mongodb/documents.js';
import { loadStates } from '../../services/adapters/mongodb/writes.js';
import { startDedicatedKafka } from '../support/dedicated-kafka.js';
import { consumeAll, groupLag } from '../support/kafka-progress.js';
import { startOssnProjector, type OssnProcess } from '../support/ossn-cli.js';
import { publishEvents } from '../support/projector-system.js';
import { readModels, reference } from '../support/read-models.js';
import { testSeed } from '../support/seed.js';
import { testEnvironment, uniqueNames } from '../support/servers.js';

// Projection defects, stood in for the poison-message case: the fold given to that case's projector
// throws on the batch that holds the first event, as a defective projection would, makes a change
// that does not advance its sales order's sequence for the batch that holds the second (a write
// that would read as a missed guard for ever), and is projectBatch otherwise (with the batch's
// positions, so that it folds with resume marks as the product does).
const foldThrowsOnEventId = 'dead0000-0000-4000-8000-000000000001';
const foldStallsOnEventId = 'dead0000-0000-4000-8000-000000000002';
const defectiveFold: ProjectorExtras['projectBatch'] = (loaded, items, positions) => {
  if (items.some(({ event }) => event.eventId === foldThrowsOnEventId)) throw new TypeError('projection defect');
  const projected = projectBatch(loaded, items, positions);
  const stalled = items.find(({ event }) => event.eventId === foldStallsOnEventId)?.event;
  if (!stalled) return projected;
  const orderStatus = projected.effects.orderStatus.map((change) =>
    change.after.salesOrderNumber === stalled.salesOrderNumber ? { ...change, before: { ...change.after } } : change,
  );
  return { ...projected, effects: { ...projected.effects, orderStatus } };
};

const logger = createLogger('fault-suite', 'silent');
const env = testEnvironment();
let mongo: MongoClient;

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'fault-suite');
});

afterAll(async () => {
  await mongo?.close();
});

function projectorConfig(label: string, kafkaBrokers: string[], topicPartitions: number): ProjectorConfig {
  const names = uniqueNames(label);
  return {
    logLevel: 'silent',
    store: { mongodbUri: env.mongodbUri, database: names.database, readModelVersion: 1 },
    kafkaBrokers,
    topic: names.topic,
    topicPartitions,
    consumerGroup: names.group,
    stateCacheSize: defaultStateCacheSize,
    // Batches of kafkajs's 1 MiB, not the default 8: the faults must fall between many batches of
    // these few tens of thousands of events (at 8 MiB a partition goes in one or two).
    fetchMaxBytesPerPartition: 2 ** 20,
  };
}

const countStatuses = (config: ProjectorConfig) => readModelCollections(mongo.db(config.store.database), 1).orderStatus.countDocuments();

describe('fault suite: projector', () => {
  it('the broker restarted while the projector is consuming: it goes on, and the read models equal the fold of every event', { timeout: 300_000 }, async () => {
    const broker = await startDedicatedKafka();
    try {
      const kafka = createKafka(broker.brokers, 'fault-broker-restart', logger);
      const config = projectorConfig('fault-broker-restart', broker.brokers, 3);
      await ensureTopics(kafka, config.topic, config.topicPartitions);
      const events = generateDemoEvents({ clients: 4, orders: 600, seed: 21 });
      const before = events.slice(0, Math.floor(events.length * 0.7));
      await publishEvents(kafka, config.topic, before);

      const lines: string[] = [];
      const projector = await startProjector(config, pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) }));
      let atRestart = 0;
      try {
        await expect.poll(() => countStatuses(config), { timeout: 60_000, interval: 20 }).toBeGreaterThan(0);
        await broker.restart();
        atRestart = await countStatuses(config);
        // Events published after the restart are projected too: the projector is consuming again.
        await publishEvents(kafka, config.topic, events.slice(before.length));
        await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic, 180_000);
      } finally {
        await projector.stop();
      }
      expect(atRestart).toBeLessThan(reference(before).statuses.length); // the restart came mid-stream
      expect(await readModels(mongo.db(config.store.database))).toEqual(reference(events));
      expect(await topicSize(kafka, deadLetterTopic(config.topic))).toBe(0n);
    } finally {
      await broker.stop();
    }
  });

  it('the projector killed with SIGKILL ten times at random moments while 50,000 events are projected: read models equal the fold of every event, no event lost or applied twice', { timeout: 600_000 }, async () => {
    const kafka = createKafka(env.kafkaBrokers, 'fault-sigkill', logger);
    const config = projectorConfig('fault-sigkill', env.kafkaBrokers, 6);
    await ensureTopics(kafka, config.topic, config.topicPartitions);
    const events = generateDemoEvents({ clients: 5, orders: 1_100, seed: 5 }).slice(0, 50_000);
    await publishEvents(kafka, config.topic, events);

    // The moments: after random numbers of committed events, spread over the whole run.
    const random = new Random(testSeed('FAULT_SIGKILL_SEED'));
    const killAt = Array.from({ length: 10 }, () => Math.floor(random.next() * events.length * 0.9)).sort((a, b) => a - b);
    console.log(`SIGKILL after ${killAt.join(', ')} committed events`);
    const committed = async () => events.length - Number(await groupLag(kafka, config.consumerGroup, config.topic));
    const kills: number[] = [];
    for (const threshold of killAt) {
      const projector = projectorProcess(config);
      try {
        await expect.poll(committed, { timeout: 120_000, interval: 100 }).toBeGreaterThanOrEqual(threshold);
        projector.child.kill('SIGKILL');
        kills.push(await committed());
        expect(await projector.exit).toBe('SIGKILL');
      } finally {
        projector.child.kill('SIGKILL');
      }
    }
    const last = projectorProcess(config);
    try {
      await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic, 240_000);
      last.child.kill('SIGTERM');
      expect(await last.exit).toBe(0);
    } finally {
      last.child.kill('SIGKILL'); // never left consuming when the wait fails
    }

    expect(kills.filter((at) => at < events.length)).toHaveLength(10); // every kill came while events were left to project
    expect(await readModels(mongo.db(config.store.database))).toEqual(reference(events));
    // An event applied twice would have been rejected by the projection the second time.
    expect(await topicSize(kafka, deadLetterTopic(config.topic))).toBe(0n);
  });

  it('one poison message of each kind on a busy partition: it is in the dead-letter topic with its reason, and every later event of that partition is projected', { timeout: 300_000 }, async () => {
    const kafka = createKafka(env.kafkaBrokers, 'fault-poison', logger);
    const config = projectorConfig('fault-poison', env.kafkaBrokers, 1);
    // The events topic takes messages of up to 2 MB; its dead-letter topic, created by the
    // projector, only the broker's default of 1 MB: a dead letter can be too large to send.
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic: config.topic, numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: String(2 * 1024 * 1024) }] }],
    });
    await admin.disconnect();

    const busy = generateDemoEvents({ clients: 2, orders: 150, seed: 9 });
    const half = Math.floor(busy.length / 2);

    // 1. The fold throws on this event (a projection defect, given to the projector below).
    const defective = statusChanged(1, { purchaseOrderNumber: 'PO-DEFECT', statusId: 10 });
    const foldThrowsOn = { ...defective, eventId: foldThrowsOnEventId, salesOrderNumber: 'SO-DEFECT' };
    const foldStallsOn = { ...defective, eventId: foldStallsOnEventId, salesOrderNumber: 'SO-STALL' };
    // 2. The store refuses the read model this event would make: its shipments document would
    // pass MongoDB's 16 MiB document limit. Each package
    // brings a 1 MB carrier name (the contract bounds neither): the 17th is one too many.
    const huge = (event: ErpEvent) => ({ ...event, salesOrderNumber: 'SO-HUGE' }) as ErpEvent;
    const packages = Array.from({ length: 17 }, (_, i) => i + 1);
    const hugeOrder = [
      huge(locationRecorded(1, 1)),
      ...packages.map((packageId) => huge(packageShipped(1 + packageId, 1, packageId, { carrier: String(packageId).padEnd(1_000_000, '.') }))),
      huge(statusChanged(20, { purchaseOrderNumber: 'PO-HUGE', statusId: 80 })),
    ];
    const refusedPackage = hugeOrder[17]!;
    // 3. Not an event, and too large for the dead-letter topic: 1.5 MB.
    const tooLargeForDeadLetter = JSON.stringify({ note: 'x'.repeat(1_500_000) });
    // 4. Not JSON.
    const notJson = '{not json';

    const producer = await connectProducer(kafka);
    try {
      const send = (key: string, value: string) => producer.send(config.topic, [{ key, value }]);
      await publishEvents(producer, config.topic, busy.slice(0, half));
      await send(eventKey(foldThrowsOn.clientId, foldThrowsOn.salesOrderNumber), JSON.stringify(foldThrowsOn));
      await send(eventKey(foldStallsOn.clientId, foldStallsOn.salesOrderNumber), JSON.stringify(foldStallsOn));
      for (const event of hugeOrder) await send(eventKey(event.clientId, event.salesOrderNumber), JSON.stringify(event)); // 1 MB each: one at a time
      await send('C1:SO-TOO-LARGE', tooLargeForDeadLetter);
      await send('C1:SO-NOT-JSON', notJson);
      await publishEvents(producer, config.topic, busy.slice(half));
    } finally {
      await producer.close();
    }

    const projector = await startProjector(config, logger, { projectBatch: defectiveFold });
    try {
      await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic, 240_000);
    } finally {
      await projector.stop();
    }

    const db = mongo.db(config.store.database);
    const projected = await readModels(db);
    const isHuge = (s: { salesOrderNumber: string }) => s.salesOrderNumber === 'SO-HUGE';
    expect({ statuses: projected.statuses.filter((s) => !isHuge(s)), shipments: projected.shipments.filter((s) => !isHuge(s)) }).toEqual(
      reference(busy),
    );
    // The refused package is missing; the events of SO-HUGE after it are projected.
    const stored = await loadStates(readModelCollections(db, 1), ['C1:SO-HUGE']);
    expect(stored.orderStatus.get('C1:SO-HUGE')).toMatchObject({ sequence: 20, statusId: 80 });
    expect(stored.shipments.get('C1:SO-HUGE')?.locations[0]?.packages.map((p) => p.packageId)).toEqual(packages.slice(0, -1));

    const received = await consumeAll(kafka, deadLetterTopic(config.topic), 5);
    const bySource = new Map(received.map((m) => [m.key, m]));
    expect(bySource.get(eventKey('C1', 'SO-DEFECT'))?.headers['x-error']).toMatch(/^the projection failed on this event: TypeError: projection defect/);
    expect(bySource.get(eventKey('C1', 'SO-DEFECT'))?.value).toBe(JSON.stringify(foldThrowsOn));
    expect(bySource.get(eventKey('C1', 'SO-STALL'))?.headers['x-error']).toMatch(
      /^the projection failed on this event: Error: C1:SO-STALL: a change from sequence 1 to 1 does not advance it/,
    );
    const refused = bySource.get(eventKey('C1', 'SO-HUGE'));
    expect(refused?.headers['x-error']).toMatch(/^the store refused the read models of sales order C1:SO-HUGE with this event/);
    expect(refused?.value).toBe(JSON.stringify(refusedPackage));
    const summary = bySource.get('C1:SO-TOO-LARGE');
    expect(summary?.headers['x-error']).toMatch(/JSON|schema|must/i);
    expect(summary?.headers['x-truncated']).toMatch(/value of 1500011 bytes cut/);
    expect(summary?.value).toBe(tooLargeForDeadLetter.slice(0, 8_192));
    expect(bySource.get('C1:SO-NOT-JSON')?.headers['x-error']).toMatch(/JSON/i);
    expect([...bySource.keys()].sort()).toEqual(['C1:SO-DEFECT', 'C1:SO-HUGE', 'C1:SO-NOT-JSON', 'C1:SO-STALL', 'C1:SO-TOO-LARGE']);
  });
});

/** `ossn projector` as its own process, as it runs in production, to be killed; its warnings show in the test's output. */
function projectorProcess(config: ProjectorConfig): OssnProcess {
  return startOssnProjector(
    {
      kafkaBrokers: config.kafkaBrokers,
      mongodbUri: config.store.mongodbUri,
      database: config.store.database,
      topic: config.topic,
      consumerGroup: config.consumerGroup,
      topicPartitions: config.topicPartitions,
      // The group hands a killed projector's partitions on after this silence: the broker's least.
      consumerSessionTimeoutMs: 6000,
      fetchMaxBytesPerPartition: config.fetchMaxBytesPerPartition,
      logLevel: 'warn',
    },
    { echoStderr: true },
  );
}
