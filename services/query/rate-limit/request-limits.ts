// The two limits of the query service, shared by its SOAP and JSON endpoints:
// - requests per credential (service.md, Limits: 300 per minute, counted across both interfaces);
// - failed logins per source address and per credential id, so that passwords cannot be guessed
//   quickly, neither from one address nor from many against one id.
import type { Credential } from '../../domain/credentials/credential.js';
import { RateLimitedError, retryAfterSeconds } from './rate-limited-error.js';
import { FixedWindows, localStore, redisStore, type WindowOptions } from './fixed-windows.js';
import { withDeadline } from '../../plumbing/lifecycle/deadline.js';
import { connectRedis } from '../../adapters/redis/redis-connection.js';
import { SharedStoreState, sharedOrLocal, type Counter, type StoreLog } from './shared-or-local.js';

export interface RequestLimitOptions {
  requestsPerMinute: number;
  /** Instances given the same Redis (and key prefix) share one count per credential and address. */
  redisUrl?: string | undefined;
  /** Failed logins per address and window; the next request from it is refused until the window ends. */
  loginFailuresPerMinute?: number;
  /** Failed logins per credential id and window, from all addresses together. */
  loginFailuresPerIdPerMinute?: number;
  /** One minute; tests shorten it. */
  windowMs?: number;
  /** Limiter ids start with it; default "ossn". */
  keyPrefix?: string;
  /** How long a count waits for Redis before this instance counts on its own; default 1 s. */
  storeTimeoutMs?: number;
  logger?: StoreLog;
}

export const DEFAULT_LOGIN_FAILURES_PER_MINUTE = 20;
export const DEFAULT_LOGIN_FAILURES_PER_ID_PER_MINUTE = 50;

/** A credential's request count after one request (the RateLimit header field's values). */
export interface Quota {
  remaining: number;
  /** Whole seconds until the window ends, at least 1. */
  resetSeconds: number;
}

export interface RequestLimits {
  /** Requests per credential and window, in whole seconds (the RateLimit-Policy header field's values). */
  readonly requestPolicy: { limit: number; windowSeconds: number };
  /** Counts one request of the credential; throws RateLimitedError above the limit. */
  admit(credential: Credential): Promise<Quota>;
  /** Whether this instance counts on its own: no Redis given, or Redis not answering. */
  countsLocally(): boolean;
  /**
   * Reserves one failed login of the address and one of the id before a password is checked, so
   * that parallel guesses cannot outrun the counts; throws RateLimitedError when either has none
   * left (and then reserves nothing). The returned function gives both back, for a check that
   * found the credential.
   */
  reserveLogin(address: string, id: string): Promise<() => Promise<void>>;
  /**
   * Throws RateLimitedError while the address or the id has no failed login left in its window,
   * whatever the password and whether or not it was verified before; takes nothing.
   */
  refuseLockedLogin(address: string, id: string): Promise<void>;
  close(): Promise<void>;
}

const silent: StoreLog = { warn() {}, info() {} };

export function createRequestLimits(options: RequestLimitOptions): RequestLimits {
  const windowMs = options.windowMs ?? 60_000;
  const prefix = options.keyPrefix ?? 'ossn';
  const timeoutMs = options.storeTimeoutMs ?? 1_000;
  const log = options.logger ?? silent;
  const localError = (error: unknown) => log.warn({ err: error }, 'rate-limit counting error');
  const owned: FixedWindows[] = [];
  let state: SharedStoreState | undefined;
  const redis = options.redisUrl ? connectRedis(options.redisUrl, (error) => state?.lost(error)) : undefined;
  if (redis) state = new SharedStoreState(redis, timeoutMs, log);
  const sharedStore = redis && redisStore(redis.connection, redis.client);

  /** One count per key in windows of `windowMs`: in Redis when given (in this process while it is away). */
  function counter(name: string, limit: number): Counter {
    const windows: WindowOptions = { id: `${prefix}-${name}`, limit, windowMs };
    const local = new FixedWindows(windows, localStore, localError);
    owned.push(local);
    if (!state || !sharedStore) return local;
    const shared = new FixedWindows(windows, sharedStore, (error) => state?.doubt(error));
    owned.push(shared);
    return sharedOrLocal(shared, local, state, timeoutMs);
  }
  const requests = counter('requests', options.requestsPerMinute);
  const addressFailures = counter('login-failures', options.loginFailuresPerMinute ?? DEFAULT_LOGIN_FAILURES_PER_MINUTE);
  const idFailures = counter('id-login-failures', options.loginFailuresPerIdPerMinute ?? DEFAULT_LOGIN_FAILURES_PER_ID_PER_MINUTE);

  return {
    requestPolicy: { limit: options.requestsPerMinute, windowSeconds: Math.ceil(windowMs / 1000) },
    async admit(credential) {
      const take = await requests.take(credential.id);
      if (!take.allowed) throw new RateLimitedError(retryAfterSeconds(take.retryAfterMs));
      return { remaining: take.remaining, resetSeconds: retryAfterSeconds(take.resetMs) };
    },
    countsLocally: () => !state?.inUse,
    async reserveLogin(address, id) {
      const byAddress = await addressFailures.take(address);
      if (!byAddress.allowed) throw new RateLimitedError(retryAfterSeconds(byAddress.retryAfterMs));
      const byId = await idFailures.take(id);
      if (!byId.allowed) {
        // No password is checked: the address's failure is not used (a Redis failure giving it
        // back leaves the count one too high until its window ends; the answer stays 429).
        await byAddress.giveBack().catch(() => undefined);
        throw new RateLimitedError(retryAfterSeconds(byId.retryAfterMs));
      }
      // Given back once at most: login-guard.ts wraps it.
      return async () => void (await Promise.all([byAddress.giveBack(), byId.giveBack()]));
    },
    async refuseLockedLogin(address, id) {
      const blockedMs = Math.max(...(await Promise.all([addressFailures.blockedFor(address), idFailures.blockedFor(id)])));
      if (blockedMs > 0) throw new RateLimitedError(retryAfterSeconds(blockedMs));
    },
    async close() {
      state?.close();
      await Promise.all(owned.map((w) => withDeadline(w.close(), 2_000, 'closing the rate-limit windows').catch(() => undefined)));
      await redis?.close();
    },
  };
}
