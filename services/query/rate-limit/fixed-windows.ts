// Counting per key in fixed windows, kept by bottleneck: one limiter per key whose reservoir holds
// the window's tokens and is refilled (reset, not topped up) to `limit` once `windowMs` has passed
// since the last refill. A take removes one token atomically (incrementReservoir(-1), a single
// Lua script with Redis), so nothing is ever queued: the answer is yes or no at once.
//
// Why not limiter.schedule() with highWater 0: its capacity check and its registration are two
// steps, and a job that loses the race in between waits in the queue for the next window.
// Why not Bottleneck.Group: its local clean-up counts idleness from the last *scheduled* job, which
// never happens here, so it would drop live windows; and it has no way to stop its timer on close.
import Bottleneck from 'bottleneck';
import type { RedisReader } from './redis.js';

export interface WindowOptions {
  /** Takes allowed per key and window. */
  limit: number;
  windowMs: number;
  /** Prefix of every limiter id: instances sharing it and the Redis server share the counts. */
  id: string;
}

export interface Take {
  allowed: boolean;
  /** When refused: milliseconds until a take will be allowed again. */
  retryAfterMs: number;
}

/** Where the reservoirs live: this process, or Redis shared by every instance. */
export interface WindowStore {
  readonly limiterOptions: Bottleneck.ConstructorOptions;
  /** Tokens left in the key's window and when it ends (epoch ms); undefined when none is open. */
  state(limiterId: string, limiter: Bottleneck | undefined): Promise<{ remaining: number; endsAt: number } | undefined>;
}

interface Entry {
  limiter: Bottleneck;
  usedAt: number;
}

export class FixedWindows {
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly options: WindowOptions,
    private readonly store: WindowStore,
    private readonly onError: (error: unknown) => void,
  ) {
    this.sweeper = setInterval(() => this.sweep(), options.windowMs);
    this.sweeper.unref();
  }

  /** Takes one token from the key's window. */
  async take(key: string): Promise<Take> {
    const limiter = this.limiter(key);
    let remaining = await limiter.incrementReservoir(-1);
    // With Redis an ended window is refilled after the increment is applied, which erases this
    // take; a full reservoir can only mean that (a take leaves at most limit - 1), so take again.
    if (remaining === this.options.limit) remaining = await limiter.incrementReservoir(-1);
    if (remaining >= 0) return { allowed: true, retryAfterMs: 0 };
    const state = await this.store.state(this.limiterId(key), limiter);
    return { allowed: false, retryAfterMs: Math.max(1, (state?.endsAt ?? Date.now() + this.options.windowMs) - Date.now()) };
  }

  /** Milliseconds until the key may take again, without taking; 0 when it may now. */
  async blockedFor(key: string): Promise<number> {
    const state = await this.store.state(this.limiterId(key), this.entries.get(key)?.limiter);
    if (!state || state.remaining > 0) return 0;
    return Math.max(1, state.endsAt - Date.now());
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const limiters = [...this.entries.values()].map((e) => e.limiter);
    this.entries.clear();
    await Promise.allSettled(limiters.map((l) => l.disconnect(false)));
  }

  private limiterId(key: string): string {
    return `${this.options.id}-${key}`;
  }

  private limiter(key: string): Bottleneck {
    const now = Date.now();
    const existing = this.entries.get(key);
    if (existing) {
      existing.usedAt = now;
      return existing.limiter;
    }
    const { limit, windowMs } = this.options;
    const limiter = new Bottleneck({
      ...this.store.limiterOptions,
      id: this.limiterId(key),
      reservoir: limit,
      reservoirRefreshAmount: limit,
      reservoirRefreshInterval: windowMs,
      // With Redis: the keys expire this long after the last take, which outlives the window.
      timeout: 2 * windowMs,
    });
    limiter.on('error', this.onError);
    this.entries.set(key, { limiter, usedAt: now });
    return limiter;
  }

  /** Forgets keys idle for two windows; their windows have ended, so nothing is lost. */
  private sweep(): void {
    const before = Date.now() - 2 * this.options.windowMs;
    for (const [key, entry] of this.entries) {
      if (entry.usedAt >= before) continue;
      this.entries.delete(key);
      entry.limiter.disconnect(false).catch(this.onError);
    }
  }
}

// Bottleneck 2.19.5 (pinned) keeps the time of the last refill privately; the LocalDatastore
// refills on a heartbeat, so a window really ends up to one heartbeat after refill + interval.
interface LocalDatastoreInternals {
  _lastReservoirRefresh: number;
  heartbeatInterval: number;
  storeOptions: { reservoirRefreshInterval: number };
}

/** Reservoirs in this process: each instance counts on its own. */
export const localStore: WindowStore = {
  limiterOptions: { datastore: 'local' },
  async state(_id, limiter) {
    if (!limiter) return undefined;
    const remaining = (await limiter.currentReservoir()) ?? 0;
    const store = (limiter as unknown as { _store: LocalDatastoreInternals })._store;
    return { remaining, endsAt: store._lastReservoirRefresh + store.storeOptions.reservoirRefreshInterval + store.heartbeatInterval };
  },
};

/**
 * Reservoirs in Redis, shared by every instance using the same limiter ids. The state is read from
 * the limiter's settings hash (b_<id>_settings, bottleneck's layout), where its Lua scripts refill
 * lazily: the first call at or after lastReservoirRefresh + reservoirRefreshInterval refills.
 */
export function redisStore(connection: Bottleneck.IORedisConnection, reader: () => Promise<RedisReader>): WindowStore {
  return {
    limiterOptions: { datastore: 'ioredis', connection },
    async state(id) {
      const client = await reader();
      const fields = await client.hmget(`b_${id}_settings`, 'reservoir', 'lastReservoirRefresh', 'reservoirRefreshInterval', 'reservoirRefreshAmount');
      const [reservoir, last, interval, amount] = fields.map((f) => (f === null || f === '' ? undefined : Number(f)));
      if (reservoir === undefined || last === undefined || interval === undefined) return undefined;
      const endsAt = last + interval;
      return { remaining: Date.now() >= endsAt ? (amount ?? reservoir) : reservoir, endsAt };
    },
  };
}
