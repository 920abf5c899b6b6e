// settleGuarded against the real server: a page whose guarded write missed (a writer moved a
// document on between the page's read and its write) is read and settled again.
import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { connectMongo } from './connect.js';
import { settleGuarded } from './settling.js';

let mongo: MongoClient;
beforeAll(async () => {
  mongo = await connectMongo(testEnvironment().mongodbUri, 'settling-test');
});
afterAll(async () => {
  await mongo?.close();
});

it('settles a page again where a write moved a document on in between, and counts the page once', async () => {
  const db = mongo.db(uniqueNames('settling').database);
  const docs = db.collection<{ _id: string; sequence: number; settled?: boolean }>('docs');
  await docs.insertMany([{ _id: 'a', sequence: 1 }, { _id: 'b', sequence: 1 }]);
  const report = { carried: 0, stamped: 0 };
  let readings = 0;
  await settleGuarded(
    docs,
    async () => {
      readings++;
      const page = await docs.find({}).toArray();
      // The first time, another writer (the projector following the switch) moves 'b' on after the read.
      if (readings === 1) await docs.updateOne({ _id: 'b' }, { $set: { sequence: 2 } });
      const unsettled = page.filter((d) => !d.settled);
      return {
        ops: unsettled.map((d) => ({ updateOne: { filter: { _id: d._id, sequence: d.sequence }, update: { $set: { settled: true } } } })),
        carried: 0,
        stamped: unsettled.length,
      };
    },
    report,
  );
  expect(readings).toBe(2);
  expect(await docs.find({}, { sort: { _id: 1 } }).toArray()).toEqual([
    { _id: 'a', sequence: 1, settled: true },
    { _id: 'b', sequence: 2, settled: true },
  ]);
  expect(report).toEqual({ carried: 0, stamped: 2 });
  await db.dropDatabase();
});
