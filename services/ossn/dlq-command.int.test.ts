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
