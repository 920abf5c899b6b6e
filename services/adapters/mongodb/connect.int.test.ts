// What every client of ours asks of the server when it writes: a majority of the replica set,
// journalled, and a retryable write (a transaction number the new primary recognises after a
// failover). Watched on the wire, as the projector's write path sends it, on the real replica set.
import type { CommandStartedEvent, MongoClient } from 'mongodb';
import { afterAll, expect, it } from 'vitest';
import type { OrderStatusState } from '../../../projections/state.js';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { createMongoClient } from './connect.js';
import { readModelCollections } from './documents.js';
import { writeEffects } from './writes.js';

const env = testEnvironment();
const clients: MongoClient[] = [];

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

/** A client of ours on `uri`, and the commands it sends. */
async function watched(uri: string): Promise<{ client: MongoClient; started: CommandStartedEvent[] }> {
  const client = createMongoClient(uri, 'connect-test', { monitorCommands: true });
  clients.push(client);
  const started: CommandStartedEvent[] = [];
  client.on('commandStarted', (event) => started.push(event));
  await client.connect();
  return { client, started };
}

/** A URI that asks for less: one member's acknowledgement, no retries. */
function weakened(uri: string): string {
  const url = new URL(uri);
  url.searchParams.set('w', '1');
  url.searchParams.set('journal', 'false');
  url.searchParams.set('retryWrites', 'false');
  return url.toString();
}

it.each([
  ['the configured URI', env.mongodbUri],
  ['a URI asking for w=1 without retries', weakened(env.mongodbUri)],
])('writes read models with majority write concern, journalled, as retryable writes (%s)', async (_, uri) => {
  const { client: monitored, started } = await watched(uri);
  const collections = readModelCollections(monitored.db(uniqueNames('connect').database), 1);
  const first: OrderStatusState = { clientId: 'C1', salesOrderNumber: 'SO-1', sequence: 1, statusId: 10, open: true, validTimestamp: new Date('2026-11-01T10:00:00Z') };
  const second: OrderStatusState = { ...first, sequence: 2, statusId: 20 };
  await writeEffects(collections, { orderStatus: [{ after: first }], shipments: [] });
  await writeEffects(collections, { orderStatus: [{ before: first, after: second }], shipments: [] });

  const writes = started.filter((event) => ['insert', 'update', 'delete'].includes(event.commandName));
  expect(writes.map((event) => event.commandName)).toContain('update');
  for (const { command } of writes) {
    expect(command.writeConcern).toEqual({ w: 'majority', j: true });
    expect(command.txnNumber).toBeDefined();
  }
  expect((await collections.orderStatus.findOne({ _id: 'C1:SO-1' }))?.statusId).toBe(20);
});
