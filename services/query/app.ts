import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../logging/logger.js';
import { healthRoutes } from './health/health-routes.js';
import type { Authenticator, OrderLookups } from './ports.js';
import { promoStandardsSoap, type BeforeOperation } from './soap/index.js';

export interface AppDependencies {
  logger: Logger;
  publicBaseUrl: string;
  lookups: OrderLookups;
  authenticator: Authenticator;
  healthCheck(): Promise<void>;
  /** Runs before each authenticated operation, e.g. the rate limit. */
  beforeOperation?: BeforeOperation;
}

/** The query service as a Fastify instance; routes arrive as encapsulated plugins. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: deps.logger as FastifyBaseLogger, trustProxy: true });
  await app.register(healthRoutes, { check: deps.healthCheck });
  await app.register(promoStandardsSoap, {
    publicBaseUrl: deps.publicBaseUrl,
    lookups: deps.lookups,
    authenticator: deps.authenticator,
    beforeOperation: deps.beforeOperation,
  });
  return app;
}
