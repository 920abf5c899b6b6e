import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../logging/logger.js';
import { healthRoutes } from './health/health-routes.js';

export interface AppDependencies {
  logger: Logger;
  healthCheck(): Promise<void>;
}

/** The query service as a Fastify instance; routes arrive as encapsulated plugins. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: deps.logger as FastifyBaseLogger, disableRequestLogging: false, trustProxy: true });
  await app.register(healthRoutes, { check: deps.healthCheck });
  return app;
}
