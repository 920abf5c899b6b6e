// The Redis connection that lets several query-service instances share their counts.
import Bottleneck from 'bottleneck';
import { Redis, type RedisOptions } from 'ioredis';

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
    // While Redis is away a request fails soon (and answers 500) rather than waiting for it.
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
  };
}

/** What the windows read beside bottleneck's scripts. */
export interface RedisReader {
  hmget(key: string, ...fields: string[]): Promise<(string | null)[]>;
  ping(): Promise<string>;
}

export interface SharedConnection {
  /** Passed to every limiter; one pair of Redis connections (commands, pub/sub) per process. */
  connection: Bottleneck.IORedisConnection;
  reader(): Promise<RedisReader>;
  close(): Promise<void>;
}

export function connectRedis(url: string, onError: (error: unknown) => void): SharedConnection {
  const connection = new Bottleneck.IORedisConnection({ Redis, clientOptions: redisClientOptions(url) });
  connection.on('error', onError);
  return {
    connection,
    // bottleneck.d.ts declares ready() a method; in 2.19.5 it is the promise itself.
    reader: async () => (await (connection as unknown as { ready: Promise<Bottleneck.ClientsList> }).ready).client as RedisReader,
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
