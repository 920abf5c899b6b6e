// A lookup whose request has gone (client away, or answered at its deadline) is cancelled on the
// real server, not only abandoned: its cursor is gone there and nothing more is read for it.
import type { CommandStartedEvent, MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateDemoEvents } from '../../ossn/demo-events/demo-events.js';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { projectBatch } from '../../projector/project-batch.js';
import { connectMongo } from './connect.js';
import { documentId, ensureIndexes, readModelCollections } from './documents.js';
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

/** The open cursors the server holds on the order-status collection of this test. */
async function openCursors(): Promise<number> {
  const ops = await mongo
    .db('admin')
    .aggregate([{ $currentOp: { idleCursors: true, allUsers: true } }, { $match: { type: 'idleCursor', ns: `${names.database}.${readModelCollections(mongo.db(names.database), 1).orderStatus.collectionName}` } }])
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
