import { expect, it } from 'vitest';
import { LookupsInFlight } from './lookups-in-flight.js';

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
  await new Promise((resolve) => setTimeout(resolve, 10));
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
