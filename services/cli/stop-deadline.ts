import type { Logger } from '../logging/logger.js';

/**
 * Runs the steps of a stop in order, within `ms` in all whatever the servers do: if they have not
 * ended by then (a step waits on a server that does not answer), it resolves all the same, logging
 * the step it abandons, which goes on unobserved. Nothing is lost that way: a batch whose offsets
 * were not committed comes again, and its writes are idempotent (the sequence guard). A step that
 * fails is logged, the next ones run, and the exit code becomes 1. The caller exits the process
 * once this resolves: an abandoned step, or a connection it left to a server away, would hold it.
 */
export async function stopWithinDeadline(ms: number, logger: Logger, steps: [what: string, step: () => Promise<unknown>][]): Promise<void> {
  let current = '';
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      logger.warn({ afterMs: ms, abandoned: current }, 'the stop did not end within its deadline: exiting without it; what was not committed comes again');
      resolve();
    }, ms);
  });
  const run = async () => {
    for (const [what, step] of steps) {
      current = what;
      try {
        await step();
      } catch (error) {
        logger.error({ err: error }, `${what} failed`);
        process.exitCode = 1;
      }
    }
  };
  try {
    await Promise.race([run(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
