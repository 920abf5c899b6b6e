import { Kafka, logLevel, type LogEntry, type RetryOptions } from 'kafkajs';
import type { Logger } from '../../plumbing/logging/logger.js';

const levels: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

// kafkajs warns at every idempotent producer made with bounded retries; ours are bounded on purpose
// and replace themselves after a failed send, which is what the warning is about (producer.ts).
const answeredWarnings = new Set(['Limiting retries for the idempotent producer may invalidate EoS guarantees']);

const defaultRetry: RetryOptions = { retries: 8, initialRetryTime: 200, maxRetryTime: 10_000 };

/**
 * A kafkajs client that logs through pino, one structured line per entry. `retry` is kafkajs's, for
 * every request; the default rides out a broker's restart (some 40 s in all).
 */
export function createKafka(brokers: string[], clientId: string, logger: Logger, retry: RetryOptions = defaultRetry): Kafka {
  const log = logger.child({ component: 'kafkajs' });
  return new Kafka({
    clientId,
    brokers,
    logLevel: logLevel.WARN,
    retry,
    logCreator:
      () =>
      ({ level, log: { message, ...extra } }: LogEntry) => {
        if (answeredWarnings.has(message)) return;
        log[levels[level] ?? 'info']({ ...extra, namespace: undefined }, message);
      },
  });
}
