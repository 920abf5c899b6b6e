import { setTimeout as sleep } from 'node:timers/promises';
import { BatchAbandoned, type BatchContext } from '../adapters/kafka/consumer.js';
import type { Logger } from '../plumbing/logging/logger.js';

export interface RetryOptions {
  context: BatchContext;
  logger: Logger;
  what: string;
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Runs work until it succeeds: an outage of MongoDB or Kafka delays the batch, it never skips it.
 * Gives up only when the consumer is stopping (the batch then stays uncommitted and comes again):
 * between tries, and, once the stop no longer waits for the batch (the context's signal), also
 * during a try that waits on a server that does not answer (the try is left to end unobserved: a
 * write that still lands is one the batch's redelivery makes again, idempotent by the sequence guard).
 */
export async function retryUntilDone<T>(work: () => Promise<T>, options: RetryOptions): Promise<T> {
  const { signal } = options.context;
  // At most 5 s between tries: a stop request (SIGTERM) is noticed between them, well within a
  // container's grace period.
  const maxDelay = options.maxDelayMs ?? 5_000;
  let delay = options.initialDelayMs ?? 200;
  for (let attempt = 1; ; attempt++) {
    try {
      return await untilAbandoned(work(), signal);
    } catch (error) {
      if (error instanceof BatchAbandoned) throw error;
      if (options.context.isStopping()) throw new BatchAbandoned({ cause: error });
      options.logger.warn({ err: error, attempt, retryInMs: delay }, `${options.what} failed; retrying`);
      await sleep(delay, undefined, { signal }).catch(() => undefined);
      delay = Math.min(delay * 2, maxDelay);
      if (options.context.isStopping()) throw new BatchAbandoned({ cause: error });
      await options.context.heartbeat().catch(() => undefined);
      if (options.context.isStopping()) throw new BatchAbandoned({ cause: error });
    }
  }
}

/** `work`, or BatchAbandoned as soon as `signal` aborts (the work then goes on unobserved). */
function untilAbandoned<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(new BatchAbandoned());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new BatchAbandoned());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
