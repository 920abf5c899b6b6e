// The two limits of the query service, shared by its SOAP and JSON endpoints:
// - requests per credential (service.md, Limits: 300 per minute, counted across both interfaces);
// - failed logins per source address, so that passwords cannot be guessed quickly.
import type { Credential } from '../ports.js';
import { RateLimitedError, retryAfterSeconds } from './errors.js';
import { FixedWindows, localStore, redisStore } from './fixed-windows.js';
import { connectRedis, type SharedConnection } from './redis.js';

export interface RequestLimitOptions {
  requestsPerMinute: number;
  /** Instances given the same Redis (and key prefix) share one count per credential and address. */
  redisUrl?: string | undefined;
  /** Failed logins per address and window; the next request from it is refused until the window ends. */
  loginFailuresPerMinute?: number;
  /** One minute; tests shorten it. */
  windowMs?: number;
  /** Limiter ids start with it; default "ossn". */
  keyPrefix?: string;
  /** How long a request waits for Redis before it fails (500); default 2 s. */
  storeTimeoutMs?: number;
  logger?: { warn(details: object, message: string): void };
}

export const DEFAULT_LOGIN_FAILURES_PER_MINUTE = 20;

export interface RequestLimits {
  /** Counts one request of the credential; throws RateLimitedError above the limit. */
  admit(credential: Credential): Promise<void>;
  /** Throws RateLimitedError while the address has used up its failed logins. */
  checkAddress(address: string): Promise<void>;
  recordLoginFailure(address: string): Promise<void>;
  /** Resolves when the store answers (health check). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`rate-limit store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function createRequestLimits(options: RequestLimitOptions): RequestLimits {
  const windowMs = options.windowMs ?? 60_000;
  const prefix = options.keyPrefix ?? 'ossn';
  const timeoutMs = options.storeTimeoutMs ?? 2_000;
  const onError = (error: unknown) => options.logger?.warn({ err: error }, 'rate-limit store error');
  const redis: SharedConnection | undefined = options.redisUrl ? connectRedis(options.redisUrl, onError) : undefined;
  const store = redis ? redisStore(redis.connection, redis.reader) : localStore;

  const requests = new FixedWindows({ id: `${prefix}-requests`, limit: options.requestsPerMinute, windowMs }, store, onError);
  const failures = new FixedWindows(
    { id: `${prefix}-login-failures`, limit: options.loginFailuresPerMinute ?? DEFAULT_LOGIN_FAILURES_PER_MINUTE, windowMs },
    store,
    onError,
  );

  return {
    async admit(credential) {
      const take = await within(requests.take(credential.id), timeoutMs);
      if (!take.allowed) throw new RateLimitedError(retryAfterSeconds(take.retryAfterMs));
    },
    async checkAddress(address) {
      const blockedMs = await within(failures.blockedFor(address), timeoutMs);
      if (blockedMs > 0) throw new RateLimitedError(retryAfterSeconds(blockedMs));
    },
    async recordLoginFailure(address) {
      await within(failures.take(address), timeoutMs);
    },
    async ping() {
      if (redis) await within(redis.reader().then((client) => client.ping()), timeoutMs);
    },
    async close() {
      await Promise.all([requests.close(), failures.close()]);
      await redis?.close();
    },
  };
}
