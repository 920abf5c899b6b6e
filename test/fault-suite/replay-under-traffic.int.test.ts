// The polling promise across a replay (queries.md): while events flow steadily and six partners
// poll queryType 3 with the time of their previous poll (order status and shipments, SOAP and
// JSON; shipments in 2.0.0 too, which answers no location without packages), `ossn replay` runs as an operator runs it, is killed once in each of its steps and run
// again until it switches. Every partner's accumulated view must end equal to an independent fold
// of every event published, and none may ever be handed a state older than one it has seen.
import { describe, expect, it } from 'vitest';
import { generateDemoEvents } from '../../services/ossn/demo-events/demo-events.js';
import type { ErpEvent, ErpEventOf } from '../../contracts/erp-events.js';
import { statusIds } from '../../contracts/status-types.js';
import { foldEvents } from '../../projections/fold.js';
import { waitUntilCaughtUp } from '../../services/adapters/kafka/progress.js';
import { startFollowingProjector } from '../../services/projector/follow-active-version.js';
import { consumerGroupFor } from '../../services/projector/versions.js';
import { buildApp } from '../../services/query/app.js';
import { answerBody, ORDER_STATUS_URL, osnV2Request, SHIPMENT_URL, SHIPMENT_V2_URL, shipmentRequest, statusDetailsRequest, type XmlNode } from '../support/soap-requests.js';
import { SHIPMENTS_JSON_V2_PATH } from '../../services/query/versions/2.0.0/json/plugin.js';
import { FakeAuthenticator } from '../support/fake-ports.js';
import { readActiveVersion } from '../../services/adapters/mongodb/active-version.js';
import { SwitchingLookups } from '../../services/adapters/mongodb/switching-lookups.js';
import { ossnEnv, runOssn, type CliRun } from '../support/ossn-cli.js';
import { freshProjectorConfig, publishEvents, useConnections } from '../support/projector-system.js';
import { testSeed } from '../support/seed.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { Random } from '../../services/ossn/demo-events/random.js';

const connections = useConnections('replay-traffic');
const { kafka, logger, running } = connections;

/** Each random choice of this test comes from this seed, printed so that a failing run can be replayed. */
const seed = testSeed('REPLAY_TRAFFIC_SEED');
const rng = new Random(seed);
/** A whole number in [0, n). */
const random = (n: number) => rng.int(0, n - 1);

const clientId = 'PARTNER-1';
const salesOrders = 30;

