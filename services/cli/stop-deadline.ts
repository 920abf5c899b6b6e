import type { Logger } from '../logging/logger.js';

/**
 * Runs the steps of a stop in order, within `ms` in all whatever the servers do: if they have not
 * ended by then (a step waits on a server that does not answer), the process exits with code 0,
 * logging the step it abandons. Nothing is lost that way: a batch whose offsets were not committed
 * comes again, and its writes are idempotent (the sequence guard). A step that fails is logged and
 * the next ones run; the exit code is then 1. The caller exits once this returns: a step that
 * abandoned a connection to a server away may leave it holding the process.
 */
export async function stopWithinDeadline(ms: number, logger: Logger, steps: [what: string, step: () => Promise<unknown>][]): Promise<void> {
  let current = '';
  const timer = setTimeout(() => {
    logger.warn({ afterMs: ms, abandoned: current }, 'the stop did not end within its deadline: exiting without it; what was not committed comes again');
    process.exit(0);
  }, ms);
  try {
    for (const [what, step] of steps) {
      current = what;
      try {
        await step();
      } catch (error) {
        logger.error({ err: error }, `${what} failed`);
        process.exitCode = 1;
      }
    }
  } finally {
    clearTimeout(timer);
  }
}
