import type { Logger } from '../logging/logger.js';
import { withDeadline } from './deadline.js';

/**
 * Waits for one step of a stop (closing a connection, leaving a consumer group) at most `ms`: a
 * stop must end within a container's grace period whatever the servers do. A step still running
 * then is logged as abandoned, with `details()`, and left to finish or fail unobserved; a step that
 * fails is logged too. Resolves true when the step ended in time.
 */
export async function stopStepWithin(
  what: string,
  step: () => Promise<unknown>,
  ms: number,
  logger: Logger,
  details: () => object = () => ({}),
): Promise<boolean> {
  // Never rejects: a failure is the step's end, so only the deadline makes withDeadline reject.
  const ended = step().then(
    () => true,
    (error: unknown) => {
      logger.warn({ err: error }, `${what} failed`);
      return true;
    },
  );
  return withDeadline(ended, ms, what).catch(() => {
    logger.warn({ ...details(), afterMs: ms }, `${what} abandoned: not done within ${ms} ms`);
    return false;
  });
}
