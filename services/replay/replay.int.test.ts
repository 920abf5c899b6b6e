// `ossn replay` against the real servers: the switch under polling load, change times across the
// switch with the rebuild behind and ahead of the live version, and a stopped rebuild resumed.
import type { Db } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { generateDemoEvents } from '../ossn/demo-events/demo-events.js';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { foldEvents } from '../../projections/fold.js';
import { ossnEnv, runOssn, startOssn } from '../../test/support/ossn-cli.js';
import { freshProjectorConfig, projectUntilCaughtUp, publishEvents, useConnections } from '../../test/support/projector-system.js';
import { uniqueNames } from '../../test/support/servers.js';
import type { ProjectorConfig } from '../config/config.js';
import { waitUntilCaughtUp } from '../adapters/kafka/progress.js';
import { startFollowingProjector, type FollowingProjector } from '../projector/follow-active-version.js';
import { consumerGroupFor } from '../projector/versions.js';
import { buildApp } from '../query/app.js';
import type { OrderStatusView } from '../../contracts/lookup-answers.js';
import { readActiveVersion, readBuild } from '../adapters/mongodb/active-version.js';
import { readModelCollections, shipmentsStoreFields } from '../adapters/mongodb/documents.js';
import { orderStatusStoreFields } from '../../projections/polling/timed-documents.js';
import { SwitchingLookups } from '../adapters/mongodb/switching-lookups.js';
import { FakeAuthenticator } from '../../test/support/fake-ports.js';
import { replay, type ReplayContext } from './replay.js';
import { deadLetterTopic } from '../../contracts/transport.js';
import { readTopic } from '../adapters/kafka/read-topic.js';

const connections = useConnections('replay-test');
const { kafka, logger, running } = connections;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const publish = (events: ErpEvent[], topic: string) => publishEvents(connections.producer, topic, events);

async function freshSystem(label: string, partitions = 3) {
  const { config, names } = await freshProjectorConfig(kafka, label, partitions);
  const db = connections.mongo.db(names.database);
  const ctx: ReplayContext = { config, db, kafka, logger };
  return { config, db, ctx, names };
}

async function followingProjector(config: ProjectorConfig): Promise<FollowingProjector> {
  const projector = await startFollowingProjector(config, logger, { checkMs: 300 });
  running.push(projector);
  return projector;
}

const buildLive = (config: ProjectorConfig) => projectUntilCaughtUp(connections, config);

/** The states of a version without their change and visible times, in _id order. */
async function states(db: Db, version: number) {
  const c = readModelCollections(db, version);
  return {
    statuses: await c.orderStatus.find({}, { projection: orderStatusStoreFields }).sort({ _id: 1 }).toArray(),
    shipments: await c.shipments.find({}, { projection: shipmentsStoreFields }).sort({ _id: 1 }).toArray(),
  };
}

/**
 * lastNewsAt of a version's shipments documents, by _id, in ms. It is derived (the latest of the
 * other times), and one plain write's $currentDate fields were seen up to several ms apart on a busy
 * machine, so it is compared within a second, well inside the lookups' 5 s overlap.
 */
async function newsTimes(db: Db, version: number): Promise<Map<string, number | undefined>> {
  const docs = await readModelCollections(db, version).shipments.find({}, { projection: { lastNewsAt: 1 } }).toArray();
  return new Map(docs.map((d) => [d._id, d.lastNewsAt?.getTime()]));
}

function expectNewsTimesClose(a: Map<string, number | undefined>, b: Map<string, number | undefined>) {
  expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
  const apart = [...a].filter(([id, at]) => (at === undefined) !== (b.get(id) === undefined) || Math.abs((at ?? 0) - (b.get(id) ?? 0)) > 1_000);
  expect(apart).toEqual([]);
}

/** Every visible time of a version's shipments documents but lastNewsAt (see newsTimes), by _id. */
async function shipmentTimes(db: Db, version: number): Promise<Map<string, unknown>> {
  const docs = await readModelCollections(db, version).shipments.find({}).toArray();
  const times = (d: (typeof docs)[number]) => [d.completeChangedAt, d.purchaseOrderSetAt, d.locations.map((l) => [l.completeChangedAt, l.packages.map((p) => p.visibleAt)])];
  return new Map(docs.map((d) => [d._id, times(d)]));
}

async function changeTimes(db: Db, version: number): Promise<Map<string, number>> {
  const docs = await readModelCollections(db, version).orderStatus.find({}, { projection: { changedAt: 1 } }).toArray();
  return new Map(docs.map((d) => [d._id, d.changedAt!.getTime()]));
}

const clientsOf = (events: ErpEvent[]) => [...new Set(events.map((e) => e.clientId))];

