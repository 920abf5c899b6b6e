// The shipments answers sent as they are read (docs/partners.md, "Large answers"), 1.0.0 and 2.0.0,
// SOAP and JSON, over a real socket from the real store: their bytes are those of the answer read
// whole and ordered by what was read (newsSince); their first bytes leave while a later batch is
// still being read; a read that fails once bytes are sent, or a version dropped mid-answer, fails
// the transfer (never a well-formed short answer); a partner that goes away stops the reads. The
// store is reached through a wrapper of the shipments collection (the port's boundary) that can
// hold or fail a read of a later batch of the answer.
import { request } from 'node:http';
import type { Collection, Document, FindOptions, MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoEvents } from '../../ossn/demo-events/demo-events.js';
import { foldEvents } from '../../../projections/fold.js';
import { purchaseOrderComplete } from '../../../projections/completion.js';
import { toSalesOrderShipment } from '../../../projections/lookups/answers-v1.js';
import { groupKey } from '../../../projections/lookups/purchase-order-groups.js';
import { cappedInOneBatch } from '../../../contracts/lookups.js';
import type { ShipmentNotificationView } from '../../../contracts/lookup-answers.js';
import type { ShipmentNotificationV2View } from '../../../contracts/lookup-answers-v2.js';
import { servers, uniqueNames } from '../../../test/support/servers.js';
import { FakeAuthenticator } from '../../../test/support/fake-ports.js';
import { osnV2Request, shipmentRequest, SHIPMENT_URL, SHIPMENT_V2_URL } from '../../../test/support/soap-requests.js';
import { basic } from '../../../test/support/json-requests.js';
import { connectMongo } from '../../adapters/mongodb/connect.js';
import { ensureIndexes, readModelCollections, type ReadModelCollections, type ShipmentsDocument } from '../../adapters/mongodb/documents.js';
import { answeringV1, MongoOrderLookups, shipmentNewsProjection } from '../../adapters/mongodb/lookups.js';
import { answeringV2, shipmentNewsFieldsV2 } from '../../adapters/mongodb/lookups-v2.js';
import { newsSince } from '../../adapters/mongodb/shipment-reads.js';
import { writeEffects } from '../../adapters/mongodb/writes.js';
import { streamedEnvelope } from '../protocol/soap/envelope.js';
import { shipmentNotificationPayloadAsRead } from '../versions/1.0.0/soap/shipment-notification-tree.js';
import { shipmentsJson } from '../versions/1.0.0/json/answer-body.js';
import { shipmentNotificationV2JsonAsRead, shipmentNotificationV2PayloadAsRead } from '../versions/2.0.0/osn/shipment-notification-answer.js';
import { answerChunks } from './answer-chunks.js';
import { createQueryMetrics, type QueryMetrics } from '../../plumbing/metrics/query-metrics.js';
import { startRealApp, type RealApp } from '../../../test/clients/real-app.js';

const SINCE = '2000-01-01T00:00:00Z';
const names = uniqueNames('answers-as-read');
let mongo: MongoClient;
let clientIds: string[];
/** The answers read whole (newsSince, ordered by what it read), 1.0.0's and 2.0.0's. */
let expected: ShipmentNotificationView[];
let expectedV2: ShipmentNotificationV2View[];
/** The purchase orders of each version's first batch (2.0.0's leave out those whose news holds no package). */
let firstBatch: Set<string>;
let firstBatchV2: Set<string>;
const apps: RealApp[] = [];

const collectionsOf = (version: number): ReadModelCollections => readModelCollections(mongo.db(names.database), version);

