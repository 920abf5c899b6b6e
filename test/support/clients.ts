import { Redis } from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import type { MongoClient } from 'mongodb';
import { connectMongo } from '../../services/adapters/mongodb/connect.js';
import { servers } from './servers.js';

/** A kafkajs client for this run's brokers; quiet unless something fails. */
export function testKafka(clientId: string): Kafka {
  return new Kafka({
    clientId,
    brokers: servers().kafkaBrokers,
    logLevel: logLevel.ERROR,
    retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 2_000 },
  });
}

/** A connected MongoClient for this run's server. Close it in afterAll. */
export async function testMongo(): Promise<MongoClient> {
  return connectMongo(servers().mongodbUri, 'ossn-tests');
}

/** A connected Redis client for this run's server. Close it (`quit()`) in afterAll. */
export async function testRedis(): Promise<Redis> {
  const client = new Redis(servers().redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await client.connect();
  return client;
}
