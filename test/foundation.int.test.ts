import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import type { Admin, Kafka } from 'kafkajs';
import type { AnyBulkWriteOperation, Document, Filter, MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStackConfig } from '../scripts/stack/config.js';
import { waitFor } from '../scripts/stack/wait.js';
import { testKafka, testMongo, testRedis } from './support/clients.js';
import { servers, uniqueNames } from './support/servers.js';

// The ground every integration test stands on: a real Kafka with consumer groups, a
// MongoDB-protocol server taking the bulk upserts and indexes the read models use, and Redis.

interface OrderEvent {
  salesOrderNumber: string;
  customer: string;
  sequence: number;
  status: string;
}

interface OrderDoc {
  _id: string;
  customer: string;
  status: string;
  lastSequence: number;
  firstSequence: number;
  sequences: number[];
}

const names = uniqueNames('foundation');
const statuses = ['received', 'confirmed', 'in production', 'shipped', 'complete'];
const orderCount = 10;
const events: OrderEvent[] = statuses.flatMap((status, i) =>
  Array.from({ length: orderCount }, (_, order) => ({
    salesOrderNumber: `SO-${String(order).padStart(3, '0')}`,
    customer: order % 2 === 0 ? 'acme' : 'globex',
    sequence: i + 1,
    status,
  })),
);

let kafka: Kafka;
let admin: Admin;
let mongo: MongoClient;
let redis: Redis;

beforeAll(async () => {
  kafka = testKafka('foundation-test');
  admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: names.topic, numPartitions: 3 }], waitForLeaders: true });
  mongo = await testMongo();
  redis = await testRedis();
});

afterAll(async () => {
  await admin?.deleteTopics({ topics: [names.topic] }).catch(() => undefined);
  await admin?.disconnect();
  await mongo?.db(names.database).dropDatabase();
  await mongo?.close();
  await redis?.quit();
});

/** One upsert per event, applied in consumption order: the last event of an order wins its status. */
function upserts(received: OrderEvent[]): AnyBulkWriteOperation<OrderDoc>[] {
  return received.map((event) => ({
    updateOne: {
      filter: { _id: event.salesOrderNumber },
      update: {
        $set: { customer: event.customer, status: event.status },
        $max: { lastSequence: event.sequence },
        $setOnInsert: { firstSequence: event.sequence },
        $addToSet: { sequences: event.sequence },
      },
      upsert: true,
    },
  }));
}

function orderDoc(i: number): Omit<OrderDoc, '_id'> {
  return { customer: 'acme', status: 'complete', lastSequence: 5, firstSequence: 1, sequences: [i] };
}

/** Whether an explained find reads by the _id index (IDHACK is MongoDB's fast path for an _id equality). */
function idIndexUsed(explain: Document): boolean {
  const plan = JSON.stringify(explain.queryPlanner?.winningPlan ?? {});
  return plan.includes('IDHACK') || plan.includes('"indexName":"_id_"');
}

