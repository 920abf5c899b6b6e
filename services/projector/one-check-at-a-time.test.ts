import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { everyTickOneAtATime } from './one-check-at-a-time.js';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

/** A check whose first run hangs until `release()`; later runs end at once. */
function hangingFirstCheck() {
  let release!: () => void;
  const hung = new Promise<void>((resolve) => (release = resolve));
  const check = vi.fn(() => (check.mock.calls.length === 1 ? hung : Promise.resolve()));
  return { check, release };
}

describe('everyTickOneAtATime', () => {
  it('skips the ticks that come while a check is running: none are queued to run back to back once it ends', async () => {
    const { check, release } = hangingFirstCheck();
    const ticking = everyTickOneAtATime(check, 2_000, () => undefined);
    await vi.advanceTimersByTimeAsync(2_000 * 30); // a minute of a server away
    expect(check).toHaveBeenCalledTimes(1);

    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(check).toHaveBeenCalledTimes(1);
    // The next tick checks again.
    await vi.advanceTimersByTimeAsync(2_000);
    expect(check).toHaveBeenCalledTimes(2);
    await ticking.stop();
  });

  it('passes a failed check on and tries again at the next tick', async () => {
    const failure = new Error('store away');
    const check = vi.fn().mockRejectedValueOnce(failure).mockResolvedValue(undefined);
    const onError = vi.fn();
    const ticking = everyTickOneAtATime(check, 1_000, onError);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(onError).toHaveBeenCalledWith(failure);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(check).toHaveBeenCalledTimes(2);
    expect(onError).toHaveBeenCalledTimes(1);
    await ticking.stop();
  });

  it('stop waits for the check in progress and starts none after', async () => {
    const { check, release } = hangingFirstCheck();
    const ticking = everyTickOneAtATime(check, 1_000, () => undefined);
    await vi.advanceTimersByTimeAsync(1_000);
    let stopped = false;
    const stopping = ticking.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(stopped).toBe(false);
    release();
    await stopping;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(check).toHaveBeenCalledTimes(1);
  });
});
