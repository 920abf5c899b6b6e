// Our producer against the real broker: it is idempotent (the broker gives it a producer id, as
// kafkajs reports through the client's public log), which kafkajs allows only with acks=all: it
// refuses every send of an idempotent producer that asks for fewer acknowledgements. (One broker
// cannot tell acks=all from a leader's acknowledgement by what it answers.)
import { Kafka, logLevel, type ISocketFactory, type LogEntry } from 'kafkajs';
import { connect } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { createKafka } from './client.js';
import { connectProducer, UnacknowledgedSendError } from './producer.js';
import { readTopic } from './read-topic.js';

const logged: { level: number; message: string; producerId?: unknown }[] = [];
// The test's own client: the same as createKafka's but for one retry (a refused send fails at once)
// and kafkajs's debug lines recorded.
const kafka = new Kafka({
  clientId: 'producer-test',
  brokers: testEnvironment().kafkaBrokers,
  logLevel: logLevel.DEBUG,
  retry: { retries: 1, initialRetryTime: 100 },
  logCreator:
    () =>
    ({ level, log: { message, producerId } }: LogEntry) =>
      void logged.push({ level, message, producerId }),
});
const admin = kafka.admin();
const names = uniqueNames('producer');
const small = `${names.topic}.small`;

afterAll(async () => {
  await admin.disconnect();
});

it('is idempotent, sends in order, and sends again from a new producer id after a refused send', { timeout: 60_000 }, async () => {
  await admin.connect();
  // A topic that takes no message over 100 bytes: the broker refuses a longer one.
  await admin.createTopics({
    waitForLeaders: true,
    topics: [
      { topic: names.topic, numPartitions: 1 },
      { topic: small, numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: '100' }] },
    ],
  });
  const producer = await connectProducer(kafka);
  try {
    expect(logged.filter((entry) => entry.message === 'Initialized producer id & epoch').map((entry) => Number(entry.producerId))).toEqual([
      expect.any(Number),
    ]);
    expect(Number(logged.find((entry) => entry.message === 'Initialized producer id & epoch')?.producerId)).toBeGreaterThanOrEqual(0);

    await expect(producer.send(small, [{ key: 'k', value: 'x'.repeat(1_000) }])).rejects.toThrow(/larger than/);
    await producer.send(names.topic, [{ key: 'k', value: 'one' }]);
    await producer.send(names.topic, [{ key: 'k', value: 'two' }]);
  } finally {
    await producer.close();
  }
  expect((await readTopic(kafka, names.topic)).map((m) => String(m.value))).toEqual(['one', 'two']);
  expect(await readTopic(kafka, small)).toEqual([]);
  // The refused send left its producer's sequence numbers in doubt: the next send came from a new producer id.
  expect(logged.filter((entry) => entry.message === 'Initialized producer id & epoch')).toHaveLength(2);
  // The warning client.ts keeps out of our logs, as kafkajs words it.
  expect(logged.some((entry) => entry.message === 'Limiting retries for the idempotent producer may invalidate EoS guarantees')).toBe(true);
});

it('gives up on a send Kafka does not acknowledge within the deadline, and the next send goes out', { timeout: 60_000 }, async () => {
  const topic = `${names.topic}.deadline`;
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
  // ossn's own client (its bounded retries, about half a minute) and a short deadline: a send to a
  // topic that does not exist is retried by kafkajs all that while, and has to end at the deadline.
  const patient = createKafka(testEnvironment().kafkaBrokers, 'producer-deadline-test', createLogger('test', 'silent'));
  const deadlineMs = 1_500;
  const producer = await connectProducer(patient, { sendDeadlineMs: deadlineMs });
  try {
    const started = Date.now();
    const error: unknown = await producer.send(`${topic}.missing`, [{ key: 'k', value: 'lost' }]).catch((e: unknown) => e);
    const took = Date.now() - started;
    expect(error).toBeInstanceOf(UnacknowledgedSendError);
    expect((error as Error).message).toBe(
      'Kafka did not acknowledge the batch within 1.5 s; it may or may not have been written: send it again (events are idempotent by their sequence)',
    );
    expect(took).toBeGreaterThanOrEqual(deadlineMs - 10);
    expect(took).toBeLessThan(deadlineMs + 1_000);

    await producer.send(topic, [{ key: 'k', value: 'after' }]);
  } finally {
    await producer.close();
  }
  expect((await readTopic(kafka, topic)).map((m) => String(m.value))).toEqual(['after']);
});