beforeAll(async () => {
  mongo = await connectMongo(servers().mongodbUri, 'answers-as-read-test');
  const folded = foldEvents(generateDemoEvents({ clients: 1, orders: 2_500, seed: 23 }));
  const effects = { orderStatus: [...folded.orderStatus.values()].map((after) => ({ after })), shipments: [...folded.shipments.values()].map((after) => ({ after })) };
  // Versions 2 and 3 are copies for the tests that drop them.
  for (const version of [1, 2, 3]) {
    await ensureIndexes(collectionsOf(version));
    await writeEffects(collectionsOf(version), effects);
  }
  clientIds = [...new Set([...folded.shipments.values()].map((so) => so.clientId))];
  const news = { collection: collectionsOf(1).shipments, clientIds, timestamp: new Date(SINCE), read: {} };
  const whole = await newsSince({ ...news, ...answeringV1 });
  expected = whole.groups.map((g) => ({ purchaseOrderNumber: g.purchaseOrderNumber, complete: purchaseOrderComplete(whole.members.get(groupKey(g)) ?? []), salesOrders: g.members.map(toSalesOrderShipment) }));
  const wholeV2 = await newsSince({ ...news, ...answeringV2 });
  expectedV2 = wholeV2.groups.map((g) => ({ purchaseOrderNumber: g.purchaseOrderNumber, complete: purchaseOrderComplete(wholeV2.members.get(groupKey(g)) ?? []), salesOrders: g.members }));
  firstBatch = new Set(expected.slice(0, 100).map((n) => n.purchaseOrderNumber));
  firstBatchV2 = new Set(expectedV2.slice(0, 100).map((n) => n.purchaseOrderNumber));
}, 240_000);

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await mongo?.db(names.database).dropDatabase();
  await mongo?.close();
});

/** A read of the whole documents (1.0.0's or 2.0.0's) of purchase orders past the answer's first batch (not the plan's read of their flags). */
const laterBatchRead = (filter: Document, options: FindOptions | undefined): boolean => {
  const first = options?.projection === shipmentNewsProjection ? firstBatch : options?.projection === shipmentNewsFieldsV2 ? firstBatchV2 : undefined;
  return first !== undefined && ((filter['purchaseOrderNumber'] as { $in?: string[] } | undefined)?.$in ?? []).some((po) => !first.has(po));
};

/** The shipments collection, its `find` running `before` (with the read's filter and options) before the real read, which gets `filter` as `before` returns it. */
function wrapped(shipments: Collection<ShipmentsDocument>, before: (filter: Document, options: FindOptions | undefined) => Promise<Document> | Document): Collection<ShipmentsDocument> {
  return new Proxy(shipments, {
    get(target, property, receiver) {
      if (property !== 'find') return Reflect.get(target, property, receiver) as unknown;
      return (filter: Document, options?: FindOptions) => ({
        async *[Symbol.asyncIterator]() {
          yield* target.find(await before(filter, options), options);
        },
      });
    },
  });
}

async function appOver(
  version: number,
  before: (filter: Document, options: FindOptions | undefined) => Promise<Document> | Document = (f) => f,
  metrics?: QueryMetrics,
): Promise<RealApp> {
  const collections = collectionsOf(version);
  const accounts = { partner: { password: 'secret', credential: { id: 'partner', scopes: ['osn' as const], clientIds } } };
  const lookups = new MongoOrderLookups({ ...collections, shipments: wrapped(collections.shipments, before) });
  const app = await startRealApp({
    logger: pino({ level: 'silent' }),
    lookups,
    lookupsV2: lookups,
    authenticator: new FakeAuthenticator(accounts),
    ...(metrics ? { metrics } : {}),
  });
  apps.push(app);
  return app;
}

interface Transfer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The transfer broke off before its end. */
  failed: boolean;
}

