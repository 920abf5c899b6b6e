import type { ProjectorConfig } from '../config/config.js';
import type { DeadLetteredCheck } from '../domain/dead-letters/dead-lettered-sources.js';
import { createKafka } from '../adapters/kafka/client.js';
import { consumeBatches } from '../adapters/kafka/consumer.js';
import { connectProducer, type MessageProducer } from '../adapters/kafka/producer.js';
import { deadLetterTopic } from '../../contracts/transport.js';
import { ensureTopics } from '../adapters/kafka/topics.js';
import type { Logger } from '../plumbing/logging/logger.js';
import { connectMongo } from '../adapters/mongodb/connect.js';
import { ensureIndexes, readModelCollections } from '../adapters/mongodb/documents.js';
import type { ProjectorMetrics } from '../plumbing/metrics/projector-metrics.js';
import { batchObserver, countingDeadLetters, measuredBatches, watchConsumerLag } from './measure.js';
import { createBatchProjector, type ProjectorDependencies } from './projector.js';
import { GroupOfAnotherTopicError, refuseGroupOfAnotherTopic } from './group-policy.js';
import { untilAnswered } from '../plumbing/lifecycle/until-answered.js';
import { stopStepWithin } from '../plumbing/lifecycle/bounded-stop.js';
import { defaultFetchMaxBytes, defaultFetchMaxBytesPerPartition, defaultStopTimeoutMs } from '../config/config.js';

export interface RunningProjector {
  /**
   * Stops after the batch in progress, then closes the connections, within about two thirds of
   * config.stopTimeoutMs whatever the servers do: a batch that waits on a server away is abandoned
   * uncommitted (it comes again), and each step not done in time is logged and left.
   */
  stop(): Promise<void>;
}

export interface ProjectorExtras {
  metrics?: ProjectorMetrics;
  /** Called when the consumer has joined its group (readiness). */
  onJoin?: () => void;
  onLeave?: () => void;
  /** Gives up waiting for a server that is away (the start then rejects with the signal's reason). */
  signal?: AbortSignal;
  /** See ProjectorDependencies.writeFence. */
  writeFence?: () => Promise<boolean>;
  /** A rebuild's: events the dead-letter topic holds already. */
  alreadyDeadLettered?: DeadLetteredCheck;
  /** See ProjectorDependencies.projectBatch. */
  projectBatch?: ProjectorDependencies['projectBatch'];
}

/** Starts once MongoDB and Kafka answer, however long that takes (each wait is logged). */
export async function startProjector(config: ProjectorConfig, logger: Logger, extras: ProjectorExtras = {}): Promise<RunningProjector> {
  const { metrics } = extras;
  const stopTimeoutMs = config.stopTimeoutMs ?? defaultStopTimeoutMs;
  const waiting = { signal: extras.signal };
  const within = (what: string, step: () => Promise<unknown>) => stopStepWithin(what, step, stopTimeoutMs * 0.15, logger);
  const mongo = await untilAnswered(
    'MongoDB',
    async () => {
      const client = await connectMongo(config.store.mongodbUri, 'ossn-projector');
      try {
        await ensureIndexes(readModelCollections(client.db(config.store.database), config.store.readModelVersion));
        return client;
      } catch (error) {
        await client.close().catch(() => undefined);
        throw error;
      }
    },
    logger,
    waiting,
  );
  // Given up or failed from here on (Kafka away and the start aborted, say), the start closes what
  // it opened: an open client would keep the process alive after it reported the start failed.
  let connected: MessageProducer | undefined;
  try {
    const db = mongo.db(config.store.database);
    const collections = readModelCollections(db, config.store.readModelVersion);

    const kafka = createKafka(config.kafkaBrokers, 'ossn-projector', logger);
    await untilAnswered('Kafka', () => ensureTopics(kafka, config.topic, config.topicPartitions), logger, waiting);
    const dlqTopic = deadLetterTopic(config.topic);
    connected = await untilAnswered('Kafka', () => connectProducer(kafka), logger, waiting);
    const producer = metrics ? countingDeadLetters(connected, dlqTopic, metrics) : connected;
    const projectBatches = createBatchProjector({
      collections,
      previousCollections:
        config.previousReadModelVersion === undefined ? undefined : readModelCollections(db, config.previousReadModelVersion),
      producer,
      deadLetterTopic: dlqTopic,
      logger,
      stateCacheSize: config.stateCacheSize,
      observer: metrics ? batchObserver(metrics) : undefined,
      alreadyDeadLettered: extras.alreadyDeadLettered,
      writeFence: extras.writeFence,
      projectBatch: extras.projectBatch,
    });
    const consumer = await untilAnswered(
      'Kafka',
      async () =>
        consumeBatches(
          kafka,
          {
            groupId: config.consumerGroup,
            topic: config.topic,
            logger,
            // Before each new consumer joins, a replacement's too: Kafka would hand this projector
            // partitions of another topic's group, which it drops.
            beforeJoin: () => refuseGroupOfAnotherTopic(kafka, config.consumerGroup, config.topic),
            sessionTimeoutMs: config.consumerSessionTimeoutMs,
            onJoin: extras.onJoin,
            onLeave: extras.onLeave,
            abandonBatchesAfterMs: stopTimeoutMs * 0.2,
            stopTimeoutMs: stopTimeoutMs * 0.5,
            maxBytesPerPartition: config.fetchMaxBytesPerPartition ?? defaultFetchMaxBytesPerPartition,
            maxBytes: config.fetchMaxBytes ?? defaultFetchMaxBytes,
          },
          metrics ? measuredBatches(projectBatches, metrics) : projectBatches,
        ),
      logger,
      { ...waiting, isFinal: (error) => error instanceof GroupOfAnotherTopicError },
    );
    const lagWatch = metrics ? watchConsumerLag(kafka, { groupId: config.consumerGroup, topic: config.topic }, metrics, logger) : undefined;
    logger.info({ topic: config.topic, group: config.consumerGroup, readModelVersion: config.store.readModelVersion }, 'projector consuming');
    return {
      async stop() {
        await consumer.stop();
        await Promise.all([
          lagWatch && within('stopping the consumer lag watch', () => lagWatch.stop()),
          within('closing the dead-letter producer', () => producer.close()),
          within('closing the MongoDB connections', () => mongo.close()),
        ]);
      },
    };
  } catch (error) {
    const opened = connected;
    await Promise.all([
      opened && within('closing the dead-letter producer', () => opened.close()),
      within('closing the MongoDB connections', () => mongo.close()),
    ]);
    throw error;
  }
}
