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

/**
 * Bottleneck's Redis scripts answer `SETTINGS_KEY_NOT_FOUND` once a limiter's keys have expired,
 * and `UNKNOWN_CLIENT` once Redis dropped the limiter as unresponsive (a process busy for seconds).
 * Bottleneck 2.19.5 recovers from both by their bare text, but Redis 7 prefixes script errors with
 * "ERR ", so they escape (from takes and from every heartbeat): such a limiter is simply forgotten
 * and made anew on the next take.
 */
function isExpiredLimiter(error: unknown): boolean {
  return error instanceof Error && /SETTINGS_KEY_NOT_FOUND|UNKNOWN_CLIENT/.test(error.message);
}

export class FixedWindows {
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly options: WindowOptions,
    private readonly store: WindowStore,
    private readonly onError: (error: unknown) => void,
  ) {
    // Twice a window, so that a key is forgotten between one and one and a half windows after its
    // last take: its window has ended, and its Redis keys (which expire after two) still exist.
    this.sweeper = setInterval(() => this.sweep(), Math.max(1, Math.floor(options.windowMs / 2)));
    this.sweeper.unref();
  }

  /** Takes one token from the key's window. */
  async take(key: string): Promise<Take> {
    try {
      return await this.takeFrom(this.limiter(key), key);
    } catch (error) {
      if (!isExpiredLimiter(error)) throw error;
      this.forget(key);
      return this.takeFrom(this.limiter(key), key);
    }
  }

  /** Gives back a token taken from the key's current window (never above the limit of a new one). */
  async giveBack(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return; // forgotten: its window has ended
    try {
      await this.putBack(entry.limiter);
    } catch (error) {
      if (!isExpiredLimiter(error)) throw error;
      this.forget(key);
    }
  }

  /** Keys with a limiter in this process (idle ones are forgotten). */
  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const keys = [...this.entries.keys()];
    await Promise.allSettled(keys.map((key) => this.forget(key)));
  }

  private async takeFrom(limiter: Bottleneck, key: string): Promise<Take> {
    let remaining = await limiter.incrementReservoir(-1);
    // With Redis an ended window is refilled after the increment is applied, which erases this
    // take; a full reservoir can only mean that (a take leaves at most limit - 1), so take again.
    if (remaining === this.options.limit) remaining = await limiter.incrementReservoir(-1);
    if (remaining !== undefined && remaining >= 0) return { allowed: true, retryAfterMs: 0 };
    // Refused: the token is put back, so that refusals do not push the window's count below zero
    // (a key's count then always equals the takes that were allowed).
    await this.putBack(limiter);
    const state = await this.store.state(this.limiterId(key), limiter);
    return { allowed: false, retryAfterMs: Math.max(1, (state?.endsAt ?? Date.now() + this.options.windowMs) - Date.now()) };
  }

  private async putBack(limiter: Bottleneck): Promise<void> {
    const remaining = await limiter.incrementReservoir(1);
    // A window refilled meanwhile holds `limit` again plus this token: take the extra back.
    if (remaining !== undefined && remaining > this.options.limit) await limiter.incrementReservoir(this.options.limit - remaining);
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
    limiter.on('error', (error: unknown) => {
      if (isExpiredLimiter(error)) this.forget(key, limiter);
      else this.onError(error);
    });
    this.entries.set(key, { limiter, usedAt: now });
    return limiter;
  }

  /**
   * Drops the key's limiter (only that one, if given: a newer one may have replaced it).
   * Bottleneck's disconnect() returns undefined for a shared Redis connection and may throw, so
   * it is wrapped; its unsubscribe promises are made safe by the connection (redis.ts).
   */
  private forget(key: string, limiter?: Bottleneck): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry || (limiter && entry.limiter !== limiter)) return Promise.resolve();
    this.entries.delete(key);
    return Promise.resolve()
      .then(() => entry.limiter.disconnect(false))
      .then(
        () => undefined,
        (error: unknown) => this.onError(error),
      );
  }

  /** Forgets keys idle for a whole window: their windows have ended, so nothing is lost. */
  private sweep(): void {
    const before = Date.now() - this.options.windowMs;
    for (const [key, entry] of this.entries) {
      if (entry.usedAt < before) void this.forget(key);
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
