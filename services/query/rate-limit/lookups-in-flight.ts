// Lookups in flight per credential, in this process: a credential sending hundreds of requests at
// once (each a 5,000-purchase-order answer) would otherwise hold as many store reads at a time.
// Beyond the bound its lookups wait their turn (the rate limit bounds how many can wait), each for
// at most its deadline; one whose request goes away meanwhile leaves the queue.
import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';

export const DEFAULT_LOOKUPS_IN_FLIGHT = 4;
export const DEFAULT_LOOKUP_WAIT_MS = 5_000;

/** A lookup whose turn did not come within the wait: its request is answered as a store that does not answer in time is (500). */
export class LookupWaitTimeoutError extends OssnError {
  override readonly name = 'LookupWaitTimeoutError';
  constructor(message: string) {
    super(ErrorCodes.LOOKUP_WAIT_TIMEOUT, message);
  }
}

interface Lane {
  running: number;
  /** Waiters in order; each is handed the slot of a lookup that ends. */
  waiting: Array<() => void>;
}

export class LookupsInFlight {
  private readonly lanes = new Map<string, Lane>();

  /** `maxWaitMs`: how long a lookup waits for its turn before it gives up. */
  constructor(
    private readonly max = DEFAULT_LOOKUPS_IN_FLIGHT,
    private readonly maxWaitMs = DEFAULT_LOOKUP_WAIT_MS,
  ) {}

  /**
   * Resolves with the function that frees the slot (once) when one of `credentialId`'s slots is
   * free; rejects with the signal's reason if it aborts first, or with a LookupWaitTimeoutError
   * when no slot comes free within the wait.
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

  /**
   * Waits for a slot handed over by a lookup that ends. The deadline is a plain timer, cleared
   * with the wait: AbortSignal.timeout combined by AbortSignal.any can be collected before it
   * fires on Node 20 (nodejs/node#57736), which left a waiter with no deadline.
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
      const deadline = setTimeout(() => giveUp(new LookupWaitTimeoutError(`no lookup slot came free within ${this.maxWaitMs} ms`)), this.maxWaitMs);
      lane.waiting.push(go);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
