import type { FastifyInstance } from 'fastify';
import type { QueryConfig } from '../config/config.js';
import { CachingAuthenticator } from '../credentials/authenticator.js';
import { CredentialStore, credentialsCollection } from '../credentials/credential-store.js';
import type { Logger } from '../logging/logger.js';
import { connectMongo } from '../read-model-store/connect.js';
import { readModelCollections } from '../read-model-store/documents.js';
import { MongoOrderLookups } from '../read-model-store/lookups.js';
import { buildApp } from './app.js';
import { createRequestLimits } from './rate-limit/index.js';

export interface RunningQueryService {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/** Wires the query service to MongoDB and starts listening. */
export async function startQueryService(config: QueryConfig, logger: Logger): Promise<RunningQueryService> {
  const client = await connectMongo(config.store.mongodbUri, 'ossn-query');
  const db = client.db(config.store.database);
  // With REDIS_URL every instance counts in Redis, so they share one limit per credential.
  const limits = createRequestLimits({ requestsPerMinute: config.requestsPerMinute, redisUrl: config.redisUrl, logger });
  const app = await buildApp({
    logger,
    publicBaseUrl: config.publicBaseUrl,
    lookups: new MongoOrderLookups(readModelCollections(db, config.store.readModelVersion)),
    authenticator: new CachingAuthenticator(new CredentialStore(credentialsCollection(db))),
    limits,
    trustedProxyHops: config.trustedProxyHops,
    healthCheck: async () => {
      await db.command({ ping: 1 });
      await limits.ping();
    },
  });
  const url = await app.listen({ host: config.host, port: config.port });
  return {
    app,
    url,
    async close() {
      await app.close(); // closes the limits' Redis connections too
      await client.close();
    },
  };
}
