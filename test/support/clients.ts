import { Redis } from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
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
  // The same options as the read-model store (services/adapters/mongodb/connect.ts).
  const client = new MongoClient(servers().mongodbUri, { ignoreUndefined: true, serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  return client;
}

/** A connected Redis client for this run's server. Close it (`quit()`) in afterAll. */
export async function testRedis(): Promise<Redis> {
  const client = new Redis(servers().redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await client.connect();
  return client;
}