interface Ask {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

const soapAsk: Ask = { method: 'POST', path: SHIPMENT_URL, headers: { 'content-type': 'text/xml; charset=utf-8' }, body: shipmentRequest({ id: 'partner', password: 'secret', queryType: '3', shipmentDateTimeStamp: SINCE }) };
const jsonAsk: Ask = { method: 'GET', path: `/api/partners/v1/orders/shipments?queryType=3&shipmentDateTimeStamp=${SINCE}`, headers: { authorization: basic('partner', 'secret') }, body: '' };
const soapV2Ask: Ask = { ...soapAsk, path: SHIPMENT_V2_URL, body: osnV2Request({ id: 'partner', password: 'secret', queryType: '3', shipmentDateTimestamp: SINCE }) };
const jsonV2Ask: Ask = { ...jsonAsk, path: `/api/partners/v2/orders/shipments?queryType=3&shipmentDateTimestamp=${SINCE}` };

const nothingCut = () => undefined;
/** The bytes of an answer written a chunk at a time. */
async function bytesOf(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const all: Buffer[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return Buffer.concat(all);
}
/** The 1.0.0 answer read whole, as one batch. */
async function* whole(): AsyncGenerator<ShipmentNotificationView[]> {
  yield expected;
}
/** The 2.0.0 answer read whole, as one batch. */
const wholeV2 = () => cappedInOneBatch({ orders: expectedV2, more: false });

/** Each version's answers, SOAP and JSON, and their bytes as the answer read whole gives them. */
const versions = [
  {
    version: '1.0.0',
    soap: soapAsk,
    json: jsonAsk,
    soapBytes: () => bytesOf(streamedEnvelope((out) => shipmentNotificationPayloadAsRead(whole(), out))),
    jsonBytes: () => bytesOf(answerChunks(shipmentsJson(whole()))),
  },
  {
    version: '2.0.0',
    soap: soapV2Ask,
    json: jsonV2Ask,
    soapBytes: () => bytesOf(streamedEnvelope(shipmentNotificationV2PayloadAsRead(wholeV2(), nothingCut))),
    jsonBytes: () => bytesOf(answerChunks(shipmentNotificationV2JsonAsRead(wholeV2(), nothingCut))),
  },
];

/** One request over its own socket; `onFirstBytes` may end it (destroy) once the first bytes came. */
function transfer(app: RealApp, ask: Ask, onFirstBytes?: (destroy: () => void) => void): Promise<Transfer> {
  return new Promise((resolve, reject) => {
    const req = request(`${app.url}${ask.path}`, { method: ask.method, headers: ask.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      const done = (failed: boolean) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), failed });
      res.on('data', (chunk: Buffer) => {
        if (chunks.length === 0) onFirstBytes?.(() => req.destroy());
        chunks.push(chunk);
      });
      res.on('end', () => done(false));
      res.on('error', () => done(true));
      res.on('close', () => {
        if (!res.complete) done(true);
      });
    });
    req.on('error', (error) => (req.destroyed && onFirstBytes ? undefined : reject(error)));
    req.setTimeout(60_000, () => req.destroy(new Error('no answer within 60 s')));
    req.end(ask.body);
  });
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a shipments answer sent as it is read', () => {
  it('has a data set of several batches (so that the tests below cross batches), 1.0.0 and 2.0.0', () => {
    expect(expected.length).toBeGreaterThan(700);
    expect(expectedV2.length).toBeGreaterThan(700);
  });
});