describe('ossn replay', () => {
  it('switches under 20 polling clients with no failed request and no answer mixing two versions', { timeout: 180_000 }, async () => {
    const { config, db, ctx } = await freshSystem('replay-load');
    const events = generateDemoEvents({ clients: 2, orders: 150, seed: 11 });
    await publish(events, config.topic);
    const projector = await followingProjector(config);
    await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);
    // Version 1 is told apart by a mark in every answer detail: validTimestamp 2001-01-01.
    const mark = new Date('2001-01-01T00:00:00Z');
    await readModelCollections(db, 1).orderStatus.updateMany({}, { $set: { validTimestamp: mark } });

    const lookups = new SwitchingLookups(db, { fallbackVersion: 1, refreshMs: 250 });
    await lookups.start();
    running.push({ stop: async () => lookups.stop() });
    const credential = { id: 'ops', scopes: ['order_status' as const, 'osn' as const], clientIds: clientsOf(events) };
    const app = await buildApp({
      logger,
      publicBaseUrl: 'http://x',
      lookups,
      authenticator: new FakeAuthenticator({ ops: { password: 'pw', credential } }),
    });
    running.push({ stop: () => app.close() });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const authorization = `Basic ${Buffer.from('ops:pw').toString('base64')}`;

    const failures: string[] = [];
    let mixed = 0;
    let backToOld = 0;
    const seen = Array.from({ length: 20 }, () => new Set<number>());
    let polling = true;
    const poller = async (i: number) => {
      while (polling) {
        const query = i % 2 === 0 ? 'queryType=4' : 'queryType=3&statusTimeStamp=2000-01-01T00:00:00Z';
        try {
          const response = await fetch(`${url}/api/partners/v1/orders/status?${query}`, { headers: { authorization } });
          if (response.status !== 200) {
            failures.push(`HTTP ${response.status}`);
            continue;
          }
          const { orders } = (await response.json()) as { orders: OrderStatusView[] };
          const marks = orders.flatMap((o) => o.details.map((d) => new Date(d.validTimestamp).getTime() === mark.getTime()));
          if (marks.length === 0) continue;
          const version = marks.every(Boolean) ? 1 : marks.some(Boolean) ? 0 : 2;
          if (version === 0) mixed++;
          if (version === 1 && seen[i]!.has(2)) backToOld++;
          seen[i]!.add(version);
        } catch (error) {
          failures.push(String(error));
        }
      }
    };
    const pollers = Array.from({ length: 20 }, (_, i) => poller(i));
    await sleep(1_000);

    const result = await replay(ctx);
    expect(result.outcome).toBe('switched');
    const switchedAt = Date.now();
    await expect.poll(() => seen.every((s) => s.has(2)), { timeout: 10_000, interval: 100 }).toBe(true);
    const switchSeconds = (Date.now() - switchedAt) / 1000;
    await sleep(1_000);
    polling = false;
    await Promise.all(pollers);

    expect(failures).toEqual([]);
    expect(mixed).toBe(0);
    expect(backToOld).toBe(0);
    expect(seen.every((s) => s.has(1) && s.has(2))).toBe(true);
    expect(switchSeconds).toBeLessThan(5);
    expect((await readActiveVersion(db, 1)).version).toBe(2);

    // The running projector follows: an event published after the switch lands in version 2.
    await expect.poll(() => projector.version(), { timeout: 10_000 }).toBe(2);
    const next = { ...events.find((e) => e.type === 'SalesOrderStatusChanged')!, sequence: 10_000, eventId: '00000000-0000-4000-8000-000000010000' };
    await publish([next as ErpEvent], config.topic);
    await waitUntilCaughtUp(kafka, consumerGroupFor(config, 2), config.topic);
    const stored = await readModelCollections(db, 2).orderStatus.findOne({ _id: `${next.clientId}:${next.salesOrderNumber}` });
    expect(stored?.sequence).toBe(10_000);
  });

  /** A partner polling queryType 3 with the time of its previous poll, as queries.md expects. */
  function partner(lookups: SwitchingLookups, clientIds: string[]) {
    let last = new Date(0);
    return async () => {
      const at = new Date();
      const answer = await lookups.orderStatus(clientIds, { queryType: 3, statusTimeStamp: last });
      last = at;
      return new Set(answer.flatMap((o) => o.details.map((d) => d.factoryOrderNumber)));
    };
  }

  it('rebuilt behind the live version: no change shown before looks new after the switch, and a later one is seen', { timeout: 180_000 }, async () => {
    const { config, db, ctx } = await freshSystem('replay-behind');
    const events = generateDemoEvents({ clients: 1, orders: 60, seed: 12 });
    await publish(events, config.topic);
    await followingProjector(config);
    await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);
    const lookups = new SwitchingLookups(db, { fallbackVersion: 1, refreshMs: 60_000 });
    await lookups.start();
    running.push({ stop: async () => lookups.stop() });
    const poll = partner(lookups, clientsOf(events));
    await sleep(6_000); // the live changes are now older than the lookups' overlap
    expect((await poll()).size).toBeGreaterThan(50);

    expect((await replay(ctx)).outcome).toBe('switched');
    await lookups.refresh();
    expect(lookups.version).toBe(2);
    expect(await poll()).toEqual(new Set()); // nothing old as new

    const changed = events.find((e) => e.type === 'SalesOrderStatusChanged')!;
    await publish([{ ...changed, sequence: 10_000, eventId: '00000000-0000-4000-8000-000000010001' } as ErpEvent], config.topic);
    await expect.poll(async () => [...(await poll())], { timeout: 20_000, interval: 500 }).toContain(changed.salesOrderNumber);
  });

  it('rebuilt ahead of the live version: a change the live version had not shown is seen by a partner polling across the switch', { timeout: 180_000 }, async () => {
    const { config, db, ctx } = await freshSystem('replay-ahead');
    const all = generateDemoEvents({ clients: 1, orders: 60, seed: 13 });
    const early = all.slice(0, Math.floor(all.length / 2));
    const late = all.slice(early.length);
    await publish(early, config.topic);
    await buildLive(config); // the live projector then lags: it is not running
    const lookups = new SwitchingLookups(db, { fallbackVersion: 1, refreshMs: 60_000 });
    await lookups.start();
    running.push({ stop: async () => lookups.stop() });
    const poll = partner(lookups, clientsOf(all));
    await sleep(6_000);
    expect((await poll()).size).toBeGreaterThan(20);
    await publish(late, config.topic);

    const lateChanges = late.filter((e) => e.type === 'SalesOrderStatusChanged');
    // Answers hold only sales orders carrying a purchase order number.
    const final = foldEvents(all).orderStatus;
    const lateOrders = new Set(lateChanges.filter((e) => final.get(`${e.clientId}:${e.salesOrderNumber}`)?.purchaseOrderNumber).map((e) => e.salesOrderNumber));
    const result = await replay(ctx, {
      onPhase: async (phase) => {
        if (phase !== 'verifying') return;
        // The rebuild has written the late changes; the partner polls the live version (without
        // them) more than the overlap later, then the switch happens.
        await sleep(6_000);
        expect(await poll()).toEqual(new Set());
      },
    });
    expect(result.outcome).toBe('switched');
    if (result.outcome === 'switched') expect(result.changeTimes.stamped).toBe(new Set(lateChanges.map((e) => e.salesOrderNumber)).size);
    await lookups.refresh();
    expect(await poll()).toEqual(lateOrders); // every late change, and no early one again
  });

  it('a rebuild stopped half-way is not active, and resumed ends equal to one that ran through', { timeout: 240_000 }, async () => {
    // One partition, several batches (of at most 1 MiB, not the default 8): a stop can fall between two of them.
    const events = generateDemoEvents({ clients: 3, orders: 400, seed: 14 });
    const system = await freshSystem('replay-through', 1);
    const through = { ...system, config: { ...system.config, fetchMaxBytesPerPartition: 2 ** 20 } };
    through.ctx = { ...through.ctx, config: through.config };
    const resumed = { ...through, config: { ...through.config, consumerGroup: `${uniqueNames('resumed').group}-v1`, store: { ...through.config.store, database: uniqueNames('replay-resumed').database } } };
    resumed.db = connections.mongo.db(resumed.config.store.database);
    resumed.ctx = { ...through.ctx, config: resumed.config, db: resumed.db };
    await publish(events, through.config.topic);
    await buildLive(through.config);
    await buildLive(resumed.config);

    expect((await replay(through.ctx)).outcome).toBe('switched');

    const stop = new AbortController();
    let stoppedAt = 0;
    const first = await replay(resumed.ctx, {
      signal: stop.signal,
      pollMs: 200,
      onProgress: (done, total) => {
        if (done > 0 && done < total && !stop.signal.aborted) {
          stoppedAt = done;
          stop.abort();
        }
      },
    });
    expect(first.outcome).toBe('stopped');
    expect(stoppedAt).toBeGreaterThan(0);
    expect((await readActiveVersion(resumed.db, 1)).version).toBe(1);
    expect((await readBuild(resumed.db))?.version).toBe(2);
    expect(await states(resumed.db, 2)).not.toEqual(await states(through.db, 2));

    expect((await replay(resumed.ctx)).outcome).toBe('switched');
    expect(await readBuild(resumed.db)).toBeUndefined();
    expect(await states(resumed.db, 2)).toEqual(await states(through.db, 2));
    // Every change time carried over from each system's own live version.
    expect(await changeTimes(resumed.db, 2)).toEqual(await changeTimes(resumed.db, 1));
    expect(await changeTimes(through.db, 2)).toEqual(await changeTimes(through.db, 1));
    // And every visible time of the shipments: nothing a partner has seen looks new after the switch.
    expect(await shipmentTimes(resumed.db, 2)).toEqual(await shipmentTimes(resumed.db, 1));
    expect(await shipmentTimes(through.db, 2)).toEqual(await shipmentTimes(through.db, 1));
    expectNewsTimesClose(await newsTimes(resumed.db, 2), await newsTimes(resumed.db, 1));
    expectNewsTimesClose(await newsTimes(through.db, 2), await newsTimes(through.db, 1));
    // Every event is valid: the resumed rebuild folded each sales order its first run wrote onto
    // what it wrote (a package of a location recorded before the stop is no unknown location).
    expect(await readTopic(kafka, deadLetterTopic(through.config.topic))).toEqual([]);
  });
});

