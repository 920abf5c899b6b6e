// The steps of `ossn replay` that keep it safe, against the real servers: one replay at a time,
// the live projectors held during the switch and free again when a replay dies, a run that finds
// its build switched already only settles it, no second dead letter, and verification in passes.
import { describe, expect, it } from 'vitest';
import { generateDemoEvents } from '../ossn/demo-events/demo-events.js';
import type { ErpEvent } from '../../contracts/erp-events.js';
import type { ProjectorConfig } from '../config/config.js';
import { deadLetterTopic } from '../../contracts/transport.js';
import { freshProjectorConfig, projectUntilCaughtUp, publishEvents, useConnections } from '../../test/support/projector-system.js';
import { waitUntilCaughtUp } from '../adapters/kafka/progress.js';
import { readTopic } from '../adapters/kafka/read-topic.js';
import { startFollowingProjector } from '../projector/follow-active-version.js';
import { startProjector } from '../projector/run.js';
import { activateBuild, holdPreviousVersion, mayWrite, readActiveVersion, readBuild, recordBuild, releasePreviousVersion } from '../adapters/mongodb/active-version.js';
import { catchUpWithLiveVersion, holdMs } from './handover.js';
import { readModelCollections } from '../adapters/mongodb/documents.js';
import { acquireReplayLock, ReplayLockedError } from '../adapters/mongodb/replay-lock.js';
import { configForVersion } from '../projector/versions.js';
import { discardBuild, replay, type ReplayContext } from './replay.js';
import { verified, verifyRebuild } from './verify.js';
import { SwitchingLookups } from '../adapters/mongodb/switching-lookups.js';

const connections = useConnections('replay-steps');
const { kafka, logger, running } = connections;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function freshSystem(label: string, partitions = 3) {
  const { config, names } = await freshProjectorConfig(kafka, label, partitions);
  const db = connections.mongo.db(names.database);
  const ctx: ReplayContext = { config, db, kafka, logger };
  return { config, db, ctx };
}

const publish = (events: ErpEvent[], topic: string) => publishEvents(connections.producer, topic, events);

const buildLive = (config: ProjectorConfig) => projectUntilCaughtUp(connections, config);

