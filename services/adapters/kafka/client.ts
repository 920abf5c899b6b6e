import { Kafka, logLevel, type LogEntry } from 'kafkajs';
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

/** A kafkajs client that logs through pino, one structured line per entry. */
export function createKafka(brokers: string[], clientId: string, logger: Logger): Kafka {
  const log = logger.child({ component: 'kafkajs' });
  return new Kafka({
    clientId,
    brokers,
    logLevel: logLevel.WARN,
    retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 10_000 },
    logCreator:
      () =>
      ({ level, log: { message, ...extra } }: LogEntry) => {
        if (answeredWarnings.has(message)) return;
        log[levels[level] ?? 'info']({ ...extra, namespace: undefined }, message);
      },
  });
}
