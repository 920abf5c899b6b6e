// Counting that survives a Redis outage: while Redis answers, every instance counts in it (one
// limit shared by all); while it does not, each instance counts on its own, so requests keep
// being served, each instance allowing up to the limit. The switch is logged once each way.
import type { FixedWindows, Take } from './fixed-windows.js';
import { withDeadline } from '../../plumbing/lifecycle/deadline.js';
import type { SharedConnection } from '../../adapters/redis/redis-connection.js';

export interface Counter {
  take(key: string): Promise<Take>;
  /** Milliseconds until the key's window ends when it has nothing left, 0 otherwise; takes nothing. */
  blockedFor(key: string): Promise<number>;
}

export interface StoreLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/** How often a lost Redis is asked whether it answers again. */
const PROBE_INTERVAL_MS = 1_000;

/** Whether the shared store is in use; switches to local on a failure and back once Redis answers. */
export class SharedStoreState {
  // Local until Redis first answers a PING: no count waits for a connection being made (or for a
  // Redis that is not there), and the switch is announced once it happens.
  private shared = false;
  /** Whether counting locally has been announced (a warning) since the counts were last shared. */
  private announced = false;
  private everShared = false;
  private probing = false;
  private doubting = false;
  private closed = false;
  private readonly prober: NodeJS.Timeout;

  constructor(
    private readonly redis: SharedConnection,
    private readonly timeoutMs: number,
    private readonly log: StoreLog,
  ) {
    redis.onReady(() => this.probe());
    redis.onLost((reason) => this.lost(reason));
    this.prober = setInterval(() => this.probe(), PROBE_INTERVAL_MS);
    this.prober.unref();
  }

  get inUse(): boolean {
    return this.shared;
  }

  /**
   * Whether a count should be asked of the store: in use, and no count's failure is being checked
   * with a PING. While one is, counts are local: a frozen store then holds a request for one
   * count's deadline, not one for each count it makes (the login guard's, then the limit's).
   */
  get asked(): boolean {
    return this.shared && !this.doubting;
  }

  lost(reason: unknown): void {
    if (this.closed || (!this.shared && this.announced)) return;
    this.shared = false;
    this.announced = true;
    this.log.warn({ reason: reason instanceof Error ? reason.message : String(reason) }, 'rate-limit store unreachable: counting in this instance until it answers');
  }

  /**
   * A count failed or hung. One broken limiter, or one slow answer, is no outage: Redis is declared
   * lost only when it does not answer a PING in time either, so that an outage is announced once.
   */
  doubt(reason: unknown): void {
    if (this.closed || !this.shared || this.doubting) return;
    this.doubting = true;
    this.redis
      .ping(this.timeoutMs)
      .catch(() => this.lost(reason))
      .finally(() => {
        this.doubting = false;
      });
  }

  /** Uses Redis again once it answers a PING in time. */
  private probe(): void {
    if (this.shared || this.probing || this.closed) return;
    this.probing = true;
    this.redis
      .ping(this.timeoutMs)
      .then(() => {
        if (this.closed) return;
        this.shared = true;
        this.announced = false;
        this.log.info({}, this.everShared ? 'rate-limit store answers again: counts are shared across instances' : 'rate-limit store answers: counts are shared across instances');
        this.everShared = true;
      })
      .catch(() => undefined)
      .finally(() => {
        this.probing = false;
      });
  }

  /** Stops probing; the connection closing from now on is no loss worth a warning. */
  close(): void {
    this.closed = true;
    clearInterval(this.prober);
  }
}

/** Counts in `shared` while the store is in use, in `local` otherwise (and when a shared take fails or hangs). */
export function sharedOrLocal(shared: FixedWindows, local: FixedWindows, state: SharedStoreState, timeoutMs: number): Counter {
  return {
    async take(key) {
      if (state.asked) {
        try {
          const take = await withDeadline(shared.take(key), timeoutMs, 'a count in the rate-limit store');
          // A token goes back where it was taken from, within the same deadline.
          return { ...take, giveBack: () => withDeadline(take.giveBack(), timeoutMs, 'giving a count back to the rate-limit store') };
        } catch (error) {
          // This request is counted here; the store is used again by the next one unless lost.
          state.doubt(error);
        }
      }
      return local.take(key);
    },
    async blockedFor(key) {
      if (state.asked) {
        try {
          return await withDeadline(shared.blockedFor(key), timeoutMs, 'a count in the rate-limit store');
        } catch (error) {
          state.doubt(error);
        }
      }
      return local.blockedFor(key);
    },
  };
}
