// A lookup whose request has gone (client away, or answered at its deadline) is cancelled on the
// real server, not only abandoned: its cursor is gone there and nothing more is read for it.
import type { CommandStartedEvent, CommandSucceededEvent, MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import type { ShipmentsState } from '../../../projections/state.js';
import { sampleShipFrom, sampleShipTo } from '../../../test/fixtures/sample-events.js';
import { generateDemoEvents } from '../../ossn/demo-events/demo-events.js';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { projectBatch } from '../../projector/project-batch.js';
import { connectMongo } from './connect.js';
import { documentId, ensureIndexes, readModelCollections } from './documents.js';
import { readWhole } from '../../../contracts/lookups.js';
import { MongoOrderLookups } from './lookups.js';
import { loadStates, writeEffects } from './writes.js';

const env = testEnvironment();
const names = uniqueNames('lookup-cancel');
let mongo: MongoClient;
let monitored: MongoClient;

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'lookup-cancel-test');
  const store = readModelCollections(mongo.db(names.database), 1);
  await ensureIndexes(store);
  // Enough open sales orders that an answer takes several batches of a cursor.
  const events = generateDemoEvents({ clients: 1, orders: 3_000, seed: 17 });
  for (let start = 0; start < events.length; start += 3_000) {
    const slice = events.slice(start, start + 3_000);
    const keys = [...new Set(slice.map((e) => documentId(e.clientId, e.salesOrderNumber)))];
    const batch = projectBatch(await loadStates(store, keys), slice.map((event) => ({ event, source: event })));
    await writeEffects(store, batch.effects);
  }
  monitored = await connectMongo(env.mongodbUri, 'lookup-cancel-monitored', { monitorCommands: true });
}, 120_000);

afterAll(async () => {
  await monitored?.close();
  await mongo.db(names.database).dropDatabase();
  await mongo.close();
});

/** The open cursors the server holds on a collection (the order-status one of this test unless told). */
async function openCursors(ns = `${names.database}.${readModelCollections(mongo.db(names.database), 1).orderStatus.collectionName}`): Promise<number> {
  const ops = await mongo
    .db('admin')
    .aggregate([{ $currentOp: { idleCursors: true, allUsers: true } }, { $match: { type: 'idleCursor', ns } }])
    .toArray();
  return ops.length;
}

it('sees an open cursor where there is one (so that its zero below means something)', async () => {
  const cursor = mongo.db(names.database).collection(readModelCollections(mongo.db(names.database), 1).orderStatus.collectionName).find({}, { batchSize: 2 });
  await cursor.next();
  expect(await openCursors()).toBe(1);
  await cursor.close();
  expect(await openCursors()).toBe(0);
});

it('leaves no cursor on the server and reads no further batch once its signal aborts', async () => {
  const lookups = new MongoOrderLookups(readModelCollections(monitored.db(names.database), 1));
  const clientId = (await mongo.db(names.database).collection(readModelCollections(mongo.db(names.database), 1).orderStatus.collectionName).findOne({}))!.clientId as string;
  const started: string[] = [];
  const cancel = new AbortController();
  const onStarted = (event: CommandStartedEvent) => {
    if (event.databaseName !== names.database) return;
    started.push(event.commandName);
    // The request goes away while the second batch is being read: the cursor is open on the server.
    if (event.commandName === 'getMore') cancel.abort(new Error('the client went away'));
  };
  monitored.on('commandStarted', onStarted);
  try {
    await expect(lookups.orderStatus([clientId], { queryType: 4 }, cancel.signal)).rejects.toThrow(/client went away/);
    // Gone on the server within moments (the driver drops the connection of the read under way,
    // and the server ends a getMore whose client is gone, and its cursor with it).
    await expect.poll(openCursors, { timeout: 2_000, interval: 50 }).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(started.filter((name) => name === 'getMore')).toEqual(['getMore']);
  } finally {
    monitored.off('commandStarted', onStarted);
  }

  // The same lookup left alone reads its answer whole.
  expect((await lookups.orderStatus([clientId], { queryType: 4 })).length).toBeGreaterThan(500);
});

