// `ossn start`'s look for a first push subscription (services/ossn/push-in-start.ts) against the
// real MongoDB through a proxy that freezes it (sockets open, nothing answered): each look is a
// store operation within STORE_TIMEOUT_MS (docs/operations.md, Configuration), so a frozen store
// neither holds the start's look nor its stop past the deadline, and once the store answers again
// the looking goes on.
import { setTimeout as sleep } from 'node:timers/promises';
import type { MongoClient } from 'mongodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../contracts/errors/ossn-error.js';
import { testMongo } from '../../test/support/clients.js';
import { logLines } from '../../test/support/log-lines.js';
import { servers, uniqueNames } from '../../test/support/servers.js';
import { startProxyTo, type TcpProxy } from '../../test/support/tcp-proxy.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection } from '../adapters/mongodb/push-subscriptions.js';
import { createLogger } from '../plumbing/logging/logger.js';
import { noKeyWarning, PushInStart } from './push-in-start.js';

const storeTimeoutMs = 1_000;
/** The deadline, and room for a loaded 2-core machine to notice it; the driver's own waits are 10 s and more. */
const within = storeTimeoutMs + 1_500;

const names = uniqueNames('push-in-start');
let mongo: MongoClient;
const proxies: TcpProxy[] = [];
const started: PushInStart[] = [];

beforeAll(async () => {
  mongo = await testMongo();
});
afterEach(async () => {
  for (const proxy of proxies) proxy.thaw();
  await Promise.all(started.splice(0).map((push) => push.stop()));
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});
afterAll(async () => {
  await mongo?.close();
});

async function frozenLater(): Promise<{ proxy: TcpProxy; url: string }> {
  const proxied = await startProxyTo(servers().mongodbUri);
  proxies.push(proxied.proxy);
  return proxied;
}

const lookEveryMs = 200;

function pushInStart(mongodbUri: string, database = uniqueNames('push-in-start-first').database) {
  const said: string[] = [];
  const log = logLines();
  const push = new PushInStart({
    store: { mongodbUri, database, readModelVersion: 1 },
    storeTimeoutMs,
    pusher: undefined,
    logger: createLogger('push-in-start-test', 'warn', log),
    say: (line) => said.push(line),
    lookEveryMs,
  });
  started.push(push);
  return { push, said, log };
}

const timed = async <T>(work: () => Promise<T>): Promise<{ ms: number; result: PromiseSettledResult<T> }> => {
  const start = Date.now();
  const [result] = await Promise.allSettled([work()]);
  return { ms: Date.now() - start, result: result! };
};

describe('ossn start looking for push subscriptions while MongoDB is frozen', () => {
  it('the first look fails with the store deadline, within it, instead of holding the start', async () => {
    const store = await frozenLater();
    store.proxy.freeze();
    const { push } = pushInStart(store.url);
    const { ms, result } = await timed(() => push.start());
    expect(result.status).toBe('rejected');
    expect((result as PromiseRejectedResult).reason).toMatchObject({ code: ErrorCodes.STORE_TIMEOUT });
    expect(ms).toBeLessThan(within);
  });

  it('a look in the background gives up at the deadline, is told, and looks again: a subscription added once the store answers is found', async () => {
    const store = await frozenLater();
    const { push, said, log } = pushInStart(store.url, names.database);
    await push.start(); // the store answers: no subscription yet, so it keeps looking
    expect(said).toEqual([]);

    store.proxy.freeze();
    const frozenAt = Date.now();
    await expect.poll(() => log.atLeast('warn').length, { timeout: lookEveryMs + within, interval: 50 }).toBeGreaterThan(0);
    expect(Date.now() - frozenAt).toBeLessThan(lookEveryMs + within);
    expect(log.atLeast('warn')[0]).toMatchObject({ msg: 'looking for push subscriptions failed; looking again', err: { code: ErrorCodes.STORE_TIMEOUT } });

    store.proxy.thaw();
    await new MongoPushSubscriptions(pushSubscriptionsCollection(mongo.db(names.database))).add({
      id: 'sub-1',
      credentialId: 'acme',
      url: 'https://receiver.example/osn',
      receiverId: 'ossn',
      enabled: true,
      createdAt: new Date(),
      cursorStart: new Date(),
    });
    await expect.poll(() => said, { timeout: 10_000, interval: 50 }).toEqual([noKeyWarning]);
  });

  it('a stop while a look waits on the frozen store ends within the deadline', async () => {
    const store = await frozenLater();
    const { push } = pushInStart(store.url, uniqueNames('push-in-start-stop').database);
    await push.start();
    store.proxy.freeze();
    await sleep(lookEveryMs + 100); // the next look has begun, and waits
    const { ms, result } = await timed(() => push.stop());
    expect(result.status).toBe('fulfilled');
    expect(ms).toBeLessThan(within);
  });
});
