// Fixed windows in this process (no Redis): the counting and the time until a take passes again.
// The clock the windows read (and their sweeper's interval) is vitest's, moved by the tests;
// bottleneck's own zero-delay timers stay real.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { FixedWindows, localStore } from './fixed-windows.js';

const opened: FixedWindows[] = [];
function windows(limit: number, windowMs: number): FixedWindows {
  const w = new FixedWindows({ id: 'test', limit, windowMs }, localStore, (error) => {
    throw error;
  });
  opened.push(w);
  return w;
}
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((w) => w.close()));
  vi.useRealTimers();
});

it('allows `limit` takes per key and window, then refuses at once with the time to the window end', async () => {
  const w = windows(3, 60_000);
  const takes = await Promise.all([1, 2, 3, 4, 5].map(() => w.take('a')));
  expect(takes.map((t) => t.allowed)).toEqual([true, true, true, false, false]);
  const refused = takes[3]!;
  expect(refused.retryAfterMs).toBe(60_000);
  expect((await w.take('b')).allowed).toBe(true);
});

it('allows again once the window has ended, not before', async () => {
  const w = windows(2, 1_000);
  await w.take('a');
  await w.take('a');
  const refused = await w.take('a');
  expect(refused.allowed).toBe(false);
  vi.advanceTimersByTime(refused.retryAfterMs - 1);
  expect((await w.take('a')).allowed).toBe(false);
  vi.advanceTimersByTime(1);
  expect((await w.take('a')).allowed).toBe(true);
});

it('takes back a given-back token once, and refusals do not dig the window deeper', async () => {
  const w = windows(2, 60_000);
  const first = await w.take('a');
  await w.take('a');
  expect((await w.take('a')).allowed).toBe(false);
  expect((await w.take('a')).allowed).toBe(false);
  // One token given back after two refusals: exactly one more take passes.
  await first.giveBack();
  expect((await w.take('a')).allowed).toBe(true);
  expect((await w.take('a')).allowed).toBe(false);
});

it('does not give a token of an ended window to the next one', async () => {
  const w = windows(1, 300);
  const old = await w.take('a');
  vi.advanceTimersByTime(300);
  expect((await w.take('a')).allowed).toBe(true);
  await old.giveBack();
  expect((await w.take('a')).allowed).toBe(false);
});

it('opens a window again after its store failed to open it', async () => {
  let failures = 2;
  const flaky = { ...localStore, window: async (key: string, ms: number) => (failures-- > 0 ? Promise.reject(new Error('store away')) : localStore.window(key, ms)) };
  const w = new FixedWindows({ id: 'test', limit: 1, windowMs: 60_000 }, flaky, () => undefined);
  opened.push(w);
  await expect(w.take('a')).rejects.toThrow('store away');
  expect((await w.take('a')).allowed).toBe(true);
  expect((await w.take('a')).allowed).toBe(false);
});

it('forgets a key idle for a window, and counts it afresh when it comes back', async () => {
  const w = windows(1, 400);
  await w.take('a');
  expect(w.size).toBe(1);
  vi.advanceTimersByTime(399);
  expect(w.size).toBe(1);
  // Within half a window after it ended.
  vi.advanceTimersByTime(201);
  expect(w.size).toBe(0);
  expect((await w.take('a')).allowed).toBe(true);
  expect((await w.take('a')).allowed).toBe(false);
});
