import { stopStepWithin } from '../plumbing/lifecycle/bounded-stop.js';
import type { Logger } from '../plumbing/logging/logger.js';

/** One step of a stop: what it does (for the log), the step, and, if given, the longest it is waited for on its own. */
export type StopStep = [what: string, step: () => Promise<unknown>, withinMs?: number];

/**
 * Runs the steps of a stop in order, within `ms` in all whatever the servers do: if they have not
 * ended by then (a step waits on a server that does not answer), it resolves all the same, logging
 * the step it abandons, which goes on unobserved. Nothing is lost that way: a batch whose offsets
 * were not committed comes again, and its writes are idempotent (the sequence guard). A step with
 * a bound of its own is left when that bound passes, and the next ones run. A step that fails is
 * logged, the next ones run, and the exit code becomes 1. The caller exits the process once this
 * resolves: an abandoned step, or a connection it left to a server away, would hold it.
 */
export async function stopWithinDeadline(ms: number, logger: Logger, steps: StopStep[]): Promise<void> {
  let current = '';
  const run = async () => {
    for (const [what, step, withinMs] of steps) {
      current = what;
      try {
        await (withinMs === undefined ? step() : stopStepWithin(what, step, withinMs, logger));
      } catch (error) {
        logger.error({ err: error }, `${what} failed`);
        process.exitCode = 1;
      }
    }
  };
  await stopStepWithin('the stop', run, ms, logger, () => ({ abandoned: current }));
}