describe.each(versions)('a $version shipments answer sent as it is read', (v) => {
  it('sends the bytes of the answer read whole, ordered by what was read, SOAP and JSON, chunked', async () => {
    const app = await appOver(1);
    const soap = await transfer(app, v.soap);
    expect(soap).toMatchObject({ status: 200, failed: false });
    expect(soap.headers['transfer-encoding']).toBe('chunked');
    expect(soap.body.equals(await v.soapBytes())).toBe(true);
    const json = await transfer(app, v.json);
    expect(json).toMatchObject({ status: 200, failed: false });
    expect(json.headers['transfer-encoding']).toBe('chunked');
    expect(json.body.equals(await v.jsonBytes())).toBe(true);
  }, 60_000);

  it('sends its first bytes while a later batch is still being read, then the rest (SOAP and JSON)', async () => {
    // Each read of a later batch waits for the gate, which the first bytes open.
    let gate: Promise<void> = Promise.resolve();
    let open = () => {};
    let laterReads = 0;
    const app = await appOver(1, async (filter, options) => {
      if (laterBatchRead(filter, options)) {
        laterReads++;
        await gate;
      }
      return filter;
    });
    for (const [ask, bytes] of [
      [v.soap, await v.soapBytes()],
      [v.json, await v.jsonBytes()],
    ] as const) {
      gate = new Promise((resolve) => (open = resolve));
      laterReads = 0;
      let heldWhenFirstBytesCame = 0;
      const answer = await transfer(app, ask, () => {
        heldWhenFirstBytesCame = laterReads;
        open();
      });
      expect(heldWhenFirstBytesCame).toBeGreaterThan(0);
      expect(answer).toMatchObject({ status: 200, failed: false });
      expect(answer.body.equals(bytes)).toBe(true);
    }
  }, 60_000);

  it('fails the transfer, never ends it short, when a read fails once the first bytes are sent (SOAP and JSON)', async () => {
    // The server refuses the read of a later batch (an unknown operator): a real failure of the store.
    const metrics = createQueryMetrics();
    const app = await appOver(1, (filter, options) => (laterBatchRead(filter, options) ? { ...filter, $failHere: 1 } : filter), metrics);
    for (const ask of [v.soap, v.json]) {
      const answer = await transfer(app, ask);
      expect(answer.status).toBe(200);
      expect(answer.body.length).toBeGreaterThan(0);
      expect(answer.failed).toBe(true);
    }
    // Each counted once, as a failed request, though it never finished.
    const counted = async () => (await metrics.requests.get()).values.filter((value) => value.value > 0).map((value) => [value.labels['interface'], value.labels['outcome'], value.value]);
    await waitFor('both failures counted', async () => (await counted()).length === 2);
    expect((await counted()).sort()).toEqual([['json', 'error', 1], ['soap', 'error', 1]]);
  }, 60_000);

  it('fails the transfer when the version read is dropped mid-answer (ossn replay --drop-previous)', async () => {
    // Each version's answer drops its own copy.
    const copy = v.version === '1.0.0' ? 2 : 3;
    let dropped = false;
    const app = await appOver(copy, async (filter, options) => {
      if (!dropped && laterBatchRead(filter, options)) {
        dropped = true;
        await mongo.db(names.database).dropCollection(collectionsOf(copy).shipments.collectionName);
      }
      return filter;
    });
    const answer = await transfer(app, v.soap);
    expect(dropped).toBe(true);
    expect(answer.status).toBe(200);
    expect(answer.failed).toBe(true);
    expect(answer.body.toString()).not.toContain('</soap:Envelope>');
  }, 60_000);

  it('stops reading when the partner goes away mid-answer: the reads under way are aborted, no later one starts, no cursor is left; counted as disconnected', async () => {
    const held: AbortSignal[] = [];
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    const metrics = createQueryMetrics();
    const app = await appOver(
      1,
      async (filter, options) => {
        reads++;
        if (laterBatchRead(filter, options)) {
          held.push((options as { signal?: AbortSignal } | undefined)?.signal as AbortSignal);
          await released;
        }
        return filter;
      },
      metrics,
    );
    // 1.0.0 over SOAP, 2.0.0 over JSON: each interface's answer stops alike.
    const answer = await transfer(app, v.version === '1.0.0' ? v.soap : v.json, (destroy) => destroy());
    expect(answer.failed).toBe(true);
    // The second batch's reads began before the first batch was sent; they are held until the partner left.
    await waitFor('the held reads are aborted', () => held.length > 0 && held.every((signal) => signal?.aborted));
    const readsWhenGone = reads;
    release();
    await new Promise((r) => setTimeout(r, 500));
    expect(reads).toBe(readsWhenGone);
    const ns = `${names.database}.${collectionsOf(1).shipments.collectionName}`;
    const cursors = await mongo.db('admin').aggregate([{ $currentOp: { idleCursors: true, allUsers: true } }, { $match: { ns } }]).toArray();
    expect(cursors).toEqual([]);
    // Counted once, as the partner's leaving (not a failure of ours, nor never).
    const counted = (await metrics.requests.get()).values.filter((value) => value.value > 0).map((value) => [value.labels['interface'], value.labels['outcome'], value.value]);
    expect(counted).toEqual([[v.version === '1.0.0' ? 'soap' : 'json', 'disconnected', 1]]);
  }, 60_000);
});
