import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logging/logger.js';

export interface UntilAnsweredOptions {
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Stops trying: the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Failures expected while the server settles (leaders of a topic made moments ago): logged at info, later ones warn. */
  expectedFailures?: number;
}

/**
 * Runs `attempt` (connect to a server, prepare what is needed there) until it succeeds, logging
 * each failure and the success after them: a server away at start delays the start, it never ends
 * the process. The waits grow to `maxDelayMs`.
 */
export async function untilAnswered<T>(
  what: string,
  attempt: () => Promise<T>,
  logger: Logger,
  { initialDelayMs = 1_000, maxDelayMs = 15_000, signal, expectedFailures = 0 }: UntilAnsweredOptions = {},
): Promise<T> {
  let delay = initialDelayMs;
  for (let tries = 1; ; tries++) {
    signal?.throwIfAborted();
    try {
      const result = await attempt();
      if (tries > 1) logger.info({ attempts: tries }, `${what} answers`);
      return result;
    } catch (error) {
      // The message only: a driver's error object may carry the connection options.
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      logger[tries <= expectedFailures ? 'info' : 'warn']({ reason, attempt: tries, retryInMs: delay }, `${what} does not answer yet; retrying`);
      await sleep(delay, undefined, { signal });
      delay = Math.min(delay * 2, maxDelayMs);
    }
  }
}
