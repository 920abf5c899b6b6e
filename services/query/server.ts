import type { FastifyInstance } from 'fastify';
import type { QueryConfig } from '../config/config.js';
import { CachingAuthenticator } from '../credentials/authenticator.js';
import { CredentialStore, credentialsCollection } from '../credentials/credential-store.js';
import type { Logger } from '../logging/logger.js';
import { connectMongo } from '../read-model-store/connect.js';
import { createQueryMetrics } from '../metrics/query-metrics.js';
import { SwitchingLookups } from '../read-model-store/switching-lookups.js';
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
  const metrics = createQueryMetrics();
  // The active version as `ossn replay` records it (READ_MODEL_VERSION before the first switch).
  const lookups = new SwitchingLookups(db, {
    fallbackVersion: config.store.readModelVersion,
    onSwitch: (version) => {
      metrics.activeVersion.set(version);
      logger.info({ readModelVersion: version }, 'answering from read-model version');
    },
    onRefreshError: (error) => logger.warn({ err: error }, 'reading the active read-model version failed; answering from the last one'),
  });
  await lookups.start();
  const app = await buildApp({
    logger,
    publicBaseUrl: config.publicBaseUrl,
    lookups,
    metrics,
    readinessCheck: async () => {
      await db.command({ ping: 1 });
      if (!lookups.readWithin(10_000)) throw new Error('active read-model version not read in the last 10 s');
    },
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
      lookups.stop();
      await app.close(); // closes the limits' Redis connections too
      await client.close();
    },
  };
}
