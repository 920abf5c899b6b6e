// The two limits of the query service, shared by its SOAP and JSON endpoints:
// - requests per credential (service.md, Limits: 300 per minute, counted across both interfaces);
// - failed logins per source address, so that passwords cannot be guessed quickly.
import type { Credential } from '../ports.js';
import { RateLimitedError, retryAfterSeconds } from './errors.js';
import { FixedWindows, localStore, redisStore, type WindowOptions } from './fixed-windows.js';
import { withDeadline } from '../../lifecycle/deadline.js';
import { connectRedis } from './redis.js';
import { SharedStoreState, sharedOrLocal, type Counter, type StoreLog } from './shared-or-local.js';

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
  /** How long a count waits for Redis before this instance counts on its own; default 1 s. */
  storeTimeoutMs?: number;
  logger?: StoreLog;
}

export const DEFAULT_LOGIN_FAILURES_PER_MINUTE = 20;

export interface RequestLimits {
  /** Counts one request of the credential; throws RateLimitedError above the limit. */
  admit(credential: Credential): Promise<void>;
  /**
   * Reserves one of the address's failed logins before its password is checked, so that parallel
   * guesses cannot outrun the count; throws RateLimitedError when none is left. The returned
   * function gives the reservation back, for a request that turned out not to be a failed login.
   */
  reserveLogin(address: string): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const silent: StoreLog = { warn() {}, info() {} };

export function createRequestLimits(options: RequestLimitOptions): RequestLimits {
  const windowMs = options.windowMs ?? 60_000;
  const prefix = options.keyPrefix ?? 'ossn';
  const timeoutMs = options.storeTimeoutMs ?? 1_000;
  const log = options.logger ?? silent;
  const requestWindows: WindowOptions = { id: `${prefix}-requests`, limit: options.requestsPerMinute, windowMs };
  const failureWindows: WindowOptions = {
    id: `${prefix}-login-failures`,
    limit: options.loginFailuresPerMinute ?? DEFAULT_LOGIN_FAILURES_PER_MINUTE,
    windowMs,
  };
  const localError = (error: unknown) => log.warn({ err: error }, 'rate-limit counting error');
  const local = { requests: new FixedWindows(requestWindows, localStore, localError), failures: new FixedWindows(failureWindows, localStore, localError) };
  const owned: FixedWindows[] = [local.requests, local.failures];

  let requests: Counter = local.requests;
  let failures: Counter = local.failures;
  let state: SharedStoreState | undefined;
  const redis = options.redisUrl ? connectRedis(options.redisUrl, (error) => state?.lost(error)) : undefined;
  if (redis) {
    state = new SharedStoreState(redis, timeoutMs, log);
    const lost = (error: unknown) => state?.lost(error);
    const store = redisStore(redis.connection, redis.reader);
    const shared = { requests: new FixedWindows(requestWindows, store, lost), failures: new FixedWindows(failureWindows, store, lost) };
    owned.push(shared.requests, shared.failures);
    requests = sharedOrLocal(shared.requests, local.requests, state, timeoutMs);
    failures = sharedOrLocal(shared.failures, local.failures, state, timeoutMs);
  }

  return {
    async admit(credential) {
      const take = await requests.take(credential.id);
      if (!take.allowed) throw new RateLimitedError(retryAfterSeconds(take.retryAfterMs));
    },
    async reserveLogin(address) {
      const take = await failures.take(address);
      if (!take.allowed) throw new RateLimitedError(retryAfterSeconds(take.retryAfterMs));
      let given = false;
      return async () => {
        if (given) return;
        given = true;
        await failures.giveBack(address);
      };
    },
    async close() {
      state?.close();
      await Promise.all(owned.map((w) => withDeadline(w.close(), 2_000, 'closing the rate-limit windows').catch(() => undefined)));
      await redis?.close();
    },
  };
}
