import { Kafka, logLevel, type LogEntry, type RetryOptions } from 'kafkajs';
import type { Logger } from '../../plumbing/logging/logger.js';

type Level = 'error' | 'warn' | 'info' | 'debug';

const levels: Record<number, Level> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

// kafkajs warns at every idempotent producer made with bounded retries; ours are bounded on purpose
// and replace themselves after a failed send, which is what the warning is about (producer.ts).
const answeredWarnings = new Set(['Limiting retries for the idempotent producer may invalidate EoS guarantees']);

/**
 * Broker answers that are normal while a topic or group is new or moving (leaders being elected,
 * the group coordinator loading): kafkajs logs each as an error, then retries the request itself,
 * and a retry that finally fails reaches our code, which says so. Debug, not a red line in
 * `npm start` for every start.
 */
const transientAnswers = new Set([
  'This server does not host this topic-partition',
  'There is no leader for this topic-partition as we are in the middle of a leadership election',
  'This server is not the leader for that topic-partition',
  "The coordinator is loading and hence can't process requests for this group",
  'The group coordinator is not available',
  'This is not the correct coordinator for this group',
  'The group is rebalancing, so a rejoin is needed',
]);

/** Rejoining after a rebalance is the group doing its job: info, not a warning. */
const routineMessages = new Set(['The group is rebalancing, re-joining']);

/** The level a kafkajs log entry is written at, or undefined to drop it. */
export function kafkaLogLevel(level: number, message: string, extra: Record<string, unknown>): Level | undefined {
  if (answeredWarnings.has(message)) return undefined;
  if (message.startsWith('Response ') && typeof extra['error'] === 'string' && transientAnswers.has(extra['error'])) return 'debug';
  if (routineMessages.has(message)) return 'info';
  return levels[level] ?? 'info';
}

/**
 * A client of one Kafka cluster as the rest of ossn holds it: made by createKafka, handed to this
 * folder's functions (admin.ts, consumer.ts, producer.ts, read-topic.ts…), never used through kafkajs
 * outside it (docs/development.md, Layout).
 */
export type KafkaClient = Kafka;

const defaultRetry: RetryOptions = { retries: 8, initialRetryTime: 200, maxRetryTime: 10_000 };

/**
 * A kafkajs client that logs through pino, one structured line per entry. `retry` is kafkajs's, for
 * every request; the default rides out a broker's restart (some 40 s in all).
 */
export function createKafka(brokers: string[], clientId: string, logger: Logger, retry: RetryOptions = defaultRetry): KafkaClient {
  const log = logger.child({ component: 'kafkajs' });
  return new Kafka({
    clientId,
    brokers,
    logLevel: logLevel.WARN,
    retry,
    logCreator:
      () =>
      ({ level, log: { message, ...extra } }: LogEntry) => {
        const at = kafkaLogLevel(level, message, extra);
        if (at) log[at]({ ...extra, namespace: undefined }, message);
      },
  });
}