describe('foundation: Kafka, MongoDB and Redis', () => {
  it(`runs against servers from ${servers().source}, each answering where the setup says it is`, async () => {
    const { source, env: provided } = servers();
    const given = { KAFKA_BROKERS: process.env.KAFKA_BROKERS, MONGODB_URI: process.env.MONGODB_URI, REDIS_URL: process.env.REDIS_URL };
    if (given.KAFKA_BROKERS && given.MONGODB_URI) {
      // Addresses given in the environment are used as given, and nothing is started.
      expect({ source, ...provided }).toEqual({ source: 'environment', ...given });
    } else {
      expect(source).not.toBe('environment');
      // The local stack's addresses are those its env file lists for `npm start` and the benches.
      if (source === 'local-stack') {
        const lines = readFileSync(readStackConfig().envFile, 'utf8').split('\n').filter(Boolean);
        expect(provided).toEqual(Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)])));
      }
    }

    // Each server answers at its address (every client here is made from the provided addresses).
    const cluster = await admin.describeCluster();
    expect(cluster).toMatchObject({ clusterId: expect.any(String), brokers: expect.arrayContaining([expect.objectContaining({ port: expect.any(Number) })]) });
    // MongoDB as a one-member replica set at least, as transactions, change streams and majority writes need.
    const hello = await mongo.db('admin').command({ hello: 1 });
    expect(hello).toMatchObject({ isWritablePrimary: true, setName: expect.any(String) });
    expect(await redis.ping()).toBe('PONG');
  });

  it('moves keyed messages from a topic through a consumer group into MongoDB with one bulk upsert', async () => {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: names.topic,
      acks: -1,
      messages: events.map((event) => ({ key: event.salesOrderNumber, value: JSON.stringify(event) })),
    });
    await producer.disconnect();

    const received: OrderEvent[] = [];
    const consumer = kafka.consumer({ groupId: names.group, maxWaitTimeInMs: 100 });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: names.topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          received.push(JSON.parse(message.value?.toString() ?? 'null') as OrderEvent);
        },
      });
      await waitFor(() => received.length >= events.length, {
        timeoutMs: 30_000,
        intervalMs: 20,
        timeoutMessage: `consumed ${received.length} of ${events.length} messages`,
      });
    } finally {
      await consumer.disconnect();
    }
    expect(received).toHaveLength(events.length);
    // A key always lands on one partition, so each order's events arrive in the order they were sent.
    for (let order = 0; order < orderCount; order++) {
      const id = `SO-${String(order).padStart(3, '0')}`;
      expect(received.filter((event) => event.salesOrderNumber === id).map((event) => event.sequence)).toEqual([1, 2, 3, 4, 5]);
    }

    const orders = mongo.db(names.database).collection<OrderDoc>('orders');
    const first = await orders.bulkWrite(upserts(received));
    expect(first.upsertedCount).toBe(orderCount);
    expect(first.matchedCount).toBe(events.length - orderCount);

    await orders.createIndex({ customer: 1, lastSequence: -1 }, { name: 'by_customer' });
    expect((await orders.indexes()).map((index) => index.name).sort()).toEqual(['_id_', 'by_customer']);
    const readBack = () => orders.find({ customer: 'acme' }).hint('by_customer').sort({ _id: 1 }).toArray();
    const acme = await readBack();
    expect(acme).toEqual(
      ['SO-000', 'SO-002', 'SO-004', 'SO-006', 'SO-008'].map((id) => ({
        _id: id,
        customer: 'acme',
        status: 'complete',
        lastSequence: 5,
        firstSequence: 1,
        sequences: [1, 2, 3, 4, 5],
      })),
    );

    // Replaying the same batch (a redelivery after a crash) inserts nothing and ends in the same state.
    const again = await orders.bulkWrite(upserts(received));
    expect(again.upsertedCount).toBe(0);
    expect(again.matchedCount).toBe(events.length);
    expect(await readBack()).toEqual(acme);
    expect(await orders.countDocuments()).toBe(orderCount);
  });

  // What the projector's writes and loads rely on to stay fast as the read models grow.
  it.each([
    ['one _id', { _id: 'SO-007' }],
    ['an _id and a sequence guard', { _id: 'SO-007', lastSequence: 5 }],
    ['an $in of ids', { _id: { $in: ['SO-001', 'SO-007'] } }],
  ])('finds documents through the _id index by %s', async (_, filter) => {
    const orders = mongo.db(names.database).collection<OrderDoc>('id_lookups');
    await orders.insertMany(Array.from({ length: 50 }, (_, i) => ({ ...orderDoc(i), _id: `SO-${String(i).padStart(3, '0')}` })));
    try {
      expect(idIndexUsed(await orders.find(filter as Filter<OrderDoc>).explain())).toBe(true);
      expect((await orders.find(filter as Filter<OrderDoc>).toArray()).length).toBeGreaterThan(0);
    } finally {
      await orders.drop();
    }
  });

  it('talks to Redis', async () => {
    const key = `test:foundation:${names.suffix}`;
    await redis.set(key, 'ready', 'EX', 60);
    expect(await redis.get(key)).toBe('ready');
    expect(await redis.del(key)).toBe(1);
  });
});
