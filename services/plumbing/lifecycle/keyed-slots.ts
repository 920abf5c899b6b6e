// A bound on work in flight per key, in this process (lookups per credential, requests per
// receiver): beyond `max`, work waits its turn in order, each wait for at most `maxWaitMs`; one
// whose caller goes away meanwhile leaves the queue. A freed slot goes straight to the next waiter,
// so that no newcomer takes it in between; an idle key is forgotten at once.

interface Lane {
  running: number;
  /** Waiters in order; each is handed the slot of work that ends. */
  waiting: Array<() => void>;
}

export interface KeyedSlotsOptions {
  /** Work in flight per key. */
  max: number;
  /** How long work waits for its turn before it gives up. */
  maxWaitMs: number;
  /** What a wait that timed out rejects with. */
  waitTimedOut(maxWaitMs: number): Error;
}

export class KeyedSlots {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly options: KeyedSlotsOptions) {}

  /**
   * Resolves with the function that frees the slot (once; later calls do nothing) when one of
   * `key`'s slots is free; rejects with the signal's reason if it aborts first, or with
   * `waitTimedOut` when no slot comes free within the wait.
   */
  async enter(key: string, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { running: 0, waiting: [] }));
    if (lane.running < this.options.max) lane.running++;
    else await this.turn(lane, signal); // handed a slot by work that ended: `running` stays
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.leave(key, lane);
    };
  }

  /** Work running or waiting for `key`. */
  inFlight(key: string): { running: number; waiting: number } {
    const lane = this.lanes.get(key);
    return { running: lane?.running ?? 0, waiting: lane?.waiting.length ?? 0 };
  }

  /** Keys with work running or waiting. */
  get size(): number {
    return this.lanes.size;
  }

  private leave(key: string, lane: Lane): void {
    const next = lane.waiting.shift();
    if (next) return next();
    lane.running--;
    if (lane.running === 0) this.lanes.delete(key);
  }

  /**
   * Waits for a slot handed over by work that ends. The deadline is a plain timer, cleared with the
   * wait: AbortSignal.timeout combined by AbortSignal.any can be collected before it fires on
   * Node 20 (nodejs/node#57736), which left a waiter with no deadline.
   */
  private turn(lane: Lane, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const stopWaiting = () => {
        clearTimeout(deadline);
        signal?.removeEventListener('abort', onAbort);
      };
      const go = () => {
        stopWaiting();
        resolve();
      };
      // Only a waiter still in the queue should get here (one given its turn stopped both); were it
      // gone, indexOf's -1 would make splice drop the last waiter instead.
      const giveUp = (reason: unknown) => {
        stopWaiting();
        const i = lane.waiting.indexOf(go);
        if (i >= 0) lane.waiting.splice(i, 1);
        reject(reason);
      };
      const onAbort = () => giveUp(signal?.reason);
      const { maxWaitMs, waitTimedOut } = this.options;
      const deadline = setTimeout(() => giveUp(waitTimedOut(maxWaitMs)), maxWaitMs);
      lane.waiting.push(go);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
