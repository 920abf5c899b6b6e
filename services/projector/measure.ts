// The projector's metrics, taken around the batch handler, the producer and the consumer group, so
// that the projection path itself only reports what each batch did (ProjectorDependencies.observer).
import type { BatchHandler } from '../adapters/kafka/consumer.js';
import type { SourceMessage } from '../adapters/kafka/messages.js';
import type { MessageProducer } from '../adapters/kafka/producer.js';
import { KafkaAdmin } from '../adapters/kafka/admin.js';
import type { KafkaClient } from '../adapters/kafka/client.js';
import type { Logger } from '../plumbing/logging/logger.js';
import type { ProjectorMetrics } from '../plumbing/metrics/projector-metrics.js';
import { withDeadline } from '../plumbing/lifecycle/deadline.js';
import { DeadLetterHeaders } from '../domain/dead-letters/headers.js';
import type { BatchOutcome } from './batch-outcome.js';

export function measuredBatches(handler: BatchHandler, metrics: ProjectorMetrics): BatchHandler {
  return async (messages, context) => {
    const end = metrics.batchDuration.startTimer();
    try {
      await handler(messages, context);
    } finally {
      end();
    }
  };
}

/** Counts a batch's events by what the sequence rule did, and how long each applied one took from publication to visibility. */
export function batchObserver(metrics: ProjectorMetrics): (outcome: BatchOutcome<SourceMessage>) => void {
  return ({ applied, duplicate, stale }) => {
    const now = Date.now();
    metrics.eventsApplied.inc(applied.length);
    if (duplicate > 0) metrics.eventsSkipped.inc({ reason: 'duplicate' }, duplicate);
    if (stale > 0) metrics.eventsSkipped.inc({ reason: 'stale' }, stale);
    for (const source of applied) metrics.freshness.observe(Math.max(0, now - Number(source.timestamp)) / 1000);
  };
}

/** A producer that counts what it sends to the dead-letter topic, by the reason kind the dead letter carries. */
export function countingDeadLetters(producer: MessageProducer, deadLetterTopic: string, metrics: ProjectorMetrics): MessageProducer {
  return {
    async send(topic, messages) {
      await producer.send(topic, messages);
      if (topic !== deadLetterTopic) return;
      for (const message of messages) metrics.deadLetters.inc({ reason: message.headers?.[DeadLetterHeaders.kind] ?? 'unknown' });
    },
    close: () => producer.close(),
  };
}

/** Reads the group's lag per partition every `intervalMs` into the lag gauge until stopped. */
export function watchConsumerLag(
  kafka: KafkaClient,
  target: { groupId: string; topic: string },
  metrics: ProjectorMetrics,
  logger: Logger,
  intervalMs = 5_000,
): { stop(): Promise<void> } {
  const admin = new KafkaAdmin(kafka);
  let connected: Promise<void> | undefined;
  let running: Promise<void> = Promise.resolve();
  const read = async () => {
    // A failed connect is tried again at the next tick, not kept.
    connected ??= admin.connect().catch((error: unknown) => {
      connected = undefined;
      throw error;
    });
    await connected;
    for (const { partition, lag } of await admin.partitionLags(target.groupId, target.topic)) {
      metrics.consumerLag.set({ partition: String(partition) }, Number(lag));
    }
  };
  let reading = false;
  const tick = () => {
    if (reading) return; // the previous read outlived its deadline and is still going
    reading = true;
    const attempt = read().finally(() => {
      reading = false;
    });
    running = withDeadline(attempt, intervalMs, 'reading the consumer lag').catch((error: unknown) => {
      logger.debug({ err: error }, 'consumer lag not read');
    });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await admin.disconnect();
    },
  };
}
