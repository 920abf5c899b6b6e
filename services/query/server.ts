import type { FastifyInstance } from 'fastify';
import type { QueryConfig } from '../config/config.js';
import { CachingAuthenticator } from '../credentials/authenticator.js';
import { CredentialStore, credentialsCollection } from '../credentials/credential-store.js';
import type { Logger } from '../logging/logger.js';
import { connectMongo } from '../read-model-store/connect.js';
import { readModelCollections } from '../read-model-store/documents.js';
import { MongoOrderLookups } from '../read-model-store/lookups.js';
import { buildApp } from './app.js';

export interface RunningQueryService {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/** Wires the query service to MongoDB and starts listening. */
export async function startQueryService(config: QueryConfig, logger: Logger): Promise<RunningQueryService> {
  const client = await connectMongo(config.store.mongodbUri, 'ossn-query');
  const db = client.db(config.store.database);
  const app = await buildApp({
    logger,
    publicBaseUrl: config.publicBaseUrl,
    lookups: new MongoOrderLookups(readModelCollections(db, config.store.readModelVersion)),
    authenticator: new CachingAuthenticator(new CredentialStore(credentialsCollection(db))),
    healthCheck: async () => {
      await db.command({ ping: 1 });
    },
  });
  const url = await app.listen({ host: config.host, port: config.port });
  return {
    app,
    url,
    async close() {
      await app.close();
      await client.close();
    },
  };
}
