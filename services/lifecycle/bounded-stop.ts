import type { Logger } from '../logging/logger.js';

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
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  const ended = step().then(
    () => 'ended' as const,
    (error: unknown) => {
      logger.warn({ err: error }, `${what} failed`);
      return 'ended' as const;
    },
  );
  try {
    if ((await Promise.race([ended, late])) === 'ended') return true;
    logger.warn({ ...details(), afterMs: ms }, `${what} abandoned: not done within ${ms} ms`);
    return false;
  } finally {
    clearTimeout(timer);
  }
}
