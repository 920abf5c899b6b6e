// `ossn dlq list` and `ossn dlq redrive` against the real broker: an event dead-lettered because
// its location was never recorded is projected once the ERP sent the location and the operator
// re-sent it, and a second redrive is refused: its sales order has moved past it.
import { expect, it } from 'vitest';
import { locationRecorded, packageShipped, statusChanged } from '../../test/fixtures/sample-events.js';
import { deadLetterTopic, eventKey } from '../../contracts/transport.js';
import { foldEvents } from '../../projections/fold.js';
import { ossnEnv, runOssn } from '../../test/support/ossn-cli.js';
import { freshProjectorConfig, useConnections } from '../../test/support/projector-system.js';
import { topicSize, waitUntilCaughtUp } from '../adapters/kafka/progress.js';
import { startProjector } from '../projector/run.js';
import { readModelCollections, shipmentsStateProjection } from '../adapters/mongodb/documents.js';
import { DeadLetterHeaders } from '../domain/dead-letters/headers.js';

const connections = useConnections('dlq-test');
const { kafka, logger } = connections;

it('lists a dead letter with its reason, and a redrive after the fix projects it once', { timeout: 120_000 }, async () => {
  const { config, names } = await freshProjectorConfig(kafka, 'dlq-cli', 2);
  const key = eventKey('C1', 'SO-9');
  const send = (events: object[]) => connections.producer.send(config.topic, events.map((e) => ({ key, value: JSON.stringify(e) })));
  const cli = (...args: string[]) => runOssn(['dlq', ...args], ossnEnv(config));
  const shipped = packageShipped(3, 2, 7);
  // The ERP forgot to publish location 2 (sequence 2 is missing): the package shipped there is refused.
  await send([statusChanged(1), shipped]);
  await connections.producer.send(config.topic, [{ key: 'C1:SO-1', value: 'not json' }]);
  connections.running.push(await startProjector(config, logger));
  await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);
  await expect.poll(() => topicSize(kafka, deadLetterTopic(config.topic)), { timeout: 20_000 }).toBe(2n);

  const listed = await cli('list');
  expect(listed.code).toBe(0);
  const lines = listed.stdout.trim().split('\n');
  expect(lines.at(-1)).toBe(`2 dead letters in ${deadLetterTopic(config.topic)}`);
  const rejected = lines.find((l) => l.includes('\trejected\t'));
  expect(rejected).toMatch(/location 2/);
  expect(rejected).toContain(`key ${key}`);
  expect(rejected).toMatch(/source \d+:1\t/);
  const id = /\tid (\d+:\d+)\t/.exec(rejected ?? '')?.[1];
  expect(id).toBeDefined();

  const byReason = await cli('list', '--reason', 'not-json', '--since', '1h');
  expect(byReason.stdout).toContain('1 dead letters');
  expect(byReason.stdout).not.toContain('\trejected\t');
  expect((await cli('list', '--since', '2999-01-01T00:00:00Z')).stdout).toContain('0 dead letters');
  expect((await cli('redrive')).code).toBe(2); // nothing chosen: nothing sent

  // The ERP publishes the missing location; once it is projected, the operator re-sends the dead
  // letter (judged on the read model), then tries again after it was applied.
  await send([locationRecorded(2, 2)]);
  await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);
  const first = await cli('redrive', id!);
  expect(first.code).toBe(0);
  expect(first.stdout).toContain(`re-sent ${id!}: applies on top of sequence 2`);
  expect(first.stdout).toContain(`re-sent 1 dead letters to ${config.topic}`);
  await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);
  const second = await cli('redrive', id!);
  expect(second.code).toBe(3);
  expect(second.stdout).toContain(`refused ${id!}: sales order ${key} moved past it (sequence 3 applied, this one is 3)`);

  const collections = readModelCollections(connections.mongo.db(names.database), 1);
  const stored = await collections.shipments.findOne({ _id: key }, { projection: shipmentsStateProjection });
  const expected = foldEvents([statusChanged(1), locationRecorded(2, 2), shipped]).shipments.get(key);
  expect(stored).toEqual(expected);
  expect(stored?.locations[0]?.packages).toHaveLength(1);
  // The second redrive sent nothing, so nothing failed anew: still two dead letters.
  expect(await topicSize(kafka, deadLetterTopic(config.topic))).toBe(2n);
});

it('lists dead letters oldest first with their event type and eventId, as JSON too, and shows a letter\'s payload as it came', { timeout: 60_000 }, async () => {
  const { config } = await freshProjectorConfig(kafka, 'dlq-order', 2);
  const dlq = deadLetterTopic(config.topic);
  const cli = (...args: string[]) => runOssn(['dlq', ...args], ossnEnv(config));
  // Written as the projector writes them, the older on the higher partition: the topic's own order is not the time order.
  const letter = (failedAt: string, value: string, kind: string) => ({
    key: 'C1:SO-9',
    value,
    headers: { [DeadLetterHeaders.failedAt]: failedAt, [DeadLetterHeaders.kind]: kind, [DeadLetterHeaders.reason]: `${kind} reason`, [DeadLetterHeaders.sourcePartition]: '0', [DeadLetterHeaders.sourceOffset]: '7' },
  });
  const event = JSON.stringify(statusChanged(4));
  const raw = kafka.producer();
  await raw.connect();
  try {
    await raw.send({ topic: dlq, messages: [{ partition: 0, ...letter('2025-05-01T10:05:00.000Z', 'not json {', 'not-json') }] });
    await raw.send({ topic: dlq, messages: [{ partition: 1, ...letter('2025-05-01T10:01:00.000Z', event, 'rejected') }] });
  } finally {
    await raw.disconnect();
  }

  const listed = await cli('list');
  expect(listed.code).toBe(0);
  const [older, newer, total] = listed.stdout.trim().split('\n');
  expect(older).toBe(`2025-05-01T10:01:00.000Z\trejected\tid 1:0\ttype SalesOrderStatusChanged\tevent ${statusChanged(4).eventId}\tsource 0:7\tkey C1:SO-9\trejected reason`);
  expect(newer).toBe('2025-05-01T10:05:00.000Z\tnot-json\tid 0:0\ttype -\tevent -\tsource 0:7\tkey C1:SO-9\tnot-json reason');
  expect(total).toBe(`2 dead letters in ${dlq}`);

  const json = await cli('list', '--json');
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout)).toEqual([
    { id: '1:0', failedAt: '2025-05-01T10:01:00.000Z', kind: 'rejected', reason: 'rejected reason', source: '0:7', key: 'C1:SO-9', eventId: statusChanged(4).eventId, eventType: 'SalesOrderStatusChanged' },
    { id: '0:0', failedAt: '2025-05-01T10:05:00.000Z', kind: 'not-json', reason: 'not-json reason', source: '0:7', key: 'C1:SO-9', eventId: null, eventType: null },
  ]);

  const shown = await cli('show', '1:0');
  expect(shown).toMatchObject({ code: 0, stdout: event });
  expect(shown.stderr).toBe(`${older}\n`);
  expect((await cli('show', '0:0')).stdout).toBe('not json {');
  const unknown = await cli('show', '0:9');
  expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: `ossn dlq: no dead letter 0:9 in ${dlq}; see ossn dlq list\n` });
  expect((await cli('show', 'nine')).code).toBe(2);
});
