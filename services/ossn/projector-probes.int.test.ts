// `ossn projector`'s own port: /readyz once it has joined its group, /metrics counting what the
// events it consumed did (applied, skipped by the sequence rule, dead-lettered by reason).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sample } from '../../test/support/metrics-scrape.js';
import { startOssnProjector, type OssnProcess } from '../../test/support/ossn-cli.js';
import { locationRecorded, packageShipped, statusChanged } from '../../test/fixtures/sample-events.js';
import { eventKey } from '../../contracts/transport.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { createKafka } from '../adapters/kafka/client.js';
import { connectProducer, type MessageProducer } from '../adapters/kafka/producer.js';
import { ensureTopics } from '../adapters/kafka/topics.js';
import { createLogger } from '../plumbing/logging/logger.js';

const env = testEnvironment();
const kafka = createKafka(env.kafkaBrokers, 'projector-probes-test', createLogger('test', 'silent'));
let producer: MessageProducer;
let projector: OssnProcess | undefined;

beforeAll(async () => {
  producer = await connectProducer(kafka);
});
afterAll(async () => {
  projector?.child.kill('SIGTERM');
  await producer?.close();
});


it('is ready once it joined its group, and /metrics shows what the events did', { timeout: 90_000 }, async () => {
  const names = uniqueNames('projector-probes');
  await ensureTopics(kafka, names.topic, 2);
  const key = eventKey('C1', 'SO-9');
  const send = (events: unknown[]) => producer.send(names.topic, events.map((e) => ({ key, value: JSON.stringify(e) })));
  // 3 applied; one duplicate (2 again), one stale (1 after 3); a location never recorded (rejected),
  // one not JSON, one under the wrong key.
  await send([statusChanged(1), locationRecorded(2, 1), statusChanged(2), packageShipped(3, 1, 1), statusChanged(1), packageShipped(4, 9, 1)]);
  await producer.send(names.topic, [{ key, value: '{oops' }, { key: 'C1:SO-8', value: JSON.stringify(statusChanged(5)) }]);

  projector = startOssnProjector({ kafkaBrokers: env.kafkaBrokers, mongodbUri: env.mongodbUri, database: names.database, topic: names.topic, consumerGroup: names.group });
  const output = projector.output;
  await expect.poll(() => /"url":"(http:[^"]+)".*probes listening/.exec(output())?.[1], { timeout: 60_000, interval: 100 }).toBeDefined();
  const url = /"url":"(http:[^"]+)".*probes listening/.exec(output())![1];

  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  await expect.poll(async () => (await fetch(`${url}/readyz`)).status, { timeout: 40_000, interval: 200 }).toBe(200);
  const scrape = async () => (await fetch(`${url}/metrics`)).text();
  await expect.poll(async () => sample(await scrape(), 'ossn_projector_events_applied_total'), { timeout: 40_000, interval: 250 }).toBe(3);

  const text = await scrape();
  expect(sample(text, 'ossn_projector_events_skipped_total{reason="duplicate"}')).toBe(1);
  expect(sample(text, 'ossn_projector_events_skipped_total{reason="stale"}')).toBe(1);
  expect(sample(text, 'ossn_projector_dead_letters_total{reason="rejected"}')).toBe(1);
  expect(sample(text, 'ossn_projector_dead_letters_total{reason="not-json"}')).toBe(1);
  expect(sample(text, 'ossn_projector_dead_letters_total{reason="wrong-key"}')).toBe(1);
  expect(sample(text, 'ossn_projector_freshness_seconds_count')).toBe(3);
  expect(sample(text, 'ossn_projector_batch_duration_seconds_count')).toBeGreaterThanOrEqual(1);
  expect(sample(text, 'ossn_projector_read_model_version')).toBe(1);
  // What stock Node.js dashboards read, unprefixed, and what this process runs.
  expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  expect(text).toMatch(/^ossn_build_info\{version="[^"]+",node_version="v[^"]+",commit="[^"]+"\} 1$/m);
  await expect.poll(async () => sample(await scrape(), 'ossn_projector_consumer_lag_messages{partition="0"}') + sample(await scrape(), 'ossn_projector_consumer_lag_messages{partition="1"}'), {
    timeout: 20_000,
    interval: 500,
  }).toBe(0);
});