describe('ossn replay on the command line', () => {
  it('switches, drops the previous version when told, and throws a stopped rebuild away', { timeout: 180_000 }, async () => {
    const { config, db, ctx } = await freshSystem('replay-cli');
    await publish(generateDemoEvents({ clients: 1, orders: 30, seed: 15 }), config.topic);
    await buildLive(config);
    const cli = (...args: string[]) =>
      runOssn(['replay', ...args], { ...ossnEnv(config), OSSN_CONSUMER_GROUP: config.consumerGroup });
    const collections = async () => (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();

    const switched = await cli();
    expect(switched.code).toBe(0);
    expect(switched.stdout).toMatch(/^rebuilding read-model version 2 from the beginning of /);
    expect(switched.stdout).toMatch(/sales orders folded afresh in 1 read of the topic, 0 differ\nswitching to version 2: /);
    expect(switched.stdout).toContain('version 2 is active since');
    expect(switched.stderr).toMatch(/rebuilding: \d[\d,]* of [\d,]+ events/);
    expect(await collections()).toEqual(expect.arrayContaining(['order_status_v1', 'order_status_v2']));

    const dropped = await cli('--drop-previous');
    expect(dropped.stdout).toBe('dropped version 1\n');
    expect(await collections()).not.toContain('order_status_v1');
    expect((await readActiveVersion(db, 1)).previous).toBeUndefined();

    // A rebuild into version 3, stopped before it could finish: inactive until discarded.
    const stop = new AbortController();
    stop.abort();
    expect((await replay(ctx, { signal: stop.signal })).outcome).toBe('stopped');
    expect((await readBuild(db))?.version).toBe(3);
    const discarded = await cli('--discard');
    expect(discarded.stdout).toBe('discarded the rebuild of version 3\n');
    expect(await readBuild(db)).toBeUndefined();
    expect(await collections()).not.toContain('order_status_v3');
    expect((await readActiveVersion(db, 1)).version).toBe(2);
  });

  it('stops on Ctrl-C while verifying: "stopping…", no switch, "stopped;" within seconds, the build kept for the next run', { timeout: 180_000 }, async () => {
    const { config, db } = await freshSystem('replay-cli-stop');
    await publish(generateDemoEvents({ clients: 1, orders: 30, seed: 16 }), config.topic);
    await buildLive(config);
    const replaying = startOssn(['replay'], { ...ossnEnv(config), OSSN_CONSUMER_GROUP: config.consumerGroup });
    try {
      // Verifying reads the topic with a consumer group of its own: joining it alone takes seconds.
      await expect.poll(replaying.output, { timeout: 120_000, interval: 50 }).toContain('caught up after');
      const sentAt = Date.now();
      replaying.child.kill('SIGINT');
      const ended = await Promise.race([replaying.exit, sleep(30_000).then(() => 'still running')]);
      expect(ended, replaying.output()).toBe(1);
      expect(Date.now() - sentAt).toBeLessThan(10_000);
    } finally {
      replaying.child.kill('SIGKILL');
    }
    expect(replaying.output()).toContain('stopping…');
    expect(replaying.output()).toContain('stopped; version 2 is not active. `ossn replay` resumes it');
    expect(replaying.output()).not.toContain('switching to version');
    expect((await readBuild(db))?.version).toBe(2);
    expect((await readActiveVersion(db, 1)).version).toBe(1);
  });
});
