// The Redis connection that lets several query-service instances share their counts.
import Bottleneck from 'bottleneck';
import { Redis, type RedisOptions } from 'ioredis';
import { withDeadline } from '../../plumbing/lifecycle/deadline.js';

/** ioredis options from a redis:// or rediss:// URL (user, password, database number, TLS). */
export function redisClientOptions(url: string): RedisOptions {
  const parsed = new URL(url);
  const db = parsed.pathname.replace(/^\//, '');
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
    // While Redis is away a command fails soon rather than waiting for it (the limits then count
    // in this process); reconnection goes on in the background, at most 2 s apart.
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    retryStrategy: (attempt) => Math.min(100 * attempt, 2_000),
  };
}

// Bottleneck 2.19.5 drops the promise of every unsubscribe it sends when a limiter is
// disconnected (IORedisConnection.__removeLimiter__); one that fails because Redis is away would
// end the process as an unhandled rejection. Its subscriber connection therefore answers a failed
// unsubscribe with nothing: the subscription is gone with the connection anyway.
const unsubscribe = Redis.prototype.unsubscribe as (this: Redis, ...channels: string[]) => Promise<unknown>;
class SubscriberConnection extends Redis {}
Object.defineProperty(SubscriberConnection.prototype, 'unsubscribe', {
  value(this: Redis, ...channels: string[]) {
    return unsubscribe.apply(this, channels).catch(() => 0);
  },
});
/** The client bottleneck is given: its duplicate() (bottleneck's subscriber) is a SubscriberConnection. */
class LimiterConnection extends Redis {
  override duplicate(override?: Partial<RedisOptions>): Redis {
    return new SubscriberConnection({ ...this.options, ...override });
  }
}

/** The Redis commands the rate limit's shared windows need beside bottleneck's. */
export interface WindowClient {
  set(key: string, value: string, px: 'PX', ms: number, nx: 'NX'): Promise<'OK' | null>;
  get(key: string): Promise<string | null>;
  pttl(key: string): Promise<number>;
}

export interface SharedConnection {
  /** Passed to every limiter; one pair of Redis connections (commands, pub/sub) per process. */
  connection: Bottleneck.IORedisConnection;
  /** The command connection, for the windows' own keys. */
  client: WindowClient;
  /** Resolves when Redis answers a PING within `ms`, rejects otherwise. */
  ping(ms: number): Promise<void>;
  /** Called whenever the command connection becomes ready (again). */
  onReady(listener: () => void): void;
  /** Called when the command connection is lost. */
  onLost(listener: (reason: Error) => void): void;
  close(): Promise<void>;
}

export function connectRedis(url: string, onError: (error: unknown) => void): SharedConnection {
  const client = new LimiterConnection(redisClientOptions(url));
  const connection = new Bottleneck.IORedisConnection({ Redis, client });
  connection.on('error', onError);
  return {
    connection,
    client,
    ping: (ms) => withDeadline(client.ping().then(() => undefined), ms, 'a PING to Redis'),
    onReady: (listener) => void client.on('ready', listener),
    onLost: (listener) => void client.on('close', () => listener(new Error('connection to Redis closed'))),
    async close() {
      // quit() waits for Redis to answer; when it is gone, drop the sockets instead of waiting.
      const quitted = await Promise.race([
        connection.disconnect(true).then(() => true, () => false),
        new Promise<boolean>((resolve) => setTimeout(resolve, 2_000, false).unref()),
      ]);
      if (!quitted) await connection.disconnect(false);
    },
  };
}
