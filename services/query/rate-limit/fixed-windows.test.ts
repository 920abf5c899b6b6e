// Fixed windows in this process (no Redis): the counting and the time until a take passes again.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { FixedWindows, localStore } from './fixed-windows.js';

const opened: FixedWindows[] = [];
function windows(limit: number, windowMs: number): FixedWindows {
  const w = new FixedWindows({ id: 'test', limit, windowMs }, localStore, (error) => {
    throw error;
  });
  opened.push(w);
  return w;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((w) => w.close()));
});

const HEARTBEAT = 250; // bottleneck's local refill tick

it('allows `limit` takes per key and window, then refuses at once with the time to the window end', async () => {
  const w = windows(3, 60_000);
  const takes = await Promise.all([1, 2, 3, 4, 5].map(() => w.take('a')));
  expect(takes.map((t) => t.allowed)).toEqual([true, true, true, false, false]);
  const refused = takes[3]!;
  expect(refused.retryAfterMs).toBeGreaterThan(59_000);
  expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000 + HEARTBEAT);
  expect((await w.take('b')).allowed).toBe(true);
});

it('allows again once the window has ended, not before', async () => {
  const w = windows(2, 1_000);
  await w.take('a');
  await w.take('a');
  const refused = await w.take('a');
  expect(refused.allowed).toBe(false);
  // retryAfterMs is an upper bound: the refill comes at the first heartbeat after the window.
  await sleep(Math.max(0, refused.retryAfterMs - HEARTBEAT - 250));
  expect((await w.take('a')).allowed).toBe(false);
  await sleep(HEARTBEAT + 350);
  expect((await w.take('a')).allowed).toBe(true);
});

it('tells how long a key is blocked without taking anything', async () => {
  const w = windows(2, 60_000);
  expect(await w.blockedFor('a')).toBe(0);
  await w.take('a');
  expect(await w.blockedFor('a')).toBe(0);
  await w.take('a');
  const blocked = await w.blockedFor('a');
  expect(blocked).toBeGreaterThan(59_000);
  expect(blocked).toBeLessThanOrEqual(60_000 + HEARTBEAT);
  expect(await w.blockedFor('a')).toBeGreaterThan(0); // peeking took nothing…
  expect(await w.blockedFor('b')).toBe(0); // …and other keys are not affected
});
