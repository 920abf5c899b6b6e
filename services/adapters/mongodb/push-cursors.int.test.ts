// The push leases against a real MongoDB (docs/design/osn-2.1.0.md §2: each subscription worked by
// one pusher at a time): a pusher takes every free or lapsed lease at once, in a few round trips
// whatever their number, two pushers racing never both take one, and a lapsed lease is taken over
// with its cursor.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, type Db } from 'mongodb';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { MongoPushCursors, type PushCursorDocument } from './push-cursors.js';

let mongo: MongoClient;
let db: Db;
/** The commands sent on each collection, as the server was asked them. */
const commands: { name: string; collection: unknown }[] = [];
beforeAll(async () => {
  mongo = await MongoClient.connect(testEnvironment().mongodbUri, { monitorCommands: true });
  mongo.on('commandStarted', (event) => commands.push({ name: event.commandName, collection: event.command[event.commandName] }));
  db = mongo.db(uniqueNames('push-cursors').database);
});
afterAll(async () => mongo?.close());

let n = 0;
function fresh() {
  const name = `cursors_${++n}`;
  return { cursors: new MongoPushCursors(db.collection<PushCursorDocument>(name)), name };
}
const ids = (count: number) => Array.from({ length: count }, (_, i) => `ps-${i}`);

describe('push leases', () => {
  it('takes the leases of 100 subscriptions in three round trips, and none another pusher holds', async () => {
    const { cursors, name } = fresh();
    const before = commands.length;
    const taken = await cursors.acquireMany(ids(100), 'pusher-a', 60_000);
    expect([...taken.keys()].sort()).toEqual(ids(100).sort());
    expect(commands.slice(before).filter((c) => c.collection === name).length).toBeLessThanOrEqual(3);
    expect((await cursors.acquireMany(ids(100), 'pusher-b', 60_000)).size).toBe(0);
    // Its own are taken again (renewed) by the pusher holding them.
    expect((await cursors.acquireMany(['ps-1'], 'pusher-a', 60_000)).has('ps-1')).toBe(true);
  });

  it('gives each lease to one of two pushers racing for the same subscriptions', async () => {
    for (let round = 0; round < 5; round++) {
      const { cursors } = fresh();
      const all = ids(200);
      const [a, b] = await Promise.all([cursors.acquireMany(all, 'pusher-a', 60_000), cursors.acquireMany([...all].reverse(), 'pusher-b', 60_000)]);
      expect([...a.keys()].filter((id) => b.has(id))).toEqual([]);
      expect(a.size + b.size).toBe(200);
    }
  });

  it('lets another pusher take over a lapsed lease, with the cursor where the first left it', async () => {
    const { cursors } = fresh();
    await cursors.acquireMany(['ps-1', 'ps-2'], 'pusher-a', 60_000);
    await cursors.acquireMany(['ps-3'], 'pusher-a', 3_000);
    const cursor = new Date('2026-12-01T10:00:00Z');
    expect(await cursors.advance('ps-3', 'pusher-a', cursor)).toBe(true);
    expect((await cursors.acquireMany(['ps-1', 'ps-2', 'ps-3'], 'pusher-b', 60_000)).size).toBe(0);
    await sleep(3_500); // ps-3's lease lapses by the server's clock
    const taken = await cursors.acquireMany(['ps-1', 'ps-2', 'ps-3'], 'pusher-b', 60_000);
    expect([...taken]).toEqual([['ps-3', { cursor }]]);
    expect(await cursors.advance('ps-3', 'pusher-a', new Date())).toBe(false);
  });
});