describe('ossn replay, step by step', () => {
  it('runs one at a time: a second replay is refused while the first holds the lock, and a lock left by a killed replay lapses', async () => {
    const { db, ctx } = await freshSystem('replay-lock');
    const first = await acquireReplayLock(db);
    const refused = await replay(ctx).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ReplayLockedError);
    expect((refused as ReplayLockedError).message).toContain(first.holder);
    expect(await readBuild(db)).toBeUndefined(); // refused before it began anything
    await first.release();

    // A holder killed mid-way leaves its record, renewed no more: it lapses after its time, never before.
    await db.collection('replay_lock').insertOne({ _id: 'replay' as never, holder: 'a killed replay', expiresAt: new Date(Date.now() + 1_500) });
    await expect(acquireReplayLock(db)).rejects.toBeInstanceOf(ReplayLockedError);
    await sleep(2_000);
    const next = await acquireReplayLock(db);
    await next.release();

    // A running replay renews its lock: held past several of its lapse times, it is still its own.
    const long = await acquireReplayLock(db, 2_000);
    await sleep(5_000);
    await expect(acquireReplayLock(db)).rejects.toBeInstanceOf(ReplayLockedError);
    expect(long.lost()).toBeUndefined();
    // Taken over (as after a lapse while this replay was frozen): its next renewal says it lost it.
    await db.collection('replay_lock').updateOne({ _id: 'replay' as never }, { $set: { holder: 'another replay' } });
    await expect.poll(() => long.lost()?.message, { timeout: 3_000, interval: 100 }).toMatch(/lapsed and was taken by another replay/);
    await long.release(); // releases nothing of the other holder's
    expect(await db.collection('replay_lock').countDocuments({ holder: 'another replay' })).toBe(1);
  });

  it('a projector of the live version that meets a hold at its write waits and writes nothing until the hold ends', { timeout: 120_000 }, async () => {
    const { config, db } = await freshSystem('replay-fence');
    await recordBuild(db, { version: 2, previous: 1, consumerGroup: configForVersion(config, 2).consumerGroup, startedAt: new Date() });
    const build = (await readBuild(db))!;
    expect(await holdPreviousVersion(db, build, 60_000, true)).toBe(true);
    // Started as the hold began (the follower would not start it now): only the fence stands in its way.
    let refused = 0;
    const writeFence = async () => {
      const may = await mayWrite(db, 1, 1);
      if (!may) refused++;
      return may;
    };
    const projector = await startProjector(config, logger, { writeFence });
    running.push(projector);
    await publish(generateDemoEvents({ clients: 1, orders: 10, seed: 26 }), config.topic);
    // The fence has met the hold (a batch is in hand) and nothing was written.
    await expect.poll(() => refused, { timeout: 30_000, interval: 100 }).toBeGreaterThan(0);
    expect(await readModelCollections(db, 1).orderStatus.countDocuments()).toBe(0);
    await releasePreviousVersion(db, build);
    await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic, 30_000);
    expect(await readModelCollections(db, 1).orderStatus.countDocuments()).toBe(10);
  });

  it('renews the hold while the carry-over runs past a quarter of its time, and gives the hand-over up, hold released, once the lock is lost', { timeout: 120_000 }, async () => {
    const { config, db } = await freshSystem('replay-renew', 1);
    const build = await recordBuild(db, { version: 2, previous: 1, consumerGroup: configForVersion(config, 2).consumerGroup, startedAt: new Date() });
    const until = async () => ((await db.collection('read_model_versions').findOne({ _id: 'build' as never })) as { handoverUntil?: Date } | null)?.handoverUntil;
    // Nothing to catch up with (an empty topic, no live projector): level at once, then the quiet wait.
    let first: Date | undefined;
    let last: Date | undefined;
    const level = await catchUpWithLiveVersion(db, kafka, config.topic, build, config.consumerGroup, {
      whileLevel: async () => {
        first = await until();
        await sleep(holdMs / 4 + 1_500);
        last = await until();
      },
    });
    expect(level).toBe(true);
    expect(last!.getTime()).toBeGreaterThan(first!.getTime()); // renewed meanwhile, not left to run down

    const lost = new Error('the replay lock lapsed and was taken by another replay');
    await expect(catchUpWithLiveVersion(db, kafka, config.topic, build, config.consumerGroup, { check: () => { throw lost; } })).rejects.toBe(lost);
    expect(await until()).toBeUndefined(); // the hold is released: the live projectors go on at once
  });

  it('the live projector stops writing while a replay holds its version, and goes on by itself when the hold lapses', { timeout: 120_000 }, async () => {
    const { config, db } = await freshSystem('replay-hold');
    const events = generateDemoEvents({ clients: 1, orders: 40, seed: 21 });
    await publish(events.slice(0, 100), config.topic);
    const projector = await startFollowingProjector(config, logger, { checkMs: 200 });
    running.push(projector);
    await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);

    const build = await recordBuild(db, { version: 2, previous: 1, consumerGroup: configForVersion(config, 2).consumerGroup, startedAt: new Date() });
    // Held far longer than the checks below take: what they see is the hold, not a consumer that has not rejoined yet.
    expect(await holdPreviousVersion(db, build, 60_000, true)).toBe(true);
    await expect.poll(() => projector.joined(), { timeout: 10_000 }).toBe(false);
    const held = await readModelCollections(db, 1).orderStatus.countDocuments();
    await publish(events.slice(100), config.topic);
    await sleep(3_000);
    expect(await readModelCollections(db, 1).orderStatus.countDocuments()).toBe(held); // nothing written while held
    expect(projector.joined()).toBe(false);

    // The replay is gone (no renewal): the projector writes again after the hold's time, made short now.
    expect(await holdPreviousVersion(db, build, 1_000, false)).toBe(true);
    await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic, 30_000);
    expect(await readModelCollections(db, 1).orderStatus.countDocuments()).toBeGreaterThan(held);
    expect(projector.joined()).toBe(true);
  });

  it('a replay that finds its build active already (killed after the switch) only settles its times and ends the build', { timeout: 120_000 }, async () => {
    const { config, db, ctx } = await freshSystem('replay-resume-switched');
    await publish(generateDemoEvents({ clients: 1, orders: 30, seed: 22 }), config.topic);
    await buildLive(config);
    // A rebuild into version 2 that ran through, then the switch, then the process died.
    const build = await recordBuild(db, { version: 2, previous: 1, consumerGroup: configForVersion(config, 2).consumerGroup, startedAt: new Date() });
    await buildLive({ ...configForVersion(config, 2, 1), consumerGroup: build.consumerGroup });
    const v2 = readModelCollections(db, 2).orderStatus;
    await v2.updateMany({}, { $set: { changedAt: new Date('2001-01-01T00:00:00Z') } }); // times not settled yet
    await activateBuild(db, build);

    // Discarding it would drop what partners read: refused, nothing dropped.
    await expect(discardBuild(ctx)).rejects.toThrow(/version 2 is the active version already/);
    expect(await v2.countDocuments()).toBe(30);

    const result = await replay(ctx);
    expect(result.outcome).toBe('switched');
    if (result.outcome !== 'switched') return;
    expect(result.verify).toBeUndefined(); // nothing rebuilt or verified again
    expect(result.changeTimes.carried).toBe(30);
    expect(await readBuild(db)).toBeUndefined();
    expect((await readActiveVersion(db, 1)).version).toBe(2);
    const live = new Map((await readModelCollections(db, 1).orderStatus.find().toArray()).map((d) => [d._id, d.changedAt!.getTime()]));
    for (const doc of await v2.find().toArray()) expect(doc.changedAt!.getTime()).toBe(live.get(doc._id));
  });

  it('a rebuild does not send the events already in the dead-letter topic there again', { timeout: 120_000 }, async () => {
    const { config, ctx } = await freshSystem('replay-dead-letters', 2);
    const events = generateDemoEvents({ clients: 1, orders: 20, seed: 23 });
    await publish(events, config.topic);
    await connections.producer.send(config.topic, [
      { key: `${events[0]!.clientId}:${events[0]!.salesOrderNumber}`, value: '{"not": "an event"}' },
      { key: 'C:SO', value: 'not json' },
    ]);
    await buildLive(config);
    const dlq = deadLetterTopic(config.topic);
    expect(await readTopic(kafka, dlq)).toHaveLength(2);

    expect((await replay(ctx)).outcome).toBe('switched');
    expect(await readTopic(kafka, dlq)).toHaveLength(2); // the same two: none sent again
    // A new bad event after the switch still goes there, once.
    const projector = await startProjector(configForVersion(config, 2), logger);
    running.push(projector);
    await connections.producer.send(config.topic, [{ key: 'C:SO2', value: 'still not json' }]);
    await expect.poll(async () => (await readTopic(kafka, dlq)).length, { timeout: 20_000, interval: 500 }).toBe(3);
  });

  it('verification folds the topic in several passes, holding a share of the sales orders at a time, to the same counts as one pass', { timeout: 120_000 }, async () => {
    const { config, db } = await freshSystem('replay-verify-passes');
    const events = generateDemoEvents({ clients: 2, orders: 60, seed: 24 });
    await publish(events, config.topic);
    await buildLive(config);
    const admin = kafka.admin();
    await admin.connect();
    const until = new Map((await admin.fetchTopicOffsets(config.topic).finally(() => admin.disconnect())).map((p) => [p.partition, BigInt(p.high)]));
    const collections = readModelCollections(db, 1);
    const one = await verifyRebuild(kafka, config.topic, collections, { until, sampleSize: 1_000 });
    const several = await verifyRebuild(kafka, config.topic, collections, { until, sampleSize: 1_000, eventsPerPass: Math.ceil(events.length / 4) });
    expect(one.passes).toBe(1);
    expect(several.passes).toBe(4);
    expect(several.expected).toEqual(one.expected);
    expect(several.expected).toEqual(several.written);
    expect(several.sampled).toBe(one.sampled); // every sales order, in one pass or four
    expect(several.mismatches).toEqual([]);

    // And a document the projector did not write as the events say is found in either way.
    const [victim] = await collections.orderStatus.find().limit(1).toArray();
    await collections.orderStatus.updateOne({ _id: victim!._id }, { $set: { validTimestamp: new Date('2001-01-01T00:00:00Z') } });
    const tampered = await verifyRebuild(kafka, config.topic, collections, { until, sampleSize: 1_000, eventsPerPass: Math.ceil(events.length / 4) });
    expect(tampered.mismatches).toEqual([victim!._id]);
  });

  it('verification takes in what the documents hold past the committed offsets (a batch written, then abandoned uncommitted at the rebuild\'s stop): ahead of the commit is not wrong', { timeout: 120_000 }, async () => {
    const { config, db } = await freshSystem('replay-verify-held', 1);
    const events = generateDemoEvents({ clients: 1, orders: 40, seed: 27 });
    await publish(events, config.topic);
    await buildLive(config);
    // The group committed all but the last 50 events; the documents hold them all.
    const committed = new Map([[0, BigInt(events.length - 50)]]);
    const report = await verifyRebuild(kafka, config.topic, readModelCollections(db, 1), { until: committed, sampleSize: 1_000 });
    expect(report.mismatches).toEqual([]);
    expect(verified(report)).toBe(true);
  });

  it('a change the lagging live version shows only after the rebuild wrote it reaches a partner polling across the switch, before the times are settled', { timeout: 180_000 }, async () => {
    const { config, db, ctx } = await freshSystem('replay-lagging-live', 1);
    const events = generateDemoEvents({ clients: 1, orders: 30, seed: 25 });
    await publish(events, config.topic);
    await buildLive(config);
    const changed = events.find((e) => e.type === 'SalesOrderStatusChanged' && e.data.purchaseOrderNumber)!;
    const late = { ...changed, sequence: 10_000, eventId: '00000000-0000-4000-8000-000000020001', occurredAt: new Date().toISOString() } as ErpEvent;
    await publish([late], config.topic); // the live version lags: it has no projector yet

    const lookups = new SwitchingLookups(db, { fallbackVersion: 1, refreshMs: 60_000 });
    await lookups.start();
    running.push({ stop: async () => lookups.stop() });
    let since = new Date(0);
    const seen = new Set<string>();
    const poll = async () => {
      const at = new Date();
      const answer = await lookups.orderStatus([changed.clientId], { queryType: 3, statusTimeStamp: since });
      since = at;
      for (const d of answer.flatMap((o) => o.details)) if (d.factoryOrderNumber === changed.salesOrderNumber && d.validTimestamp.getTime() === new Date(late.occurredAt).getTime()) seen.add('late');
    };
    await poll();

    const result = await replay(ctx, {
      onPhase: async (phase) => {
        if (phase === 'verifying') {
          // The rebuild has written the late change. Long after, a partner polls the live version
          // (without it); then the live projector catches up and shows it there.
          await sleep(6_000);
          await poll();
          expect(seen.has('late')).toBe(false);
          const live = await startFollowingProjector(config, logger, { checkMs: 200 });
          running.push(live);
          await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic, 30_000);
        }
        if (phase === 'settling') {
          // Switched, times not settled yet: the partner polls the new version.
          await lookups.refresh();
          await poll();
        }
      },
    });
    expect(result.outcome).toBe('switched');
    await poll();
    expect(seen.has('late')).toBe(true);
  });
});
