// The store deadline cancels the work it gives up on: the operation's signal aborts at the
// deadline, so its reads end on the server too (lookup-cancel.int.test.ts shows what a read does
// with an aborted signal).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../plumbing/logging/logger.js';
import { testEnvironment } from '../../../test/support/servers.js';
import { StoreConnection, StoreNotConnectedError } from './store-connection.js';

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

it('hands on a capped answer read in batches: its more as it is, each batch read within the deadline, its work aborted once the batches end', async () => {
  let given: AbortSignal | undefined;
  const answer = await store.whenConnectedInCappedBatches(async (signal) => {
    given = signal;
    return { more: true, batches: (async function* () { yield [1]; yield [2]; })() };
  });
  expect(answer.more).toBe(true);
  const read: number[][] = [];
  for await (const batch of answer.batches) read.push(batch);
  expect(read).toEqual([[1], [2]]);
  expect(given?.aborted).toBe(true);

  // A later batch not read within the deadline fails the batches and aborts the reads given the signal.
  let slowSignal: AbortSignal | undefined;
  const slow = await store.whenConnectedInCappedBatches(async (signal) => {
    slowSignal = signal;
    const read = (async function* () {
      yield [1];
      await new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
    })();
    return { more: false, batches: read };
  });
  const batches = slow.batches[Symbol.asyncIterator]();
  expect(await batches.next()).toEqual({ done: false, value: [1] });
  await expect(batches.next()).rejects.toThrow(/took longer than 200 ms/);
  expect(slowSignal?.aborted).toBe(true);
});

it('refuses a lookup read in batches at once until the first connection is made', async () => {
  // A server nobody answers on: the first connection is never made, whatever the machine's speed.
  const starting = new StoreConnection('mongodb://127.0.0.1:1/', 'store-connection-test-starting', createLogger('test', 'silent'), { deadlineMs: 200 });
  try {
    let ran = false;
    const operation = async () => ((ran = true), { more: false, batches: (async function* () {})() });
    await expect(starting.whenConnectedInCappedBatches(operation)).rejects.toThrow(StoreNotConnectedError);
    await expect(starting.whenConnectedInBatches(async () => (await operation()).batches)).rejects.toThrow(StoreNotConnectedError);
    expect(ran).toBe(false);
  } finally {
    await starting.close();
  }
});
