import kafkajs, { type Kafka } from 'kafkajs';
import { pino } from 'pino';
import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoEvents } from '../ossn/demo-events/demo-events.js';
import { parseErpEvent, type ErpEvent } from '../../contracts/erp-events.js';
import { deadLetterTopic, eventKey } from '../../contracts/transport.js';
import { foldEvents } from '../../projections/fold.js';
import { readModels, reference } from '../../test/support/read-models.js';
import { testEnvironment } from '../../test/support/servers.js';
import { readShipmentsWhole } from '../../test/support/read-shipments.js';
import { consumeAll, groupLag } from '../../test/support/kafka-progress.js';
import { topicSize, waitUntilCaughtUp } from '../adapters/kafka/progress.js';
import type { ProjectorConfig } from '../config/config.js';
import { createKafka } from '../adapters/kafka/client.js';
import { connectProducer, type MessageProducer } from '../adapters/kafka/producer.js';
import { createLogger } from '../plumbing/logging/logger.js';
import { connectMongo } from '../adapters/mongodb/connect.js';
import { startProjector } from './run.js';
import { createBatchProjector } from './projector.js';
import { BatchAbandoned } from '../adapters/kafka/consumer.js';
import type { OutgoingMessage, SourceMessage } from '../adapters/kafka/messages.js';
import { documentId, ensureIndexes, readModelCollections } from '../adapters/mongodb/documents.js';
import { loadStates } from '../adapters/mongodb/writes.js';
import { MongoOrderLookups } from '../adapters/mongodb/lookups.js';
import { holdPreviousVersion, mayWrite, recordBuild, releasePreviousVersion } from '../adapters/mongodb/active-version.js';
import { issueRecorded, locationRecorded, packageShipped, statusChanged } from '../../test/fixtures/sample-events.js';
import { freshProjectorConfig, projectUntilCaughtUp, publishEvents } from '../../test/support/projector-system.js';
import { startProxyTo } from '../../test/support/tcp-proxy.js';

// kafkajs is CommonJS: Node's ESM loader finds its enums only on the default export.
const { ConfigResourceTypes } = kafkajs;
const logger = createLogger('projector-test', 'silent');
const env = testEnvironment();
let mongo: MongoClient;
let kafka: Kafka;
let producer: MessageProducer;

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'projector-test');
  kafka = createKafka(env.kafkaBrokers, 'projector-test', logger);
  producer = await connectProducer(kafka);
});

afterAll(async () => {
  await producer?.close();
  await mongo?.close();
});

/** A fresh topic, consumer group and database for one test. */
async function freshSetup(label: string) {
  const { config, names } = await freshProjectorConfig(kafka, label);
  const db = mongo.db(names.database);
  return { config, db, collections: readModelCollections(db, 1) };
}

const publish = (events: ErpEvent[], topic: string) => publishEvents(producer, topic, events);
const runUntilCaughtUp = (config: ProjectorConfig) => projectUntilCaughtUp({ kafka, logger }, config);