it('acknowledges no send it did not write, to a topic created again with fewer partitions', { timeout: 60_000 }, async () => {
  const topic = `${names.topic}.recreated`;
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 6 }] });
  const producer = await connectProducer(kafka, { sendDeadlineMs: 10_000 });
  const keys = Array.from({ length: 12 }, (_, n) => `C1:SO-${n}`);
  try {
    await producer.send(topic, keys.map((key) => ({ key, value: `before ${key}` })));
    await admin.deleteTopics({ topics: [topic], timeout: 30_000 });
    // Created again once the deletion is through (until then the name is still taken).
    while (!(await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 2 }] }).catch(() => false)));
    // As a caller does (the projector retries its batch): sent again until acknowledged.
    const failures: unknown[] = [];
    for (;;) {
      const error: unknown = await producer.send(topic, keys.map((key) => ({ key, value: `after ${key}` }))).catch((e: unknown) => e);
      if (error === undefined) break;
      failures.push(error);
      if (failures.length > 2) throw error;
    }
  } finally {
    await producer.close();
  }
  // Every message of the acknowledged send is in the topic (the 6-partition count kept, 8 of the 12 were not).
  const values = new Set((await readTopic(kafka, topic)).map((m) => String(m.value)));
  expect(keys.filter((key) => !values.has(`after ${key}`))).toEqual([]);
});

it('loses no message of sends called at once when the answer to one is lost after the broker wrote it', { timeout: 60_000 }, async () => {
  const topic = `${names.topic}.answer-lost`;
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
  // The connection drops as the broker answers the next produce request (as when a leader dies
  // having written it): the request is written, its sender sees a closed connection.
  let dropNextProduceAnswer = false;
  const socketFactory: ISocketFactory = ({ host, port, onConnect }) => {
    const socket = connect({ host, port }, onConnect);
    let produceInFlight = false;
    const write = socket.write.bind(socket) as (chunk: unknown, ...rest: unknown[]) => boolean;
    // A request: its size (int32), then its API key (int16): 0 is Produce.
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (dropNextProduceAnswer && Buffer.isBuffer(chunk) && chunk.length >= 6 && chunk.readInt16BE(4) === 0) produceInFlight = true;
      return write(chunk, ...rest);
    }) as typeof socket.write;
    const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
    socket.emit = ((event: string | symbol, ...args: unknown[]) => {
      if (event !== 'data' || !produceInFlight) return emit(event, ...args);
      produceInFlight = dropNextProduceAnswer = false;
      socket.destroy();
      return emit('end');
    }) as typeof socket.emit;
    return socket;
  };
  const faulty = new Kafka({ clientId: 'producer-answer-lost-test', brokers: testEnvironment().kafkaBrokers, logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 100 }, socketFactory });
  const producer = await connectProducer(faulty, { sendDeadlineMs: 20_000 });
  let outcomes: PromiseSettledResult<void>[];
  try {
    await producer.send(topic, [{ key: 'C1:SO-0', value: 'first' }]);
    dropNextProduceAnswer = true;
    // As the projector's batches of two partitions send their dead letters.
    outcomes = await Promise.allSettled([producer.send(topic, [{ key: 'C1:SO-1', value: 'A' }]), producer.send(topic, [{ key: 'C1:SO-2', value: 'B' }])]);
  } finally {
    await producer.close();
  }
  expect(dropNextProduceAnswer).toBe(false);
  const values = (await readTopic(kafka, topic)).map((m) => String(m.value));
  const acknowledged = ['A', 'B'].filter((_, n) => outcomes[n]?.status === 'fulfilled');
  expect(acknowledged.filter((value) => !values.includes(value))).toEqual([]);
  expect(acknowledged).toEqual(['A', 'B']);
});

it('sends nothing after close(), not even a send that was waiting for the one before', { timeout: 60_000 }, async () => {
  const topic = `${names.topic}.closed`;
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
  const producer = await connectProducer(kafka, { sendDeadlineMs: 20_000 });
  const first = producer.send(topic, [{ key: 'k', value: 'first' }]).catch((e: unknown) => e);
  const second = producer.send(topic, [{ key: 'k', value: 'after close' }]).catch((e: unknown) => e);
  // Closed once the first send is under way (it starts as soon as the calls above have returned):
  // it fails on the closed producer, and the second, its turn come, must not open another.
  await new Promise((resolve) => setImmediate(resolve));
  await producer.close();
  await first;
  expect(await second).toBeInstanceOf(Error);
  expect((await readTopic(kafka, topic)).map((m) => String(m.value))).not.toContain('after close');
});
