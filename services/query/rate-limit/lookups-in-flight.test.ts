import { afterEach, expect, it, vi } from 'vitest';
import { LookupsInFlight, LookupWaitTimeoutError } from './lookups-in-flight.js';

afterEach(() => {
  vi.useRealTimers();
});

it('hands an ended lookup\'s slot to the first waiter, never to a newcomer of the same moment', async () => {
  const inFlight = new LookupsInFlight(1);
  const running: string[] = [];
  const run = async (name: string) => {
    const leave = await inFlight.enter('acme');
    running.push(name);
    return () => {
      running.splice(running.indexOf(name), 1);
      leave();
    };
  };
  const endA = await run('a');
  const b = run('b'); // waits
  endA();
  const c = run('c'); // arrives as a's slot goes to b
  const endB = await b;
  await new Promise((resolve) => setImmediate(resolve)); // c, had it been let in, would be running now
  expect(running).toEqual(['b']);
  endB();
  (await c)();
  expect(running).toEqual([]);
  expect(inFlight.size).toBe(0);
});

it('drops a waiter whose signal aborts, and counts nothing for it', async () => {
  const inFlight = new LookupsInFlight(1);
  const leave = await inFlight.enter('acme');
  const gone = new AbortController();
  const waiting = inFlight.enter('acme', gone.signal);
  gone.abort(new Error('the client went away'));
  await expect(waiting).rejects.toThrow('the client went away');
  leave();
  expect(inFlight.size).toBe(0);
  (await inFlight.enter('acme'))();
  expect(inFlight.size).toBe(0);
});

it('gives up a waiter whose turn does not come within the wait, and counts nothing for it', async () => {
  vi.useFakeTimers();
  const inFlight = new LookupsInFlight(1, 50);
  const leave = await inFlight.enter('acme');
  let gaveUp: unknown;
  const waiting = inFlight.enter('acme').catch((error: unknown) => (gaveUp = error));
  await vi.advanceTimersByTimeAsync(49);
  expect(gaveUp).toBeUndefined();
  await vi.advanceTimersByTimeAsync(1);
  expect(gaveUp).toBeInstanceOf(LookupWaitTimeoutError);
  await waiting;
  leave();
  expect(inFlight.size).toBe(0);
  // One given its turn in time keeps it past the wait.
  const first = await inFlight.enter('acme');
  const second = inFlight.enter('acme');
  first();
  const leaveSecond = await second;
  await vi.advanceTimersByTimeAsync(80);
  leaveSecond();
  expect(inFlight.size).toBe(0);
});

it('leaves no deadline running for a waiter given its turn: a waiter queued behind it still gets the slot past that deadline', async () => {
  vi.useFakeTimers();
  try {
    const inFlight = new LookupsInFlight(1, 50);
    const first = await inFlight.enter('acme');
    const second = inFlight.enter('acme');
    expect(vi.getTimerCount()).toBe(1); // second's deadline
    first();
    const leaveSecond = await second;
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(30);
    let thirdIn = false;
    const third = inFlight.enter('acme').then((leave) => {
      thirdIn = true;
      return leave;
    });
    await vi.advanceTimersByTimeAsync(30); // past where second's deadline was, before third's
    leaveSecond();
    await vi.advanceTimersByTimeAsync(0);
    expect(thirdIn).toBe(true);
    (await third)();
    expect(inFlight.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  } finally {
    vi.useRealTimers();
  }
});
