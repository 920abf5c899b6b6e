import type { Kafka } from 'kafkajs';
import type { ErpEvent } from '../../contracts/erp-events.js';
import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll } from 'vitest';
import { defaultStateCacheSize, type ProjectorConfig } from '../../services/config/config.js';
import { createKafka } from '../../services/adapters/kafka/client.js';
import { connectProducer, type MessageProducer } from '../../services/adapters/kafka/producer.js';
import { publishNdjson, type PublishReport } from '../../services/adapters/kafka/publish-events.js';
import { waitUntilCaughtUp } from '../../services/adapters/kafka/progress.js';
import { ensureTopics } from '../../services/adapters/kafka/topics.js';
import { startProjector } from '../../services/projector/run.js';
import { createLogger, type Logger } from '../../services/plumbing/logging/logger.js';
import { connectMongo } from '../../services/adapters/mongodb/connect.js';
import { testEnvironment, uniqueNames, type UniqueNames } from './servers.js';

export interface Connections {
  logger: Logger;
  kafka: Kafka;
  producer: MessageProducer;
  mongo: MongoClient;
  /** Stopped (in reverse order) after the file's tests, before the connections close; a stop that fails fails the file. */
  running: { stop(): Promise<void> }[];
}

/** A test file's Kafka client, producer and MongoDB client, opened before its tests and closed after. */
export function useConnections(label: string): Connections {
  const env = testEnvironment();
  const logger = createLogger(label, 'silent');
  const connections = { logger, kafka: createKafka(env.kafkaBrokers, label, logger), running: [] } as unknown as Connections;
  beforeAll(async () => {
    connections.producer = await connectProducer(connections.kafka);
    connections.mongo = await connectMongo(env.mongodbUri, label);
  });
  afterAll(async () => {
    // Everything is stopped and closed even when something fails to; then the failures fail the file.
    const failures: unknown[] = [];
    const attempt = (step: () => Promise<unknown> | undefined) => Promise.resolve().then(step).catch((error: unknown) => void failures.push(error));
    for (const r of connections.running.splice(0).reverse()) await attempt(() => r.stop());
    await attempt(() => connections.producer?.close());
    await attempt(() => connections.mongo?.close());
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, `${failures.length} failures stopping what ${label}'s tests left running`);
  });
  return connections;
}

/** A projector configuration on a topic (created), consumer group and database of its own, read-model version 1. */
export async function freshProjectorConfig(kafka: Kafka, label: string, partitions = 3): Promise<{ config: ProjectorConfig; names: UniqueNames }> {
  const env = testEnvironment();
  const names = uniqueNames(label);
  const config: ProjectorConfig = {
    logLevel: 'silent',
    store: { mongodbUri: env.mongodbUri, database: names.database, readModelVersion: 1 },
    kafkaBrokers: env.kafkaBrokers,
    topic: names.topic,
    topicPartitions: partitions,
    consumerGroup: `${names.group}-v1`,
    stateCacheSize: defaultStateCacheSize,
  };
  await ensureTopics(kafka, config.topic, partitions);
  return { config, names };
}

/** Runs a projector of `config` until its group has committed the whole topic, then stops it: a live version built and left standing. */
export async function projectUntilCaughtUp(connections: Pick<Connections, 'kafka' | 'logger'>, config: ProjectorConfig): Promise<void> {
  const projector = await startProjector(config, connections.logger);
  try {
    await waitUntilCaughtUp(connections.kafka, config.consumerGroup, config.topic);
  } finally {
    await projector.stop();
  }
}

/**
 * Publishes events of the contract to `topic` as `ossn publish` does (each under its sales order's
 * key, in order), through `via`: a producer, or a Kafka client to open one for these events only.
 * Rejects when any event is refused.
 */
export async function publishEvents(via: MessageProducer | Kafka, topic: string, events: readonly ErpEvent[]): Promise<PublishReport> {
  const producer = 'send' in via ? via : await connectProducer(via);
  try {
    const report = await publishNdjson(events.map((e) => JSON.stringify(e)), producer, topic);
    if (report.refused.length > 0) throw new Error(`${report.refused.length} of ${events.length} events refused: ${JSON.stringify(report.refused.slice(0, 3))}`);
    return report;
  } finally {
    if (producer !== via) await producer.close();
  }
}