describe('projector against real Kafka and MongoDB', () => {
  it('projects a published demo data set into exactly the reference fold, and a second publication changes nothing', { timeout: 180_000 }, async () => {
    const { config, db, collections } = await freshSetup('demo');
    const events = generateDemoEvents({ clients: 3, orders: 40, seed: 7 });
    const report = await publish(events, config.topic);
    expect(report).toEqual({ sent: events.length, refused: [] });

    await runUntilCaughtUp(config);
    const projected = await readModels(db);
    expect(projected.statuses.length).toBeGreaterThan(50);
    expect(projected).toEqual(reference(events));

    const changeTimes = await collections.orderStatus.find({}, { projection: { changedAt: 1 } }).sort({ _id: 1 }).toArray();
    await publish(events, config.topic);
    await runUntilCaughtUp(config);
    expect(await readModels(db)).toEqual(projected);
    // Not even the change times moved: the replayed events were no-ops, not rewrites.
    expect(await collections.orderStatus.find({}, { projection: { changedAt: 1 } }).sort({ _id: 1 }).toArray()).toEqual(changeTimes);
  });

  it('sends bad events to the dead-letter topic with their reasons and projects the good ones', async () => {
    const { config, db } = await freshSetup('dlq');
    const good = generateDemoEvents({ clients: 1, orders: 5, seed: 3 });
    const first = good[0]!;
    const bad = [
      '{not json',
      JSON.stringify({ ...first, eventId: 'e4c1b1a0-0000-4000-8000-000000000001', sequence: 'one' }),
      JSON.stringify({ ...first, type: 'OrderExploded' }),
      JSON.stringify({ ...first, schemaVersion: 3 }),
      JSON.stringify({
        ...first,
        salesOrderNumber: 'SO-NO-LOCATION',
        type: 'PackageShipped',
        data: { locationId: 9, packageId: 1, trackingNumber: 'T1', shipmentDate: '2026-11-01T00:00:00Z' },
      }),
    ];
    // A valid event, but published under another sales order's key.
    const misKeyed = JSON.stringify({ ...first, salesOrderNumber: 'SO-MISKEYED' });
    bad.push(misKeyed);
    // Publish bypasses validation for the raw lines here: the projector must defend itself. The
    // keys are right where the event can be read, except for the mis-keyed one.
    const keyOf = (value: string, i: number) => {
      const parsed = parseErpEvent(value);
      return parsed.ok && value !== misKeyed ? eventKey(parsed.event.clientId, parsed.event.salesOrderNumber) : `CLIENT-001:BAD-${i}`;
    };
    await producer.send(config.topic, bad.map((value, i) => ({ key: keyOf(value, i), value })));
    await publish(good, config.topic);

    await runUntilCaughtUp(config);
    expect(await readModels(db)).toEqual(reference(good));

    // At-least-once: a dead letter may come twice after a redelivery, never zero times.
    const received = await consumeAll(kafka, deadLetterTopic(config.topic), bad.length);
    const deadLetters = [...new Map(received.map((m) => [`${m.headers['x-source-partition']}@${m.headers['x-source-offset']}`, m])).values()];
    expect(deadLetters.map((m) => m.value).sort()).toEqual([...bad].sort());
    const reasons = new Map(deadLetters.map((m) => [m.value, m.headers['x-error'] ?? '']));
    expect(reasons.get(bad[0]!)).toMatch(/JSON/i);
    expect(reasons.get(bad[1]!)).toMatch(/\/sequence/);
    expect(reasons.get(bad[2]!)).toMatch(/OrderExploded/);
    expect(reasons.get(bad[3]!)).toMatch(/schemaVersion/);
    expect(reasons.get(bad[4]!)).toMatch(/location 9/);
    expect(reasons.get(misKeyed)).toMatch(/^message key "CLIENT-001:BAD-5": must be ".*:SO-MISKEYED"/);
    for (const m of deadLetters) {
      expect(m.headers['x-source-topic']).toBe(config.topic);
      expect(Number(m.headers['x-source-partition'])).toBeGreaterThanOrEqual(0);
      expect(m.headers['x-source-offset']).toMatch(/^\d+$/);
      expect(Date.parse(m.headers['x-failed-at'] ?? '')).not.toBeNaN();
    }
  });

  it("sends a batch's dead letters before its writes, so a batch given up and delivered again still sends them", async () => {
    const { config, collections } = await freshSetup('dlq-first');
    await ensureIndexes(collections);
    // A dead-letter topic on the real broker that refuses every dead letter at first: it takes no
    // message over 64 bytes, and a dead letter (or its summary) is larger.
    const refusingTopic = `${config.topic}.refusing-dlq`;
    const admin = kafka.admin();
    await admin.connect();
    const maxMessageBytes = (value: number) => ({ name: 'max.message.bytes', value: String(value) });
    try {
      await admin.createTopics({ waitForLeaders: true, topics: [{ topic: refusingTopic, numPartitions: 1, configEntries: [maxMessageBytes(64)] }] });
    } finally {
      await admin.disconnect();
    }
    const events = [statusChanged(1), packageShipped(2, 7, 1), locationRecorded(3, 1)];
    const messages: SourceMessage[] = events.map((event, i) => ({
      topic: config.topic, partition: 0, offset: String(i), key: Buffer.from('C1:SO-9'), value: Buffer.from(JSON.stringify(event)), timestamp: '0',
    }));
    const warnings: string[] = [];
    let stopOnRetry = true;
    let stopping = false;
    const handle = createBatchProjector({
      collections,
      producer,
      deadLetterTopic: refusingTopic,
      logger: pino({ level: 'warn' }, {
        write(line: string) {
          warnings.push(line);
          // SIGTERM while the broker refuses: the batch is given up, its offsets stay uncommitted.
          if (stopOnRetry && line.includes('projecting the batch failed; retrying')) stopping = true;
        },
      }),
      stateCacheSize: 100,
    });
    const context = { heartbeat: async () => undefined, isStopping: () => stopping };

    await expect(handle(messages, context)).rejects.toThrow(BatchAbandoned);
    // Refused by the broker, the dead letter and then its summary: the batch failed on that.
    const logged = warnings.map((line) => JSON.parse(line) as { msg: string; err?: { message: string } });
    expect(logged.map((line) => line.msg)).toEqual([
      'event sent to the dead-letter topic',
      'dead letter refused by the broker; sending a summary of it',
      'projecting the batch failed; retrying',
    ]);
    expect(logged[2]?.err?.message).toMatch(/larger than the max message size/);
    expect(await topicSize(kafka, refusingTopic)).toBe(0n);
    expect(await collections.orderStatus.countDocuments()).toBe(0); // nothing written ahead of the dead letter
    expect(await collections.shipments.countDocuments()).toBe(0);

    // The broker takes them again (its default limit); the batch comes again, and is not stopped.
    const again = kafka.admin();
    await again.connect();
    try {
      await again.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: refusingTopic, configEntries: [maxMessageBytes(1_048_588)] }] });
    } finally {
      await again.disconnect();
    }
    stopOnRetry = false;
    stopping = false;
    await handle(messages, context);
    const [letter, ...more] = await consumeAll(kafka, refusingTopic, 1);
    expect(more).toEqual([]);
    expect(await topicSize(kafka, refusingTopic)).toBe(1n);
    expect(letter?.value).toBe(JSON.stringify(events[1]));
    expect(letter?.headers).toMatchObject({ 'x-source-topic': config.topic, 'x-source-offset': '1', 'x-error': expect.stringMatching(/location 7/) });
    expect(letter?.headers['x-truncated']).toBeUndefined();
    expect((await loadStates(collections, ['C1:SO-9'])).shipments.get('C1:SO-9')?.sequence).toBe(3);
  });

  /**
   * Two projectors on one store, as around a rebalance: `first` projects the events before and
   * after the one in the middle, which `other` projects while it holds the partition. `first`
   * still keeps the state from before the middle event when the last one comes.
   */
  /** `refetched`: first's last batch starts where its previous one ended, with the event other wrote (it fetched the batch before the partition went). */
  async function projectAcrossRebalance(label: string, events: ErpEvent[], refetched = false) {
    const { collections } = await freshSetup(label);
    await ensureIndexes(collections);
    const asMessages = (batch: ErpEvent[]): SourceMessage[] =>
      batch.map((event) => ({
        topic: 'erp', partition: 0, offset: String(event.sequence), key: Buffer.from('C1:SO-9'), value: Buffer.from(JSON.stringify(event)), timestamp: '0',
      }));
    const warnings: string[] = [];
    const deadLetters: OutgoingMessage[] = [];
    const projector = (name: string) =>
      createBatchProjector({
        collections,
        producer: { send: async (_topic, batch) => void deadLetters.push(...batch), close: async () => undefined },
        deadLetterTopic: 'erp.dlq',
        logger: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(`${name}: ${line}`) }),
        stateCacheSize: 100,
      });
    const context = { heartbeat: async () => undefined, isStopping: () => false };
    const [first, other] = [projector('first'), projector('other')];
    await first(asMessages(events.slice(0, -2)), context);
    await other(asMessages(events.slice(-2, -1)), context);
    await first(asMessages(events.slice(refetched ? -2 : -1)), context);
    const stored = await loadStates(collections, ['C1:SO-9']);
    const reference = foldEvents(events);
    expect(reference.rejected).toEqual([]);
    expect(stored.shipments.get('C1:SO-9')).toEqual(reference.shipments.get('C1:SO-9'));
    expect(stored.orderStatus.get('C1:SO-9')).toEqual(reference.orderStatus.get('C1:SO-9'));
    expect(deadLetters).toEqual([]);
    return { warnings };
  }

  it('catches a kept state that another consumer has moved on since when its write fails the guard, and retries from the store', async () => {
    // Folded onto the kept state (sequence 2), the location would be recorded and the package lost.
    const { warnings } = await projectAcrossRebalance('stale-write', [statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1), locationRecorded(4, 2)], true);
    expect(warnings.filter((line) => line.includes('retrying'))).toEqual([expect.stringMatching(/^first: .*guarded updates missed/)]);
  });

  it('does not dead-letter an event that only a kept state gone stale rejects: it folds the batch again from the store', async () => {
    // The kept state (sequence 2) has no location 2, which `other` recorded: no write to fail a guard.
    await projectAcrossRebalance('stale-reject', [statusChanged(1), locationRecorded(2, 1), locationRecorded(3, 2), packageShipped(4, 2, 1)]);
  });

  // A status is decided on both read models' sequences: a kept state gone stale for one of them
  // decides it wrongly, and the other's write, whose guard holds, would take the wrong decision in.
  it.each([
    ['the shipments (a package)', packageShipped(4, 1, 1)],
    ['the order status (an issue, contract v2)', issueRecorded(4)],
  ])('does not decide a status on a kept state gone stale for %s: both read models skip it, as the stream says', async (_moved, movedOn) => {
    const { collections } = await freshSetup('stale-status');
    await ensureIndexes(collections);
    const at = (offset: number, event: ErpEvent): SourceMessage => ({
      topic: 'erp', partition: 0, offset: String(offset), key: Buffer.from('C1:SO-9'), value: Buffer.from(JSON.stringify(event)), timestamp: '0',
    });
    const projector = () =>
      createBatchProjector({
        collections,
        producer: { send: async () => undefined, close: async () => undefined },
        deadLetterTopic: 'erp.dlq',
        logger: pino({ level: 'silent' }),
        stateCacheSize: 100,
      });
    const context = { heartbeat: async () => undefined, isStopping: () => false };
    const events = [statusChanged(1, { purchaseOrderNumber: 'PO-A', statusId: 20 }), locationRecorded(2, 1), movedOn, statusChanged(3, { purchaseOrderNumber: 'PO-B', statusId: 30 })];
    const [first, other] = [projector(), projector()];
    // The partition goes from first to other and back (a projector added, then stopped).
    await first([at(0, events[0]!), at(1, events[1]!)], context);
    await other([at(2, events[2]!)], context);
    await first([at(3, events[3]!)], context);
    const stored = await loadStates(collections, ['C1:SO-9']);
    const expected = foldEvents(events);
    expect(stored.orderStatus.get('C1:SO-9')).toEqual(expected.orderStatus.get('C1:SO-9'));
    expect(stored.shipments.get('C1:SO-9')).toEqual(expected.shipments.get('C1:SO-9'));
  });

  it('skips a status arriving late for both read models: the order status and shipments lookups keep agreeing about the purchase order', async () => {
    const { config, db, collections } = await freshSetup('late-status');
    const inOrder = [
      statusChanged(1, { purchaseOrderNumber: 'PO-A', statusId: 20 }),
      locationRecorded(2, 1),
      packageShipped(3, 1, 1),
      packageShipped(5, 1, 2),
    ];
    const late = statusChanged(4, { purchaseOrderNumber: 'PO-B', statusId: 20 });
    await publish(inOrder, config.topic);
    await runUntilCaughtUp(config);
    await publish([late], config.topic);
    await runUntilCaughtUp(config);

    const lookups = new MongoOrderLookups(collections);
    const bySalesOrder = { queryType: 2, referenceNumber: 'SO-9' };
    const status = await lookups.orderStatus(['C1'], bySalesOrder);
    const shipments = await readShipmentsWhole(lookups, ['C1'], bySalesOrder);
    expect(status.map((p) => p.purchaseOrderNumber)).toEqual(['PO-A']);
    expect(shipments.map((p) => p.purchaseOrderNumber)).toEqual(['PO-A']);
    // A rebuild folds the same way.
    expect(await readModels(db)).toEqual(reference([...inOrder, late]));
  });

  it('rides out a MongoDB outage mid-stream: retries, logs, and ends in the reference state', { timeout: 180_000 }, async () => {
    const { config, db, collections } = await freshSetup('outage');
    const events = generateDemoEvents({ clients: 2, orders: 60, seed: 13 });
    // The second half is published while the store is cut: the outage comes mid-stream by
    // construction (one bulk write may well project the whole first half at once).
    const half = Math.floor(events.length / 2);
    await publish(events.slice(0, half), config.topic);

    // The projector reaches MongoDB only through a proxy that the test cuts and restores.
    const { proxy, url: viaProxy } = await startProxyTo(env.mongodbUri);
    const lines: string[] = [];
    const projectorLogger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const projector = await startProjector({ ...config, store: { ...config.store, mongodbUri: viaProxy } }, projectorLogger);
    let atCut: Awaited<ReturnType<typeof readModels>> | undefined;
    try {
      await expect.poll(() => collections.orderStatus.countDocuments(), { timeout: 60_000, interval: 20 }).toBeGreaterThan(0);
      proxy.cut();
      atCut = await readModels(db);
      await publish(events.slice(half), config.topic);
      // Cut until the projector has met the outage and said it retries: a fixed pause raced the
      // projector's next batch on a loaded machine (the outage could end before a write tried it).
      const retrying = () => lines.some((line) => line.includes('projecting the batch failed; retrying'));
      await expect.poll(retrying, { timeout: 60_000, interval: 100 }).toBe(true);
      proxy.restore();
      await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);
    } finally {
      await projector.stop();
      await proxy.close();
    }
    const expected = reference(events);
    expect(atCut).not.toEqual(expected); // the outage came mid-stream
    expect(await readModels(db)).toEqual(expected);
    expect(lines.some((line) => line.includes('projecting the batch failed; retrying'))).toBe(true);
  });

  it('holds a batch, writing nothing, while a replay holds its version, rides out the store failing the check meanwhile, and writes it once released', { timeout: 120_000 }, async () => {
    const { config, db, collections } = await freshSetup('write-fence');
    await ensureIndexes(collections);
    const build = await recordBuild(db, { version: 2, previous: 1, consumerGroup: `${config.consumerGroup}-v2`, startedAt: new Date() });
    expect(await holdPreviousVersion(db, build, 120_000, true)).toBe(true);
    // The check reaches MongoDB through a proxy that the test cuts, with the follower's deadline.
    const { proxy, url: viaProxy } = await startProxyTo(env.mongodbUri);
    const checks = await connectMongo(viaProxy, 'projector-fence-test', { deadlineMs: 2_000 });
    const warnings: string[] = [];
    const handle = createBatchProjector({
      collections,
      producer,
      deadLetterTopic: deadLetterTopic(config.topic),
      logger: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) }),
      stateCacheSize: 100,
      writeFence: () => mayWrite(checks.db(config.store.database), 1, config.store.readModelVersion),
    });
    const events = [statusChanged(1), locationRecorded(2, 1)];
    const messages: SourceMessage[] = events.map((event, i) => ({
      topic: config.topic, partition: 0, offset: String(i), key: Buffer.from('C1:SO-9'), value: Buffer.from(JSON.stringify(event)), timestamp: '0',
    }));
    let outcome: unknown = 'waiting';
    const handled = handle(messages, { heartbeat: async () => undefined, isStopping: () => false }).then(
      () => (outcome = 'written'),
      (error: unknown) => (outcome = error),
    );
    const nothingWritten = async () => {
      expect(outcome).toBe('waiting');
      expect(await collections.orderStatus.countDocuments()).toBe(0);
      expect(await collections.shipments.countDocuments()).toBe(0);
    };
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await nothingWritten();
      // The store away while the batch waits: a failed check is retried, the batch is not thrown.
      proxy.cut();
      const retried = () => ({ outcome, retried: warnings.some((line) => line.includes('may be written failed; retrying')) });
      await expect.poll(retried, { timeout: 20_000, interval: 100 }).toEqual({ outcome: 'waiting', retried: true });
      proxy.restore();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await nothingWritten();
      // A consumer stopping gives a held batch up, uncommitted.
      await expect(handle(messages, { heartbeat: async () => undefined, isStopping: () => true })).rejects.toThrow(BatchAbandoned);
      await releasePreviousVersion(db, build);
      await handled;
      expect(outcome).toBe('written');
    } finally {
      await checks.close();
      await proxy.close();
    }
    expect((await loadStates(collections, ['C1:SO-9'])).shipments.get('C1:SO-9')?.sequence).toBe(2);
  });

  it('ends in the same state when stopped and restarted mid-stream', { timeout: 180_000 }, async () => {
    const { config, db, collections } = await freshSetup('restart');
    const events = generateDemoEvents({ clients: 4, orders: 150, seed: 11 });
    // The rest of the stream is published only once the first projector has stopped: the restart
    // comes mid-stream by construction, whatever the first one managed before its stop.
    const before = events.slice(0, Math.floor(events.length * 0.6));
    await publish(before, config.topic);

    const first = await startProjector(config, logger);
    // Stopped once it has committed a batch: a stop abandons a batch still running 2 s into it
    // (uncommitted, it comes again), which on a busy machine could be the first one.
    await expect.poll(async () => Number(await groupLag(kafka, config.consumerGroup, config.topic)), { timeout: 60_000, interval: 50 }).toBeLessThan(before.length);
    await first.stop();
    const committedAtStop = before.length - Number(await groupLag(kafka, config.consumerGroup, config.topic));
    await publish(events.slice(before.length), config.topic);

    // Stopped means stopped: none of the events published since is projected before the restart.
    const lastBefore = new Map<string, number>();
    for (const event of before) lastBefore.set(documentId(event.clientId, event.salesOrderNumber), event.sequence);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const stored = [...(await collections.orderStatus.find().toArray()), ...(await collections.shipments.find().toArray())];
    expect(stored.filter((doc) => doc.sequence > (lastBefore.get(doc._id) ?? 0)).map((doc) => doc._id)).toEqual([]);
    const atRestart = await readModels(db);

    await runUntilCaughtUp(config);
    // The first one committed what it projected, so the second took the stream up where it stopped.
    expect(committedAtStop).toBeGreaterThan(0);
    expect(atRestart).not.toEqual(reference(events));
    expect(await readModels(db)).toEqual(reference(events));
  });
});
