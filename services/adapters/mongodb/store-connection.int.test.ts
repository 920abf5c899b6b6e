// The store deadline cancels the work it gives up on: the operation's signal aborts at the
// deadline, so its reads end on the server too (lookup-cancel.int.test.ts shows what a read does
// with an aborted signal).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../plumbing/logging/logger.js';
import { testEnvironment } from '../../../test/support/servers.js';
import { StoreConnection } from './store-connection.js';

const env = testEnvironment();
let store: StoreConnection;

beforeAll(async () => {
  store = new StoreConnection(env.mongodbUri, 'store-connection-test', createLogger('test', 'silent'), { deadlineMs: 200 });
  await store.connected;
});
afterAll(() => store.close());

it('fails an operation at the deadline and aborts the signal it gave it; a caller\'s own signal aborts it too', async () => {
  let given: AbortSignal | undefined;
  const started = Date.now();
  await expect(store.whenConnected((signal) => ((given = signal), new Promise(() => {})))).rejects.toThrow(/took longer than 200 ms/);
  expect(Date.now() - started).toBeLessThan(1_000);
  expect(given?.aborted).toBe(true);

  const caller = new AbortController();
  let second: AbortSignal | undefined;
  const running = store.whenConnected((signal) => ((second = signal), new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason)))), caller.signal);
  caller.abort(new Error('the client went away'));
  await expect(running).rejects.toThrow('the client went away');
  expect(second?.aborted).toBe(true);

  // Work that ends in time is answered as it is.
  expect(await store.whenConnected(async () => (await store.client.db('admin').command({ ping: 1 })).ok)).toBe(1);
});
