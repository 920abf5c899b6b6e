// `ossn projector` as a container runs it: SIGTERM stops it cleanly, also while it is still starting;
// it refuses a consumer group of another topic's projectors.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { startDedicatedKafka } from '../../test/support/dedicated-kafka.js';
import { startOssnProjector, type OssnProcess } from '../../test/support/ossn-cli.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { startProxyTo, startTcpProxy } from '../../test/support/tcp-proxy.js';
import { createKafka } from '../adapters/kafka/client.js';
import { ensureTopics } from '../adapters/kafka/topics.js';
import { createLogger } from '../plumbing/logging/logger.js';

const env = testEnvironment();

/** `ossn projector` on names of its own; with `asInit`, as a container runs it (see startOssn). */
function projectorProcess(brokers = env.kafkaBrokers, { mongodbUri = env.mongodbUri, asInit = false } = {}): OssnProcess {
  const names = uniqueNames('projector-command');
  return startOssnProjector({ kafkaBrokers: brokers, mongodbUri, database: names.database, topic: names.topic, consumerGroup: names.group, topicPartitions: 1 }, { asInit });
}

it('stops on SIGTERM once consuming, with exit code 0', { timeout: 90_000 }, async () => {
  const projector = projectorProcess();
  await expect.poll(projector.output, { timeout: 60_000, interval: 100 }).toContain('projector consuming');
  projector.child.kill('SIGTERM');
  expect(await projector.exit).toBe(0);
  expect(projector.output()).toContain('stopping after the current batch');
});

it('stops on SIGTERM while it cannot reach Kafka yet, with exit code 0', { timeout: 90_000 }, async () => {
  const projector = projectorProcess(['127.0.0.1:1']); // nothing listens there: the start keeps retrying
  await expect.poll(projector.output, { timeout: 60_000, interval: 100 }).toMatch(/kafkajs|ECONNREFUSED|Connection/i);
  projector.child.kill('SIGTERM');
  expect(await projector.exit).toBe(0);
  expect(projector.output()).toContain('stopping while starting');
  expect(projector.output()).not.toContain('projector consuming');
});

it('started while MongoDB and Kafka are away: keeps trying, says so in the log, and starts consuming once they answer', { timeout: 180_000 }, async () => {
  const { proxy: mongoProxy, url: mongoViaProxy } = await startProxyTo(env.mongodbUri);
  const [kafkaHost, kafkaPort] = env.kafkaBrokers[0]!.split(':');
  const kafkaProxy = await startTcpProxy({ host: kafkaHost!, port: Number(kafkaPort) });
  mongoProxy.cut();
  kafkaProxy.cut();
  // Kafka is reached through the proxy only to start: the broker then names its own address.
  const projector = projectorProcess([kafkaProxy.address], { mongodbUri: mongoViaProxy });
  let exited = false;
  void projector.exit.then(() => (exited = true));
  try {
    await expect.poll(projector.output, { timeout: 60_000, interval: 200 }).toContain('MongoDB does not answer yet; retrying');
    mongoProxy.restore();
    await expect.poll(projector.output, { timeout: 120_000, interval: 200 }).toContain('Kafka does not answer yet; retrying');
    expect(exited).toBe(false);
    kafkaProxy.restore();
    await expect.poll(projector.output, { timeout: 60_000, interval: 200 }).toContain('projector consuming');
    projector.child.kill('SIGTERM');
    expect(await projector.exit).toBe(0);
  } finally {
    projector.child.kill('SIGKILL');
    await mongoProxy.close();
    await kafkaProxy.close();
  }
});

it('as PID 1 of a container: a second SIGTERM while it waits to stop ends it at once', { timeout: 180_000 }, async () => {
  const broker = await startDedicatedKafka();
  const projector = projectorProcess(broker.brokers, { asInit: true });
  try {
    await expect.poll(projector.output, { timeout: 90_000, interval: 100 }).toContain('projector consuming');
    // The broker frozen: leaving the consumer group waits for an answer that does not come.
    broker.freeze();
    const init = initOf(projector.child.pid!);
    process.kill(init, 'SIGTERM');
    await expect.poll(projector.output, { timeout: 10_000, interval: 100 }).toContain('stopping after the current batch');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const secondAt = Date.now();
    process.kill(init, 'SIGTERM');
    const code = await Promise.race([projector.exit, new Promise((resolve) => setTimeout(() => resolve('still running'), 5_000))]);
    expect(code).toBe(143); // 128 + SIGTERM, from the process itself
    expect(Date.now() - secondAt).toBeLessThan(5_000);
    expect(projector.output()).toContain('second stop signal: exiting at once');
  } finally {
    projector.child.kill('SIGKILL');
    broker.thaw();
    await broker.stop();
  }
});

/** The pid (in our namespace) of the process that unshare started as PID 1 of the new namespace. */
function initOf(unsharePid: number): number {
  const children = readFileSync(`/proc/${unsharePid}/task/${unsharePid}/children`, 'utf8').trim().split(/\s+/);
  return Number(children[0]);
}

it("refuses to join a consumer group whose members read another topic, naming them and OSSN_CONSUMER_GROUP, and exits 1", { timeout: 120_000 }, async () => {
  // The case: a trial projector of another topic started with the live projector's group.
  const live = uniqueNames('projector-live');
  const trial = uniqueNames('projector-trial');
  const kafka = createKafka(env.kafkaBrokers, 'projector-refusal-test', createLogger('test', 'silent'));
  await ensureTopics(kafka, live.topic, 3);
  const liveMember = kafka.consumer({ groupId: live.group, sessionTimeout: 10_000 });
  let joined = false;
  liveMember.on(liveMember.events.GROUP_JOIN, () => (joined = true));
  await liveMember.connect();
  try {
    await liveMember.subscribe({ topic: live.topic });
    await liveMember.run({ eachMessage: async () => undefined });
    await expect.poll(() => joined, { timeout: 30_000 }).toBe(true);

    const projector = startOssnProjector({ kafkaBrokers: env.kafkaBrokers, mongodbUri: env.mongodbUri, database: trial.database, topic: trial.topic, consumerGroup: live.group, topicPartitions: 1 });
    const code = await Promise.race([projector.exit, new Promise((resolve) => setTimeout(() => resolve('still running'), 60_000))]);
    projector.child.kill('SIGKILL');
    expect(code).toBe(1);
    const output = projector.output();
    expect(output).toContain(`ossn projector: consumer group ${live.group} has members reading another topic (`);
    expect(output).toContain(`reads ${live.topic}): a projector of ${trial.topic} does not join it`);
    expect(output).toContain('set OSSN_CONSUMER_GROUP to a group of its own');
    expect(output).not.toContain('projector consuming');
    // The live member kept its partitions: nothing of the live topic was handed to the trial.
    const admin = kafka.admin();
    await admin.connect();
    const [group] = (await admin.describeGroups([live.group]).finally(() => admin.disconnect())).groups;
    expect(group?.members).toHaveLength(1);
  } finally {
    await liveMember.disconnect();
  }
});
