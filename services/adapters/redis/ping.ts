import { Redis } from 'ioredis';

/** Asks the Redis at `url` for a PING on a connection of its own, tried once: `answers (PONG)`, or rejects. */
export async function pingRedis(url: string): Promise<string> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2_000, retryStrategy: () => null });
  redis.on('error', () => undefined); // the failed ping says it
  try {
    await redis.connect();
    return `answers (${await redis.ping()})`;
  } finally {
    redis.disconnect();
  }
}
