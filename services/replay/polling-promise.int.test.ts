// The polling promise at its edges (queries.md), through the real projector, the query service's
// JSON routes and `ossn replay`: a purchase order a sales order left, and a sales order's complete
// flag that goes false while a replay hands over or settles, reach a partner polling shipments
// queryType 3 from before; a package's shipReferences change reaches a 2.1.0 poller once, replay or not.
import { describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { asV2, sampleEvent, sampleShipFrom, sampleShipTo } from '../../test/fixtures/sample-events.js';
import { readWhole } from '../../contracts/lookups.js';
import { freshProjectorConfig, projectUntilCaughtUp, publishEvents, useConnections } from '../../test/support/projector-system.js';
import { FakeAuthenticator } from '../../test/support/fake-ports.js';
import type { ProjectorConfig } from '../config/config.js';
import { waitUntilCaughtUp } from '../adapters/kafka/progress.js';
import { startFollowingProjector } from '../projector/follow-active-version.js';
import { consumerGroupFor } from '../projector/versions.js';
import { buildApp } from '../query/app.js';
import { readModelCollections } from '../adapters/mongodb/documents.js';
import { changeTimeOverlapMs } from '../adapters/mongodb/changed-since.js';
import { SwitchingLookups } from '../adapters/mongodb/switching-lookups.js';
import { replay, type ReplayContext } from './replay.js';

const connections = useConnections('polling-promise');
const { kafka, logger, running } = connections;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function freshSystem(label: string) {
  const { config, names } = await freshProjectorConfig(kafka, label, 2);
  const db = connections.mongo.db(names.database);
  const ctx: ReplayContext = { config, db, kafka, logger };
  const lookups = new SwitchingLookups(db, { fallbackVersion: 1, refreshMs: 60_000 });
  await lookups.start();
  running.push({ stop: async () => lookups.stop() });
  const credential = { id: 'partner', scopes: ['order_status' as const, 'osn' as const], clientIds: ['C1'] };
  const app = await buildApp({ logger, publicBaseUrl: 'http://x', lookups, lookupsV2: lookups, authenticator: new FakeAuthenticator({ partner: { password: 'pw', credential } }) });
  running.push({ stop: () => app.close() });
  return { config, db, ctx, lookups, app };
}

let sequence = 0;
/** Events of one sales order of C1; sequences increase across the file. */
function salesOrder(salesOrderNumber: string) {
  const envelope = { clientId: 'C1', salesOrderNumber };
  return {
    status: (purchaseOrderNumber?: string) => sampleEvent('SalesOrderStatusChanged', ++sequence, { statusId: 60, ...(purchaseOrderNumber ? { purchaseOrderNumber } : {}) }, envelope),
    location: (locationId: number) => sampleEvent('ShipmentLocationRecorded', ++sequence, { locationId, shipFrom: sampleShipFrom, shipTo: sampleShipTo }, envelope),
    shipped: (locationId: number, packageId: number) =>
      sampleEvent('PackageShipped', ++sequence, { locationId, packageId, trackingNumber: `1Z-${salesOrderNumber}-${packageId}`, shipmentDate: '2026-01-02T08:00:00Z' }, envelope),
    /** The same package (contract v2) with OSN 2.1.0's label references. */
    referenced: (locationId: number, packageId: number, shipReferences: string[]) =>
      asV2(sampleEvent('PackageShipped', ++sequence, { locationId, packageId, trackingNumber: `1Z-${salesOrderNumber}-${packageId}`, shipmentDate: '2026-01-02T08:00:00Z', shipReferences }, envelope)),
    completed: (locationId?: number) => sampleEvent('ShipmentCompleted', ++sequence, locationId === undefined ? {} : { locationId }, envelope),
  };
}

/** 2.0.0's Shipment has no location id: its locations are outlined by flag and packages. */
type Outline = [string, boolean, [string, boolean, ([number, boolean, number[]] | [boolean, number[]])[]][]][];

/** Shipments queryType 3 from `since` over JSON, 1.0.0 and 2.0.0, outlined alike: purchase order, flag, sales orders, flag, locations, flag, packages. */
async function poll(app: FastifyInstance, since: Date): Promise<{ v1: Outline; v2: Outline }> {
  const authorization = `Basic ${Buffer.from('partner:pw').toString('base64')}`;
  const at = encodeURIComponent(since.toISOString());
  const v1 = await app.inject({ method: 'GET', url: `/api/partners/v1/orders/shipments?queryType=3&shipmentDateTimeStamp=${at}`, headers: { authorization } });
  const v2 = await app.inject({ method: 'GET', url: `/api/partners/v2/orders/shipments?queryType=3&shipmentDateTimestamp=${at}`, headers: { authorization } });
  expect([v1.statusCode, v2.statusCode]).toEqual([200, 200]);
  type V1 = { shipments: { purchaseOrderNumber: string; complete: boolean; salesOrders: { salesOrderNumber: string; complete: boolean; locations: { id: number; complete: boolean; packages: { id: number }[] }[] }[] }[] };
  type V2 = {
    OrderShipmentNotificationArray?: {
      purchaseOrderNumber: string;
      purchaseOrderShippedInFull: boolean;
      SalesOrderArray: { salesOrderNumber: string; salesOrderShippedInFull: boolean; ShipmentArray: { destinationShippedInFull: boolean; PackageArray: { id: number }[] }[] }[];
    }[];
  };
  const one = v1.json<V1>();
  const two = v2.json<V2>();
  return {
    v1: one.shipments.map((o) => [o.purchaseOrderNumber, o.complete, o.salesOrders.map((s) => [s.salesOrderNumber, s.complete, s.locations.map((l) => [l.id, l.complete, l.packages.map((p) => p.id)])])]),
    v2: (two.OrderShipmentNotificationArray ?? []).map((o) => [
      o.purchaseOrderNumber,
      o.purchaseOrderShippedInFull,
      o.SalesOrderArray.map((s) => [s.salesOrderNumber, s.salesOrderShippedInFull, s.ShipmentArray.map((l) => [l.destinationShippedInFull, l.PackageArray.map((p) => p.id)])]),
    ]),
  };
}

/** The time of a poll made now, everything written so far older than the lookups' overlap. */
async function pollAfterAll(): Promise<Date> {
  await sleep(changeTimeOverlapMs + 1_000);
  return new Date();
}

const publish = (config: ProjectorConfig, events: ErpEvent[]) => publishEvents(connections.producer, config.topic, events);

async function followingProjector(config: ProjectorConfig) {
  const projector = await startFollowingProjector(config, logger, { checkMs: 300 });
  running.push(projector);
  return projector;
}

describe('the polling promise at its edges', () => {
  it('a sales order leaving its purchase order (moved, or its number dropped) brings that purchase order to a poller from before, with its flag now', { timeout: 120_000 }, async () => {
    const { config, app } = await freshSystem('promise-left');
    const [a1, a2, c1, c2] = [salesOrder('SO-A1'), salesOrder('SO-A2'), salesOrder('SO-C1'), salesOrder('SO-C2')];
    await publish(config, [
      a1.status('PO-A'), a1.location(1), a1.shipped(1, 1), a1.completed(),
      a2.status('PO-A'), a2.location(1), a2.shipped(1, 1),
      c1.status('PO-C'), c1.location(1), c1.shipped(1, 1), c1.completed(),
      c2.status('PO-C'), c2.location(1), c2.shipped(1, 1),
    ]);
    await followingProjector(config);
    await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);
    const t1 = await pollAfterAll();
    expect(await poll(app, t1)).toEqual({ v1: [], v2: [] });

    // SO-A2 moves to PO-B, SO-C2 loses its number: PO-A and PO-C are complete now.
    await publish(config, [a2.status('PO-B'), c2.status()]);
    await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);
    const { v1, v2 } = await poll(app, t1);
    expect(v1).toEqual([
      ['PO-B', false, [['SO-A2', false, [[1, false, [1]]]]]],
      ['PO-A', true, [['SO-A1', true, [[1, true, []]]]]],
      ['PO-C', true, [['SO-C1', true, [[1, true, []]]]]],
    ]);
    expect(v2).toEqual([
      ['PO-B', false, [['SO-A2', false, [[false, [1]]]]]],
      ['PO-A', true, [['SO-A1', true, [[true, [1]]]]]],
      ['PO-C', true, [['SO-C1', true, [[true, [1]]]]]],
    ]);
  });

  it('a sales order reopened by a location the rebuild records during the hand-over is news after the switch', { timeout: 180_000 }, async () => {
    const { config, ctx, lookups, app } = await freshSystem('promise-handover');
    const so = salesOrder('SO-H');
    await publish(config, [so.status('PO-H'), so.location(1), so.shipped(1, 1), so.completed(1)]);
    await projectUntilCaughtUp(connections, config); // the live version shows SO-H complete; its projector then stops
    const t1 = await pollAfterAll();
    expect(await poll(app, t1)).toEqual({ v1: [], v2: [] });

    const result = await replay(ctx, {
      onPhase: async (phase) => {
        // The hand-over brings the rebuild level with the topic's end: the location is in the rebuild alone.
        if (phase === 'switching') await publish(config, [so.location(2)]);
      },
    });
    expect(result.outcome).toBe('switched');
    expect((await readModelCollections(ctx.db, 2).shipments.findOne({ _id: 'C1:SO-H' }))?.locations).toHaveLength(2);
    await lookups.refresh();
    const { v1, v2 } = await poll(app, t1);
    expect(v1).toEqual([['PO-H', false, [['SO-H', false, [[1, true, []], [2, false, []]]]]]]);
    // 2.0.0 answers locations with packages alone, each whole where no package of it is new.
    expect(v2).toEqual([['PO-H', false, [['SO-H', false, [[true, [1]]]]]]]);
  });

  it('shipReferences (2.1.0): a replay makes no reference change new again, nor drops one a poller has not seen', { timeout: 180_000 }, async () => {
    const { config, ctx, lookups, app } = await freshSystem('promise-references');
    const [seen, unseen] = [salesOrder('SO-R1'), salesOrder('SO-R2')];
    await publish(config, [seen.status('PO-R1'), seen.location(1), seen.referenced(1, 1, ['A']), unseen.status('PO-R2'), unseen.location(1), unseen.referenced(1, 1, ['A'])]);
    await projectUntilCaughtUp(connections, config);
    // SO-R1's references change before the poll at t0, in a write of its own: the live version has its time.
    await publish(config, [seen.referenced(1, 1, ['B'])]);
    await projectUntilCaughtUp(connections, config);
    const liveTime = (await readModelCollections(ctx.db, 1).shipments.findOne({ _id: 'C1:SO-R1' }))?.locations[0]?.packages[0]?.referencesChangedAt;
    expect(liveTime).toBeInstanceOf(Date);
    const t0 = await pollAfterAll();
    // SO-R2's references change after the poll at t0: news to 2.1.0 alone.
    await publish(config, [unseen.referenced(1, 1, ['B'])]);
    await projectUntilCaughtUp(connections, config);
    const referencesSince = async (since: Date) => {
      const answer = await readWhole(await lookups.shipmentNotificationV21Batches(['C1'], { queryType: 3, shipmentDateTimeStamp: since }));
      return answer.orders.flatMap((o) => o.salesOrders.flatMap((so) => so.shipments.flatMap((l) => l.packages.map((p) => [so.salesOrderNumber, p.shipReferences]))));
    };
    expect(await referencesSince(t0)).toEqual([['SO-R2', ['B']]]);
    expect(await poll(app, t0)).toEqual({ v1: [], v2: [] });
    const t1 = await pollAfterAll();

    const result = await replay(ctx, {});
    expect(result.outcome).toBe('switched');
    await lookups.refresh();
    const rebuilt = readModelCollections(ctx.db, 2).shipments;
    expect((await rebuilt.findOne({ _id: 'C1:SO-R1' }))?.locations[0]?.packages[0]?.referencesChangedAt).toEqual(liveTime);
    // After the switch: the poller at t0 still gets SO-R2's change, the one at t1 nothing, 1.0.0 and 2.0.0 nothing.
    expect(await referencesSince(t0)).toEqual([['SO-R2', ['B']]]);
    expect(await referencesSince(t1)).toEqual([]);
    expect(await poll(app, t0)).toEqual({ v1: [], v2: [] });
  });

  it('a sales order reopened by a location projected while settling runs is news after the switch', { timeout: 180_000 }, async () => {
    const { config, ctx, lookups, app } = await freshSystem('promise-settling');
    const so = salesOrder('SO-S');
    await publish(config, [so.status('PO-S'), so.location(1), so.shipped(1, 1), so.completed(1)]);
    const projector = await followingProjector(config);
    await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic);
    const t1 = await pollAfterAll();
    expect(await poll(app, t1)).toEqual({ v1: [], v2: [] });

    const result = await replay(ctx, {
      onPhase: async (phase) => {
        if (phase !== 'settling') return;
        // The projector follows the switch and writes the new location into the new version before settling reads it.
        await expect.poll(() => projector.version(), { timeout: 10_000, interval: 100 }).toBe(2);
        await publish(config, [so.location(2)]);
        await waitUntilCaughtUp(kafka, consumerGroupFor(config, 2), config.topic);
      },
    });
    expect(result.outcome).toBe('switched');
    await lookups.refresh();
    const { v1 } = await poll(app, t1);
    expect(v1).toEqual([['PO-S', false, [['SO-S', false, [[1, true, []], [2, false, []]]]]]]);
  });
});
