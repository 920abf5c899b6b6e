import type { ProjectorConfig } from '../config/config.js';
import { createKafka } from '../kafka/client.js';
import { consumeBatches } from '../kafka/consumer.js';
import { connectSink } from '../kafka/producer.js';
import { deadLetterTopic } from '../../contracts/transport.js';
import { ensureTopics } from '../kafka/topics.js';
import type { Logger } from '../logging/logger.js';
import { connectMongo } from '../read-model-store/connect.js';
import { ensureIndexes, readModelCollections } from '../read-model-store/documents.js';
import { createBatchProjector } from './projector.js';

export interface RunningProjector {
  /** Stops after the batch in progress, then closes the connections. */
  stop(): Promise<void>;
}

export async function startProjector(config: ProjectorConfig, logger: Logger): Promise<RunningProjector> {
  const mongo = await connectMongo(config.store.mongodbUri, 'ossn-projector');
  const db = mongo.db(config.store.database);
  const collections = readModelCollections(db, config.store.readModelVersion);
  await ensureIndexes(collections);

  const kafka = createKafka(config.kafkaBrokers, 'ossn-projector', logger);
  await ensureTopics(kafka, config.topic, config.topicPartitions);
  const sink = await connectSink(kafka);
  const consumer = await consumeBatches(
    kafka,
    { groupId: config.consumerGroup, topic: config.topic, logger },
    createBatchProjector({
      collections,
      previousCollections:
        config.previousReadModelVersion === undefined ? undefined : readModelCollections(db, config.previousReadModelVersion),
      sink,
      deadLetterTopic: deadLetterTopic(config.topic),
      logger,
      stateCacheSize: config.stateCacheSize,
    }),
  );
  logger.info({ topic: config.topic, group: config.consumerGroup, readModelVersion: config.store.readModelVersion }, 'projector consuming');
  return {
    async stop() {
      await consumer.stop();
      await sink.close();
      await mongo.close();
    },
  };
}