it('ends every read of a lookup that reads in batches, leaving no cursor on the server, once its signal aborts', async () => {
  // Shipment queryType 3 over 2,400 purchase orders with news reads their sales orders a batch at a
  // time (100, then 500), the next batch's read begun while the last is handed on: the signal aborts
  // while the second batch's cursor is read.
  const database = `${names.database}-parts`;
  onTestFinished(async () => {
    await mongo.db(database).dropDatabase();
  });
  const store = readModelCollections(mongo.db(database), 1);
  await ensureIndexes(store);
  const pkg = { packageId: 1, trackingNumber: 'TRK-1', shipmentDate: new Date('2026-11-02T08:00:00Z') };
  const states = Array.from(
    { length: 2_400 },
    (_, i): ShipmentsState => ({
      clientId: 'C1',
      salesOrderNumber: `SO-${i}`,
      sequence: 1,
      purchaseOrderNumber: `PO-${i}`,
      completedAsWhole: false,
      complete: false,
      locations: [{ locationId: 1, complete: false, shipFrom: sampleShipFrom, shipTo: sampleShipTo, packages: [pkg] }],
    }),
  );
  await writeEffects(store, { orderStatus: [], shipments: states.map((after) => ({ after })) });
  const lookups = new MongoOrderLookups(readModelCollections(monitored.db(database), 1));
  const query = { queryType: 3, shipmentDateTimeStamp: new Date(0) } as const;
  // The answer's batches read to their end. Which error ends it once the signal is aborted is the
  // driver's race (the server's interruption against the abort: ended-by-signal.ts); that it ends,
  // and leaves no cursor, is what a partner's going away must do.
  const readAll = async (signal?: AbortSignal) => readWhole(await lookups.shipmentNotificationV2Batches(['C1'], query, signal));

  // The parts' cursors: the finds that read sales orders whole (their projection leaves the news time out), not the plan's aggregations.
  const partFinds = new Set<number>();
  const partCursors = new Set<string>();
  const partGetMores: string[] = [];
  const cancel = new AbortController();
  const onStarted = (event: CommandStartedEvent) => {
    if (event.databaseName !== database) return;
    if (event.commandName === 'find' && (event.command.projection as { lastNewsAt?: number } | undefined)?.lastNewsAt === 0) partFinds.add(event.requestId);
    if (event.commandName === 'getMore' && partCursors.has(String(event.command.getMore))) {
      partGetMores.push(String(event.command.getMore));
      // The request goes away while a part reads its next batch, two parts' cursors made on the server.
      // (Not while a part's find is under way: a cursor the driver has not heard of yet is left on the
      // server whatever the lookup does, until the server times it out.)
      if (partCursors.size === 2) cancel.abort(new Error('the client went away'));
    }
  };
  const onSucceeded = (event: CommandSucceededEvent) => {
    if (partFinds.has(event.requestId)) partCursors.add(String((event.reply as { cursor: { id: unknown } }).cursor.id));
  };
  monitored.on('commandStarted', onStarted);
  monitored.on('commandSucceeded', onSucceeded);
  try {
    await expect(readAll(cancel.signal)).rejects.toThrow();
    expect(partFinds.size).toBe(2);
    await expect.poll(() => openCursors(`${database}.${store.shipments.collectionName}`), { timeout: 2_000, interval: 50 }).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // No part reads on once the signal aborted: at most one getMore each, the one under way.
    expect(partCursors.size).toBe(2);
    expect(new Set(partGetMores).size).toBe(partGetMores.length);
  } finally {
    monitored.off('commandStarted', onStarted);
    monitored.off('commandSucceeded', onSucceeded);
  }

  // The same lookup left alone answers every purchase order.
  expect((await readAll()).orders).toHaveLength(2_400);
}, 60_000);
