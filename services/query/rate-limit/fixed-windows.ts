// Counting per key in fixed windows, kept by bottleneck through its public API only: each window
// of a key is a limiter of its own whose reservoir holds the window's tokens (never refilled). A
// take removes one token atomically (incrementReservoir(-1), a single Lua script with Redis), so
// nothing is ever queued: the answer is yes or no at once.
//
// The window's start and end are kept here, not read from bottleneck (its API does not say when a
// reservoir was last refilled): in this process for local counting, in a key of our own in Redis
// for shared counting, so that every instance counts in the same window and knows its end.
//
// Why not limiter.schedule() with highWater 0: its capacity check and its registration are two
// steps, and a job that loses the race in between waits in the queue for the next window.
// Why not Bottleneck.Group: its clean-up counts idleness from the last *scheduled* job, which
// never happens here, and it has no way to stop its timer on close.
import Bottleneck from 'bottleneck';
import type { WindowClient } from '../../adapters/redis/redis-connection.js';

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
  /** Takes left in the window after this one (0 when refused). */
  remaining: number;
  /** Milliseconds until the window ends and its count starts again. */
  resetMs: number;
  /** Puts an allowed take's token back into its window (nothing once that window has ended). */
  giveBack(): Promise<void>;
}

export interface Window {
  /** Shared by every instance counting in this window: it names the window's limiter. */
  start: number;
  /** Epoch ms, by this process's clock. */
  endsAt: number;
}

/** Where the windows live: this process, or Redis shared by every instance. */
export interface WindowStore {
  readonly limiterOptions: Bottleneck.ConstructorOptions;
  /** The key's current window, opened now when none is open. */
  window(windowKey: string, windowMs: number): Promise<Window>;
  /** Whether the key has a window open elsewhere (another instance); never opens one. */
  openElsewhere(windowKey: string): Promise<boolean>;
}

interface Entry extends Window {
  limiter: Bottleneck;
}

