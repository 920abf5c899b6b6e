import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import type { Logger } from '../../plumbing/logging/logger.js';

const levels: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

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
        log[levels[level] ?? 'info']({ ...extra, namespace: undefined }, message);
      },
  });
}
