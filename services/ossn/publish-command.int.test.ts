// `ossn publish` as the ERP team meets it: on a fresh system, before the topics exist, one plain
// line saying which topic is missing and how to create it; with --create-topics it creates them;
// a large file shows its progress; contract v2's events go out as v1's do.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { generateDemoEvents } from './demo-events/demo-events.js';
import { deadLetterTopic } from '../../contracts/transport.js';
import { asV2, contactsRecorded, issueRecorded, linesRecorded, locationRecorded, packageShipped, sampleShipTo, statusChanged } from '../../test/fixtures/sample-events.js';
import { runOssn } from '../../test/support/ossn-cli.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { createKafka } from '../adapters/kafka/client.js';
import { topicSize } from '../adapters/kafka/progress.js';
import { publishChunk } from '../adapters/kafka/publish-events.js';
import { createLogger } from '../plumbing/logging/logger.js';

const env = testEnvironment();
const kafka = createKafka(env.kafkaBrokers, 'publish-test', createLogger('test', 'silent'));

it('names the missing topic in one line, creates the topics when asked, and shows progress', { timeout: 120_000 }, async () => {
  const { topic, suffix } = uniqueNames('publish-cli');
  const events = generateDemoEvents({ clients: 4, orders: 1_500, seed: 5 });
  const file = join(tmpdir(), `ossn-publish-${suffix}.ndjson`);
  writeFileSync(file, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  const vars = { KAFKA_BROKERS: env.kafkaBrokers.join(','), OSSN_TOPIC: topic, OSSN_TOPIC_PARTITIONS: '3', LOG_LEVEL: 'info' };

  const refused = await runOssn(['publish', file], vars);
  expect(refused.code).toBe(1);
  expect(refused.stdout).toBe('');
  const sendsTo = `publishing to topic ${topic} (OSSN_TOPIC) on ${env.kafkaBrokers.join(',')} (KAFKA_BROKERS)\n`;
  expect(refused.stderr).toBe(
    `${sendsTo}ossn publish: topics ${topic} and ${deadLetterTopic(topic)} do not exist; create them with \`ossn setup\`, or run \`ossn publish --create-topics ${file}\` (3 partitions, OSSN_TOPIC_PARTITIONS)\n`,
  );

  const created = await runOssn(['publish', '--create-topics', file], vars);
  expect(created.code).toBe(0);
  expect(created.stdout).toBe(`sent ${events.length} events to ${topic}; refused 0 lines\n`);
  const progress = created.stderr.trim().split('\n');
  expect(`${progress.shift()}\n`).toBe(sendsTo);
  expect(progress[0]).toBe(
    `created ${topic} and ${deadLetterTopic(topic)} with 3 partitions and the brokers' default replication: only 1 broker answered (node 1 at ${env.kafkaBrokers[0]}), and 3 or more get replication factor 3; if the cluster has more, rerun ossn setup once all answer: it warns of a topic with fewer replicas than 3 (ossn does not reassign partitions)`,
  );
  // Not a terminal: plain lines, the first one right after the first chunk was sent (as many events
  // as publishChunk lets in: here its bytes, some 1,600 events).
  const first = /^publishing: ([\d,]+) of [\d,]+ events \(\d+%\), [\d,]+ events\/s, \S+ left$/.exec(progress[1] ?? '');
  expect(first, progress[1]).not.toBeNull();
  expect(Number(first![1]!.replaceAll(',', ''))).toBeGreaterThan(0);
  expect(Number(first![1]!.replaceAll(',', ''))).toBeLessThanOrEqual(publishChunk.events);
  expect(created.stderr).not.toMatch(/kafkajs|does not host/);
  expect(await topicSize(kafka, topic)).toBe(BigInt(events.length));
  const admin = kafka.admin();
  await admin.connect();
  const metadata = await admin.fetchTopicMetadata({ topics: [topic] }).finally(() => admin.disconnect());
  expect(metadata.topics[0]?.partitions).toHaveLength(3);
});

it('publishes contract v2 events beside v1 ones, and refuses v2 content under schemaVersion 1 by line', { timeout: 60_000 }, async () => {
  const { topic, suffix } = uniqueNames('publish-cli-v2');
  const v2Status = asV2(statusChanged(2, { purchaseOrderNumber: 'PO-1', statusId: 80, statusV2: 'shipped', additionalExplanation: 'Delivery pending' }));
  const lines = [
    statusChanged(1),
    v2Status,
    { ...v2Status, sequence: 3, schemaVersion: 1 },
    issueRecorded(4, { issueStatus: 'Pending', issueDescription: 'Send a vector logo' }),
    linesRecorded(5, [{ salesOrderLineNumber: '1', productId: 'PC61', quantityOrdered: { value: 2, uom: 'DZ' } }]),
    contactsRecorded(6, [{ contactType: 'Order', email: 'jo@acme.example' }]),
    asV2(locationRecorded(7, 1, { customerPickup: true, shipTo: { ...sampleShipTo, attentionTo: 'Dock 4' } })),
    asV2(packageShipped(8, 1, 1, { carrierService: 'UPS Ground', preProductionProof: 'Yes', items: [{ supplierProductId: 'PC61', quantity: 24, uom: 'EA' }] })),
  ];
  const file = join(tmpdir(), `ossn-publish-${suffix}.ndjson`);
  writeFileSync(file, lines.map((e) => `${JSON.stringify(e)}\n`).join(''));
  const vars = { KAFKA_BROKERS: env.kafkaBrokers.join(','), OSSN_TOPIC: topic, OSSN_TOPIC_PARTITIONS: '1', LOG_LEVEL: 'info' };

  const published = await runOssn(['publish', '--create-topics', file], vars);
  expect(published.stdout).toBe(`sent 7 events to ${topic}; refused 1 lines\n`);
  expect(published.stderr).toContain(
    'line 3 refused: /data/statusV2: is not an allowed property; /data/additionalExplanation: is not an allowed property; /schemaVersion: the fields of contract v2 need schemaVersion 2\n',
  );
  // Partly done: the valid lines were sent.
  expect(published.code).toBe(3);
  expect(await topicSize(kafka, topic)).toBe(7n);
});

it('--dry-run validates a file without sending anything or asking Kafka: 0 when every line is valid, 3 when some are refused', { timeout: 60_000 }, async () => {
  const { topic, suffix } = uniqueNames('publish-dry-run');
  const valid = join(tmpdir(), `ossn-dry-run-valid-${suffix}.ndjson`);
  writeFileSync(valid, [statusChanged(1), locationRecorded(2, 1)].map((e) => `${JSON.stringify(e)}\n`).join(''));
  const mixed = join(tmpdir(), `ossn-dry-run-mixed-${suffix}.ndjson`);
  writeFileSync(mixed, `${JSON.stringify(statusChanged(1))}\n${JSON.stringify({ ...statusChanged(2), data: { purchaseOrderNumber: 'PO-1', statusId: 12 } })}\nnot json\n`);
  // Nothing listens at Kafka's address: a dry run does not ask it.
  const vars = { KAFKA_BROKERS: '127.0.0.1:1', OSSN_TOPIC: topic };

  const clean = await runOssn(['publish', '--dry-run', valid], vars);
  expect(clean).toMatchObject({ code: 0, stdout: 'dry run: 2 events valid, 0 lines refused; nothing sent\n' });
  expect(clean.stderr).not.toMatch(/publishing|refused/);
  const refused = await runOssn(['publish', '--dry-run', mixed], vars);
  expect(refused.code).toBe(3);
  expect(refused.stdout).toBe('dry run: 1 events valid, 2 lines refused; nothing sent\n');
  expect(refused.stderr).toMatch(/\nline 2 refused: \/data\/statusId: must be one of .*got 12\nline 3 refused: /);
  const fromStdin = await runOssn(['publish', '--dry-run', '-'], {}, { input: `${JSON.stringify(statusChanged(1))}\n` });
  expect(fromStdin).toMatchObject({ code: 0, stdout: 'dry run: 1 events valid, 0 lines refused; nothing sent\n' });

  const admin = kafka.admin();
  await admin.connect();
  const topics = await admin.listTopics().finally(() => admin.disconnect());
  expect(topics).not.toContain(topic);
});
