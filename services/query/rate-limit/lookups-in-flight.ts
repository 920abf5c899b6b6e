// Lookups in flight per credential, in this process: a credential sending hundreds of requests at
// once (each a 5,000-purchase-order answer) would otherwise hold as many store reads at a time.
// Beyond the bound its lookups wait their turn (the rate limit bounds how many can wait); one
// whose request goes away meanwhile leaves the queue.

export const DEFAULT_LOOKUPS_IN_FLIGHT = 4;

interface Lane {
  running: number;
  /** Waiters in order; each is handed the slot of a lookup that ends. */
  waiting: Array<() => void>;
}

export class LookupsInFlight {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly max = DEFAULT_LOOKUPS_IN_FLIGHT) {}

  /**
   * Resolves with the function that frees the slot (once) when one of `credentialId`'s slots is
   * free; rejects with the signal's reason if it aborts first.
   */
  async enter(credentialId: string, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    let lane = this.lanes.get(credentialId);
    if (!lane) this.lanes.set(credentialId, (lane = { running: 0, waiting: [] }));
    if (lane.running < this.max) lane.running++;
    else await this.turn(lane, signal); // handed a slot by a lookup that ended: `running` stays
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.leave(credentialId, lane);
    };
  }

  /** Credentials with a lookup running or waiting. */
  get size(): number {
    return this.lanes.size;
  }

  /** The slot goes straight to the next waiter, so that no newcomer can take it in between. */
  private leave(credentialId: string, lane: Lane): void {
    const next = lane.waiting.shift();
    if (next) return next();
    lane.running--;
    if (lane.running === 0) this.lanes.delete(credentialId);
  }

  private turn(lane: Lane, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', giveUp);
        resolve();
      };
      // Only a waiter still in the queue hears this: one given its turn removed the listener.
      const giveUp = () => {
        lane.waiting.splice(lane.waiting.indexOf(go), 1);
        reject(signal?.reason);
      };
      lane.waiting.push(go);
      signal?.addEventListener('abort', giveUp, { once: true });
    });
  }
}