/** The partner's sales orders: a status and one location each, then a steady stream of status changes, packages (some posted late) and completions. */
function partnerStream(template: { location: ErpEventOf<'ShipmentLocationRecorded'>['data']; pkg: ErpEventOf<'PackageShipped'>['data'] }) {
  const sequence = new Map<number, number>();
  const packages = new Map<number, number>();
  const completed = new Set<number>();
  let ids = 0;
  const event = (so: number, type: ErpEvent['type'], data: object, at = new Date()): ErpEvent => {
    const next = (sequence.get(so) ?? 0) + 1;
    sequence.set(so, next);
    const eventId = `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`;
    return { eventId, type, schemaVersion: 2, clientId, salesOrderNumber: `SO-${so}`, sequence: next, occurredAt: at.toISOString(), data } as ErpEvent;
  };
  const status = (so: number) => event(so, 'SalesOrderStatusChanged', { purchaseOrderNumber: `PO-${1 + (so % 15)}`, statusId: statusIds[random(statusIds.length)] });
  const initial = Array.from({ length: salesOrders }, (_, so) => [status(so), event(so, 'ShipmentLocationRecorded', { ...template.location, locationId: 1 })]).flat();
  const next = (): ErpEvent => {
    const so = random(salesOrders);
    const kind = random(10);
    if (kind < 5 || completed.has(so)) return status(so);
    if (kind < 9) {
      const packageId = (packages.get(so) ?? 0) + 1;
      packages.set(so, packageId);
      // Shipped up to an hour before it is posted: a late scan.
      const shipmentDate = new Date(Date.now() - random(60) * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      return event(so, 'PackageShipped', { ...template.pkg, locationId: 1, packageId, shipmentDate });
    }
    completed.add(so);
    return event(so, 'ShipmentCompleted', { locationId: 1 });
  };
  return { initial, next };
}

interface PartnerView {
  /** By sales order: the status and its time, as last received. */
  statuses: Map<string, { statusID: number; validTimestamp: number }>;
  /** By sales order: the packages received, and whether its location was last said complete. */
  shipments: Map<string, { packages: Set<number>; complete: boolean }>;
  /** Answers that handed over a state older than one received before. */
  older: string[];
  failures: string[];
  polls: number;
}

const list = (value: unknown): XmlNode[] => (value === undefined || value === '' ? [] : Array.isArray(value) ? (value as XmlNode[]) : [value as XmlNode]);
const inner = (node: XmlNode, wrapper: string, item: string) => list((node[wrapper] as XmlNode | undefined)?.[item]);

function takeStatus(view: PartnerView, details: { factoryOrderNumber: string; statusID: number; validTimestamp: string }[]) {
  for (const d of details) {
    const received = { statusID: Number(d.statusID), validTimestamp: new Date(d.validTimestamp).getTime() };
    const held = view.statuses.get(d.factoryOrderNumber);
    if (held && received.validTimestamp < held.validTimestamp) view.older.push(`${d.factoryOrderNumber}: status of ${d.validTimestamp} after one of ${new Date(held.validTimestamp).toISOString()}`);
    else view.statuses.set(d.factoryOrderNumber, received);
  }
}

function takeShipments(view: PartnerView, salesOrdersAnswered: { salesOrderNumber: string; locations: { complete: boolean; packages: number[] }[] }[]) {
  for (const so of salesOrdersAnswered) {
    const held = view.shipments.get(so.salesOrderNumber) ?? { packages: new Set<number>(), complete: false };
    for (const location of so.locations) {
      // A completed location takes no more packages here: complete going back to false is an older state.
      if (held.complete && !location.complete) view.older.push(`${so.salesOrderNumber}: location complete, then not`);
      held.complete = location.complete;
      for (const id of location.packages) held.packages.add(id);
    }
    view.shipments.set(so.salesOrderNumber, held);
  }
}

/** The sales orders of a SOAP shipments answer; 1.0.0 and 2.0.0 name the location and its complete flag differently. */
function soapShipments(xml: string, location: { array: string; item: string; complete: string }) {
  const answer = answerBody(xml)['GetOrderShipmentNotificationResponse'] as XmlNode;
  return inner(answer, 'OrderShipmentNotificationArray', 'OrderShipmentNotification')
    .flatMap((o) => inner(o, 'SalesOrderArray', 'SalesOrder'))
    .map((so) => ({
      salesOrderNumber: String(so['salesOrderNumber']),
      locations: inner(so, location.array, location.item).map((l) => ({
        complete: l[location.complete] === 'true',
        packages: inner(l, 'PackageArray', 'Package').map((p) => Number(p['id'])),
      })),
    }));
}

type Poll = (url: string, since: Date) => Promise<void>;

const authorization = `Basic ${Buffer.from('partner:pw').toString('base64')}`;
const soapLogin = { id: 'partner', password: 'pw' };

const polls: Record<string, (view: PartnerView) => Poll> = {
  'status SOAP': (view) => async (url, since) => {
    const res = await fetch(`${url}${ORDER_STATUS_URL}`, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: statusDetailsRequest({ ...soapLogin, queryType: '3', statusTimeStamp: since.toISOString() }) });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    const answer = answerBody(await res.text())['GetOrderStatusDetailsResponse'] as XmlNode;
    takeStatus(view, inner(answer, 'OrderStatusArray', 'OrderStatus').flatMap((o) => inner(o, 'OrderStatusDetailArray', 'OrderStatusDetail')) as never);
  },
  'status JSON': (view) => async (url, since) => {
    const res = await fetch(`${url}/api/partners/v1/orders/status?queryType=3&statusTimeStamp=${encodeURIComponent(since.toISOString())}`, { headers: { authorization } });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    const { orders } = (await res.json()) as { orders: { details: never[] }[] };
    takeStatus(view, orders.flatMap((o) => o.details));
  },
  'shipments SOAP': (view) => async (url, since) => {
    const res = await fetch(`${url}${SHIPMENT_URL}`, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: shipmentRequest({ ...soapLogin, queryType: '3', shipmentDateTimeStamp: since.toISOString() }) });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    takeShipments(view, soapShipments(await res.text(), { array: 'ShipmentLocationArray', item: 'ShipmentLocation', complete: 'complete' }));
  },
  'shipments SOAP 2.0.0': (view) => async (url, since) => {
    const body = osnV2Request({ ...soapLogin, queryType: '3', shipmentDateTimestamp: since.toISOString() });
    const res = await fetch(`${url}${SHIPMENT_V2_URL}`, { method: 'POST', headers: { 'content-type': 'text/xml', soapaction: '"getOrderShipmentNotification"' }, body });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    takeShipments(view, soapShipments(await res.text(), { array: 'ShipmentArray', item: 'Shipment', complete: 'destinationShippedInFull' }));
  },
  'shipments JSON v2': (view) => async (url, since) => {
    const res = await fetch(`${url}${SHIPMENTS_JSON_V2_PATH}?queryType=3&shipmentDateTimestamp=${encodeURIComponent(since.toISOString())}`, { headers: { authorization } });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    type Answer = { OrderShipmentNotificationArray?: { SalesOrderArray: { salesOrderNumber: string; ShipmentArray: { destinationShippedInFull: boolean; PackageArray: { id: number }[] }[] }[] }[] };
    const { OrderShipmentNotificationArray: notifications = [] } = (await res.json()) as Answer;
    takeShipments(
      view,
      notifications
        .flatMap((n) => n.SalesOrderArray)
        .map((so) => ({ salesOrderNumber: so.salesOrderNumber, locations: so.ShipmentArray.map((l) => ({ complete: l.destinationShippedInFull, packages: l.PackageArray.map((p) => p.id) })) })),
    );
  },
  'shipments JSON': (view) => async (url, since) => {
    const res = await fetch(`${url}/api/partners/v1/orders/shipments?queryType=3&shipmentDateTimeStamp=${encodeURIComponent(since.toISOString())}`, { headers: { authorization } });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    type Answer = { shipments: { salesOrders: { salesOrderNumber: string; locations: { complete: boolean; packages: { id: number }[] }[] }[] }[] };
    const { shipments } = (await res.json()) as Answer;
    takeShipments(
      view,
      shipments.flatMap((s) => s.salesOrders).map((so) => ({ salesOrderNumber: so.salesOrderNumber, locations: so.locations.map((l) => ({ complete: l.complete, packages: l.packages.map((p) => p.id) })) })),
    );
  },
};

