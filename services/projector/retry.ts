import { BatchAbandoned, type BatchContext } from '../kafka/consumer.js';
import type { Logger } from '../logging/logger.js';

export interface RetryOptions {
  context: BatchContext;
  logger: Logger;
  what: string;
  initialDelayMs?: number;
  maxDelayMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs work until it succeeds: an outage of MongoDB or Kafka delays the batch, it never skips it.
 * Gives up only when the consumer is stopping (the batch then stays uncommitted and comes again).
 */
export async function retryUntilDone<T>(work: () => Promise<T>, options: RetryOptions): Promise<T> {
  // At most 5 s between tries: a stop request (SIGTERM) is noticed between them, well within a
  // container's grace period.
  const maxDelay = options.maxDelayMs ?? 5_000;
  let delay = options.initialDelayMs ?? 200;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (options.context.isStopping()) throw new BatchAbandoned();
      options.logger.warn({ err: error, attempt, retryInMs: delay }, `${options.what} failed; retrying`);
      await sleep(delay);
      delay = Math.min(delay * 2, maxDelay);
      await options.context.heartbeat().catch(() => undefined);
      if (options.context.isStopping()) throw new BatchAbandoned();
    }
  }
}
