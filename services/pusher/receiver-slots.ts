// A bound on requests in flight per receiver (docs/design/osn-2.1.0.md §2: one receiver down
// holds up no other), a receiver being a URL's origin: subscriptions that post to one host share
// its bound. Beyond it, a delivery waits its turn in order; one whose caller stops leaves the queue.
//
// A count and a queue per origin rather than bottleneck: bottleneck cannot withdraw one queued job
// whose caller went away (only stop the whole limiter), its Group's clean-up timer cannot be
// stopped (services/query/rate-limit/fixed-windows.ts), and its queue runs on timers of its own;
// here a wait ends on its signal, an idle origin is forgotten at once, and no timer runs.

/** Four requests at once per receiver: enough to keep a healthy one busy, few enough not to swamp a small one. */
export const DEFAULT_REQUESTS_PER_RECEIVER = 4;

/** The receiver a URL posts to: its origin (scheme, host, port). */
export function receiverKey(url: string): string {
  return new URL(url).origin;
}

interface Lane {
  running: number;
  /** Waiters in order; each is handed the slot of a request that ends. */
  waiting: Array<() => void>;
}

export class ReceiverSlots {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly max = DEFAULT_REQUESTS_PER_RECEIVER) {}

  /**
   * Resolves with the function that frees the slot (once; later calls do nothing) when one of the
   * receiver's slots is free; rejects with the signal's reason if it aborts first.
   */
  async enter(key: string, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { running: 0, waiting: [] }));
    if (lane.running < this.max) lane.running++;
    else await this.turn(lane, signal); // handed a slot by a request that ended: `running` stays
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.leave(key, lane);
    };
  }

  /** Requests running or waiting for this receiver. */
  inFlight(key: string): { running: number; waiting: number } {
    const lane = this.lanes.get(key);
    return { running: lane?.running ?? 0, waiting: lane?.waiting.length ?? 0 };
  }

  /** Receivers with a request running or waiting. */
  get size(): number {
    return this.lanes.size;
  }

  /** The slot goes straight to the next waiter, so that no newcomer takes it in between. */
  private leave(key: string, lane: Lane): void {
    const next = lane.waiting.shift();
    if (next) return next();
    lane.running--;
    if (lane.running === 0) this.lanes.delete(key);
  }

  private turn(lane: Lane, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = lane.waiting.indexOf(go);
        if (i >= 0) lane.waiting.splice(i, 1);
        reject(signal?.reason);
      };
      lane.waiting.push(go);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