/** The replay's steps as its output announces them, each killed this long after it began. */
const steps = [
  { name: 'rebuilding', when: (out: string) => out.includes('rebuilding read-model version'), afterMs: 1_000 },
  { name: 'verifying', when: (out: string) => out.includes('caught up after'), afterMs: 100 },
  { name: 'switching', when: (out: string) => out.includes('switching to version'), afterMs: 600 },
  { name: 'settling', when: (out: string) => out.includes('settling change and visible times'), afterMs: 0 },
];

describe('a replay under traffic, killed in each step', () => {
  it('leaves every polling partner with exactly the current state, and none was ever handed an older one', { timeout: 900_000 }, async () => {
    const { config, names } = await freshProjectorConfig(kafka, 'replay-traffic', 3);
    const tuned = { ...config, consumerSessionTimeoutMs: 6_000 };
    const db = connections.mongo.db(names.database);
    const published: ErpEvent[] = [];
    const publish = async (events: ErpEvent[]) => {
      await publishEvents(connections.producer, config.topic, events);
      published.push(...events);
    };

    // Other clients' orders, that give each step of the replay some length.
    const background = generateDemoEvents({ clients: 1, orders: 2_500, seed: 31 });
    await publish(background);
    const template = {
      location: (background.find((e) => e.type === 'ShipmentLocationRecorded') as ErpEventOf<'ShipmentLocationRecorded'>).data,
      pkg: (background.find((e) => e.type === 'PackageShipped') as ErpEventOf<'PackageShipped'>).data,
    };
    const stream = partnerStream(template);
    await publish(stream.initial);

    const projector = await startFollowingProjector(tuned, logger, { checkMs: 300 });
    running.push(projector);
    await waitUntilCaughtUp(kafka, config.consumerGroup, config.topic, 120_000);

    const lookups = new SwitchingLookups(db, { fallbackVersion: 1, refreshMs: 250 });
    await lookups.start();
    running.push({ stop: async () => lookups.stop() });
    const credential = { id: 'partner', scopes: ['order_status' as const, 'osn' as const], clientIds: [clientId] };
    const app = await buildApp({ logger, publicBaseUrl: 'http://x', lookups, lookupsV2: lookups, authenticator: new FakeAuthenticator({ partner: { password: 'pw', credential } }) });
    running.push({ stop: () => app.close() });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });

    // Events flow steadily for the whole run.
    let flowing = true;
    const flow = (async () => {
      while (flowing) {
        await publish([stream.next()]);
        await sleep(50);
      }
    })();

    // Partners poll every 300 ms with the time of their previous poll.
    let polling = true;
    const views = Object.fromEntries(
      Object.keys(polls).map((name) => [name, { statuses: new Map(), shipments: new Map(), older: [], failures: [], polls: 0 } as PartnerView]),
    );
    const pollers = Object.entries(polls).map(async ([name, make]) => {
      const view = views[name]!;
      const poll = make(view);
      let previous = new Date(0);
      while (polling) {
        const at = new Date();
        try {
          await poll(url, previous);
          previous = at;
          view.polls++;
        } catch (error) {
          view.failures.push(String(error));
        }
        await sleep(300);
      }
    });

    // Stopped before the connections close, should a check below fail with the traffic still on.
    running.push({
      stop: async () => {
        flowing = false;
        polling = false;
        await Promise.all([flow, ...pollers]);
      },
    });

    const env = { ...ossnEnv(config), OSSN_CONSUMER_GROUP: config.consumerGroup, OSSN_CONSUMER_SESSION_TIMEOUT_MS: '6000', OSSN_REPLAY_LOCK_TTL_MS: '3000' };
    const runs: { step: string; run: CliRun }[] = [];
    const replayOnce = async (step?: (typeof steps)[number]) => {
      for (;;) {
        const run = await runOssn(['replay'], env, { timeoutMs: 300_000, kill: step && { when: step.when, afterMs: step.afterMs + random(300) } });
        // The lock of the replay killed before lapses after 3 s here.
        if (run.code === 1 && /another replay is running/.test(run.stderr + run.stdout)) {
          await sleep(1_000);
          continue;
        }
        runs.push({ step: step?.name ?? 'through', run });
        return run;
      }
    };
    await sleep(2_000);
    for (const step of steps) {
      const run = await replayOnce(step);
      // Killed in that step: it had announced it, and had not ended by itself.
      expect({ step: step.name, killed: run.killed, code: run.code }, run.stdout + run.stderr).toEqual({ step: step.name, killed: true, code: null });
      await sleep(1_000 + random(1_000));
    }
    const last = await replayOnce();
    expect(last.code, last.stdout + last.stderr).toBe(0);
    expect(last.stdout).toContain('is active since');

    // The stream stops; everything published reaches the active version; partners poll a few more times.
    flowing = false;
    await flow;
    const active = (await readActiveVersion(db, 1)).version;
    expect(active).toBeGreaterThan(1);
    await expect.poll(() => projector.version(), { timeout: 30_000 }).toBe(active);
    await waitUntilCaughtUp(kafka, consumerGroupFor(config, active), config.topic, 120_000);
    await sleep(7_000);
    polling = false;
    await Promise.all(pollers);

    const fold = foldEvents(published);
    expect(fold.rejected).toEqual([]);
    const mine = (key: string) => key.startsWith(`${clientId}:`);
    const expectedStatuses = new Map(
      [...fold.orderStatus].filter(([key]) => mine(key)).map(([, s]) => [s.salesOrderNumber, { statusID: s.statusId, validTimestamp: s.validTimestamp?.getTime() }]),
    );
    const expectedShipments = new Map(
      [...fold.shipments]
        .filter(([key, s]) => mine(key) && (s.locations[0]?.packages.length ?? 0) + (s.locations[0]?.complete ? 1 : 0) > 0)
        .map(([, s]) => [s.salesOrderNumber, { packages: new Set(s.locations[0]!.packages.map((p) => p.packageId)), complete: s.locations[0]!.complete }]),
    );
    // 2.0.0 answers a location only with its packages: a sales order whose location completed without any is not in it.
    const expectedShipmentsV2 = new Map([...expectedShipments].filter(([, s]) => s.packages.size > 0));
    const withNews = (shipments: PartnerView['shipments']) => new Map([...shipments].filter(([, s]) => s.packages.size > 0 || s.complete));
    for (const [name, view] of Object.entries(views)) {
      expect({ name, failures: view.failures, older: view.older }).toEqual({ name, failures: [], older: [] });
      expect(view.polls).toBeGreaterThan(50);
      if (name.startsWith('status')) expect(view.statuses, name).toEqual(expectedStatuses);
      else if (/2\.0\.0|v2/.test(name)) expect(view.shipments, name).toEqual(expectedShipmentsV2);
      else expect(withNews(view.shipments), name).toEqual(expectedShipments);
    }
    expect(runs.map((r) => r.step)).toEqual([...steps.map((s) => s.name), 'through']);
  });
});
