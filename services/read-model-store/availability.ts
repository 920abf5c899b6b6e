import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logging/logger.js';

/**
 * Asks `ping` until it answers, saying once in the log that the server is away and once that it
 * answers; resolves then, or when `signal` aborts. Never rejects: a server that is away at start
 * is waited for, not a reason to exit.
 */
export async function untilAvailable(what: string, ping: () => Promise<void>, logger: Logger, signal?: AbortSignal, retryMs = 2_000): Promise<void> {
  let announced = false;
  while (!signal?.aborted) {
    try {
      await ping();
      if (announced) logger.info({ server: what }, `${what} answers`);
      return;
    } catch (error) {
      if (!announced) logger.warn({ server: what, reason: error instanceof Error ? error.message : String(error) }, `${what} does not answer; trying again every ${retryMs / 1000} s`);
      announced = true;
    }
    await sleep(retryMs, undefined, { signal }).catch(() => undefined);
  }
}
