import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReceiverSlots, ReceiverSlotWaitTimeoutError, receiverKey } from './receiver-slots.js';

/** Whether a promise has settled, after the microtasks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('receiverKey', () => {
  it.each([
    ['https://asn.example.com/osn/2.1.0', 'https://asn.example.com'],
    ['https://asn.example.com:443/other', 'https://asn.example.com'],
    ['https://asn.example.com:8443/osn', 'https://asn.example.com:8443'],
    ['http://127.0.0.1:9000/a?b=c', 'http://127.0.0.1:9000'],
    ['HTTPS://ASN.Example.COM/x', 'https://asn.example.com'],
  ])('%s is %s', (url, key) => expect(receiverKey(url)).toBe(key));
});

describe('ReceiverSlots', () => {
  it('lets `max` requests of a receiver in at once; the next waits for one to end, in order', async () => {
    const slots = new ReceiverSlots(2);
    const first = await slots.enter('a');
    await slots.enter('a');
    const third = slots.enter('a');
    const fourth = slots.enter('a');
    expect(await settled(third)).toBe(false);
    expect(slots.inFlight('a')).toEqual({ running: 2, waiting: 2 });
    first();
    expect(await settled(third)).toBe(true);
    expect(await settled(fourth)).toBe(false);
    expect(slots.inFlight('a')).toEqual({ running: 2, waiting: 1 });
  });

  it('holds up no other receiver', async () => {
    const slots = new ReceiverSlots(1);
    await slots.enter('down.example');
    const blocked = slots.enter('down.example');
    expect(await settled(slots.enter('up.example'))).toBe(true);
    expect(await settled(blocked)).toBe(false);
  });

  it('hands a freed slot to a waiter, not to a newcomer', async () => {
    const slots = new ReceiverSlots(1);
    const leave = await slots.enter('a');
    const waiter = slots.enter('a');
    leave();
    const newcomer = slots.enter('a');
    expect(await settled(waiter)).toBe(true);
    expect(await settled(newcomer)).toBe(false);
  });

  it('frees a slot once however often it is freed', async () => {
    const slots = new ReceiverSlots(1);
    const leave = await slots.enter('a');
    const second = slots.enter('a');
    const third = slots.enter('a');
    leave();
    leave();
    expect(await settled(second)).toBe(true);
    expect(await settled(third)).toBe(false);
  });

  it('a waiter whose signal aborts leaves the queue with its reason, and takes no slot', async () => {
    const slots = new ReceiverSlots(1);
    const leave = await slots.enter('a');
    const stop = new AbortController();
    const gone = slots.enter('a', stop.signal);
    const next = slots.enter('a');
    stop.abort(new Error('pusher stopping'));
    await expect(gone).rejects.toThrow('pusher stopping');
    expect(slots.inFlight('a')).toEqual({ running: 1, waiting: 1 });
    leave();
    expect(await settled(next)).toBe(true);
  });

  it('refuses at once a signal already aborted', async () => {
    const slots = new ReceiverSlots(1);
    await expect(slots.enter('a', AbortSignal.abort(new Error('stopped')))).rejects.toThrow('stopped');
    expect(slots.size).toBe(0);
  });

  it('forgets a receiver with nothing running or waiting', async () => {
    const slots = new ReceiverSlots(4);
    const leaves = await Promise.all([slots.enter('a'), slots.enter('a'), slots.enter('b')]);
    expect(slots.size).toBe(2);
    for (const leave of leaves) leave();
    expect(slots.size).toBe(0);
  });

  it('lets 4 in at once by default', async () => {
    const slots = new ReceiverSlots();
    for (let i = 0; i < 4; i++) await slots.enter('a');
    expect(await settled(slots.enter('a'))).toBe(false);
  });

  describe('the wait for a slot', () => {
    afterEach(() => vi.useRealTimers());

    it('has a deadline: a waiter whose turn does not come within it gives up, takes no slot, and the next one still gets the freed slot', async () => {
      vi.useFakeTimers();
      const slots = new ReceiverSlots(1, 50);
      const free = await slots.enter('a');
      const late = slots.enter('a');
      const lateResult = late.catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(51);
      expect(await lateResult).toBeInstanceOf(ReceiverSlotWaitTimeoutError);
      expect(slots.inFlight('a')).toEqual({ running: 1, waiting: 0 });
      const next = slots.enter('a');
      free();
      (await next)();
      expect(slots.size).toBe(0);
    });
  });
});