export class FixedWindows {
  private readonly entries = new Map<string, Entry>();
  /** Windows being opened, so that parallel first takes of a key share one limiter. */
  private readonly opening = new Map<string, Promise<Entry>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly options: WindowOptions,
    private readonly store: WindowStore,
    private readonly onError: (error: unknown) => void,
  ) {
    // A key whose window has ended is forgotten within half a window.
    this.sweeper = setInterval(() => this.sweep(), Math.max(1, Math.floor(options.windowMs / 2)));
    this.sweeper.unref();
  }

  /**
   * Takes one token from the key's window. A limiter that fails in any way (its keys expired, Redis
   * failed while it was being made, a script error) is dropped and made anew: tried once more at
   * once, and on the next take otherwise. So one failure never breaks a key's count for good.
   */
  async take(key: string): Promise<Take> {
    try {
      return await this.takeFrom(await this.current(key));
    } catch {
      return this.takeFrom(await this.current(key));
    }
  }

  /**
   * Milliseconds until the key's window ends when it has no token left, 0 otherwise. Takes nothing
   * and opens no window: a key nobody has taken from is not blocked.
   */
  async blockedFor(key: string): Promise<number> {
    const known = this.entries.get(key);
    const open = known && Date.now() < known.endsAt;
    if (!open && !(await this.store.openElsewhere(`${this.options.id}-${key}`))) return 0;
    const entry = open ? known : await this.current(key);
    const remaining = await entry.limiter.currentReservoir();
    return remaining !== null && remaining <= 0 ? Math.max(1, entry.endsAt - Date.now()) : 0;
  }

  /** Keys with a window in this process. */
  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.allSettled([...this.entries.keys()].map((key) => this.forget(key)));
  }

  private async takeFrom(entry: Entry & { key: string }): Promise<Take> {
    let remaining: number | null;
    try {
      remaining = await entry.limiter.incrementReservoir(-1);
    } catch (error) {
      void this.forget(entry.key, entry.limiter);
      throw error;
    }
    const giveBack = async () => {
      if (this.entries.get(entry.key)?.limiter === entry.limiter) await entry.limiter.incrementReservoir(1);
    };
    const resetMs = Math.max(1, entry.endsAt - Date.now());
    if (remaining !== null && remaining >= 0) return { allowed: true, retryAfterMs: 0, remaining, resetMs, giveBack };
    // Refused: the token is put back, so that refusals do not dig the window below zero (its count
    // then always equals the takes that were allowed).
    await giveBack();
    return { allowed: false, retryAfterMs: resetMs, remaining: 0, resetMs, giveBack: async () => undefined };
  }

  /** The key's open window, opening the next one when its last has ended. */
  private current(key: string): Promise<Entry & { key: string }> {
    const entry = this.entries.get(key);
    if (entry && Date.now() < entry.endsAt) return Promise.resolve({ ...entry, key });
    let opening = this.opening.get(key);
    if (!opening) {
      opening = this.open(key).finally(() => this.opening.delete(key));
      this.opening.set(key, opening);
    }
    return opening.then((opened) => ({ ...opened, key }));
  }

  private async open(key: string): Promise<Entry> {
    const { limit, windowMs, id } = this.options;
    const window = await this.store.window(`${id}-${key}`, windowMs);
    const previous = this.entries.get(key);
    if (previous?.start === window.start) return previous;
    if (previous) void this.forget(key, previous.limiter);
    const limiter = new Bottleneck({
      ...this.store.limiterOptions,
      id: `${id}-${key}-${window.start}`,
      reservoir: limit,
      // With Redis: the limiter's keys expire this long after their last use, once its window has ended.
      timeout: 2 * windowMs,
    });
    limiter.on('error', (error: unknown) => {
      void this.forget(key, limiter);
      this.onError(error);
    });
    const entry = { ...window, limiter };
    this.entries.set(key, entry);
    return entry;
  }

  /**
   * Drops the key's limiter (only that one, if given: a newer one may have replaced it).
   * Bottleneck's disconnect() returns undefined for a shared Redis connection and may throw, so
   * it is wrapped; its unsubscribe promises are made safe by the connection (adapters/redis/redis-connection.ts).
   */
  private forget(key: string, limiter?: Bottleneck): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry || (limiter && entry.limiter !== limiter)) return Promise.resolve();
    this.entries.delete(key);
    return Promise.resolve()
      .then(() => entry.limiter.disconnect(false))
      .then(
        () => undefined,
        () => undefined, // the limiter is gone either way; its Redis keys expire by themselves
      );
  }

  /** Forgets keys whose windows have ended: a take opens the next one. */
  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) {
      if (entry.endsAt <= now) void this.forget(key, entry.limiter);
    }
  }
}

/** Windows in this process: each instance counts on its own. */
export const localStore: WindowStore = {
  limiterOptions: { datastore: 'local' },
  window: async (_key, windowMs) => {
    const start = Date.now();
    return { start, endsAt: start + windowMs };
  },
  openElsewhere: async () => false,
};

/**
 * Windows in Redis, shared by every instance using the same ids. A window is a key of ours
 * (`<id>:window`, holding its start) that expires when the window ends: the first take after that
 * opens the next one. Its remaining time is read from Redis, so instances' clocks need not agree.
 */
export function redisStore(connection: Bottleneck.IORedisConnection, client: WindowClient): WindowStore {
  return {
    limiterOptions: { datastore: 'ioredis', connection },
    async window(key, windowMs) {
      const windowKey = `${key}:window`;
      for (let attempt = 0; attempt < 3; attempt++) {
        const now = Date.now();
        if ((await client.set(windowKey, String(now), 'PX', windowMs, 'NX')) === 'OK') return { start: now, endsAt: now + windowMs };
        const [start, left] = await Promise.all([client.get(windowKey), client.pttl(windowKey)]);
        if (start !== null && left > 0) return { start: Number(start), endsAt: Date.now() + left };
        // It ended between the two calls: open the next one.
      }
      throw new Error('the rate-limit window could not be read from Redis');
    },
    openElsewhere: async (key) => (await client.get(`${key}:window`)) !== null,
  };
}
