import type { Logger } from '../logging/logger.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` (connect to a server, prepare what the projector needs there) until it succeeds,
 * logging each failure: a server away at start delays the start, it never ends the process.
 * The waits grow to `maxDelayMs`; a stop request meanwhile ends the process (see the command).
 */
export async function untilAnswered<T>(
  what: string,
  attempt: () => Promise<T>,
  logger: Logger,
  { initialDelayMs = 1_000, maxDelayMs = 15_000 } = {},
): Promise<T> {
  let delay = initialDelayMs;
  for (let tries = 1; ; tries++) {
    try {
      const result = await attempt();
      if (tries > 1) logger.info({ attempts: tries }, `${what} answers`);
      return result;
    } catch (error) {
      // The message only: a driver's error object may carry the connection options.
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      logger.warn({ reason, attempt: tries, retryInMs: delay }, `${what} does not answer yet; retrying`);
      await sleep(delay);
      delay = Math.min(delay * 2, maxDelayMs);
    }
  }
}
