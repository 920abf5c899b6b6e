// Our producer against the real broker: it is idempotent (the broker gives it a producer id, as
// kafkajs reports through the client's public log), which kafkajs allows only with acks=all: it
// refuses every send of an idempotent producer that asks for fewer acknowledgements. (One broker
// cannot tell acks=all from a leader's acknowledgement by what it answers.)
import { Kafka, logLevel, type LogEntry } from 'kafkajs';
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
