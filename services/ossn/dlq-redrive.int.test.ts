// `ossn dlq redrive` against the real broker and store (issue 16): what the command reports per
// dead letter is what the read models end with. A letter its sales order moved past is refused
// and nothing is sent; a letter that folds now is re-sent and the projector applies it.
import { expect, it } from 'vitest';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { locationRecorded, packageShipped, statusChanged } from '../../test/fixtures/sample-events.js';
import { deadLetterTopic, eventKey } from '../../contracts/transport.js';
import { ossnEnv, runOssn } from '../../test/support/ossn-cli.js';
import { freshProjectorConfig, useConnections } from '../../test/support/projector-system.js';
import { readModels, reference } from '../../test/support/read-models.js';
import { topicSize, waitUntilCaughtUp } from '../adapters/kafka/progress.js';
import { startProjector } from '../projector/run.js';
import { readModelCollections } from '../adapters/mongodb/documents.js';

const connections = useConnections('dlq-redrive-test');
const { kafka, logger } = connections;

/** The same event for sales order SO-8 (its own eventId). */
const ofSo8 = <E extends ErpEvent>(event: E): E => ({ ...event, salesOrderNumber: 'SO-8', eventId: event.eventId.replace(/^0{8}/, '00000008') });

it('refuses a dead letter its sales order moved past, re-sends one that applies, and reports what the read models end with', { timeout: 180_000 }, async () => {
  const { config, names } = await freshProjectorConfig(kafka, 'dlq-redrive', 2);
  const db = connections.mongo.db(names.database);
  const shipments = readModelCollections(db, 1).shipments;
  const send = (key: string, events: ErpEvent[]) => connections.producer.send(config.topic, events.map((e) => ({ key, value: JSON.stringify(e) })));
  const cli = (...args: string[]) => runOssn(['dlq', ...args], ossnEnv(config));
  const so9 = eventKey('C1', 'SO-9');
  const so8 = eventKey('C1', 'SO-8');

  // SO-9: the package shipped at sequence 5 names location 2, which the ERP has not recorded: rejected.
  const shipped9 = packageShipped(5, 2, 1);
  await send(so9, [statusChanged(1), shipped9]);
  // SO-8: a valid package at sequence 3 under the wrong key: dead-lettered, its sales order does not move on.
  const shipped8 = ofSo8(packageShipped(3, 1, 1));
  await send(so8, [ofSo8(statusChanged(1)), ofSo8(locationRecorded(2, 1))]);
  await send('C1:wrong', [shipped8]);
  connections.running.push(await startProjector(config, logger));
  await expect.poll(() => topicSize(kafka, deadLetterTopic(config.topic)), { timeout: 30_000 }).toBe(2n);
  const listed = (await cli('list')).stdout;
  const idOf = (kind: string) => new RegExp(`\\t${kind}\\tid (\\d+:\\d+)\\t`).exec(listed)?.[1] as string;
  const [rejected, misKeyed] = [idOf('rejected'), idOf('wrong-key')];
  expect(rejected).toBeDefined();
  expect(misKeyed).toBeDefined();

  // The ERP fixes SO-9 by recording location 2 at sequence 6: the dead letter (5) is now below it.
  await send(so9, [locationRecorded(6, 2)]);
  await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);
  const published = [statusChanged(1), locationRecorded(6, 2), ofSo8(statusChanged(1)), ofSo8(locationRecorded(2, 1))];
  expect(await readModels(db)).toEqual(reference(published));
  const topicBefore = await topicSize(kafka, config.topic);

  // (a) Refused with the reason, exit 3, nothing sent, nothing changed.
  const stale = await cli('redrive', rejected);
  expect(stale.code).toBe(3);
  expect(stale.stdout.trim().split('\n')).toEqual([
    `refused ${rejected}: sales order ${so9} moved past it (sequence 6 applied, this one is 5): the ERP must republish what it carries with a sequence above 6 (rejected, key ${so9})`,
    `re-sent 0 dead letters to ${config.topic}; refused 1: ${rejected}`,
  ]);
  expect(await topicSize(kafka, config.topic)).toBe(topicBefore);
  await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);
  expect(await readModels(db)).toEqual(reference(published));

  // (b) Applies at its sequence: re-sent, exit 0, and the projector shows it.
  const fixed = await cli('redrive', misKeyed);
  expect(fixed.stdout.trim().split('\n')).toEqual([
    `re-sent ${misKeyed}: applies on top of sequence 2 (wrong-key, key C1:wrong)`,
    `re-sent 1 dead letters to ${config.topic}`,
  ]);
  expect(fixed.code).toBe(0);
  expect(await topicSize(kafka, config.topic)).toBe(topicBefore + 1n);
  await expect
    .poll(async () => (await shipments.findOne({ _id: so8 }))?.locations[0]?.packages.map((p) => p.packageId), { timeout: 30_000 })
    .toEqual([1]);
  await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);
  // What the two reports said, and nothing else: SO-8 has its package, SO-9 still has none.
  expect(await readModels(db)).toEqual(reference([...published, shipped8]));
  expect(await topicSize(kafka, deadLetterTopic(config.topic))).toBe(2n);

  // Both again: the re-sent one is now applied, so neither is sent.
  const again = await cli('redrive', '--all');
  expect(again.code).toBe(3);
  expect(again.stdout).toContain(`refused ${misKeyed}: sales order ${so8} moved past it (sequence 3 applied, this one is 3)`);
  expect(again.stdout).toContain(`re-sent 0 dead letters to ${config.topic}; refused 2:`);
  expect(await topicSize(kafka, config.topic)).toBe(topicBefore + 1n);
});
