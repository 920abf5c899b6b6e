import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { Logger } from '../logging/logger.js';
import { metricsRoute } from '../metrics/metrics-route.js';
import { healthRoutes } from '../query/health/health-routes.js';
import { readinessRoutes } from '../query/readiness/readiness-routes.js';

export interface ProbeServerOptions {
  host: string;
  port: number;
  registry: Registry;
  /** Resolves when the process can do its work. */
  readinessCheck(): Promise<void>;
  logger: Logger;
}

/** /metrics, /healthz (alive) and /readyz on a port of their own, for a process that serves nothing else (the projector). */
export async function startProbeServer(options: ProbeServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ loggerInstance: options.logger as FastifyBaseLogger });
  await app.register(healthRoutes, { check: async () => {} });
  await app.register(readinessRoutes, { check: options.readinessCheck });
  metricsRoute(app, options.registry);
  const url = await app.listen({ host: options.host, port: options.port });
  return { url, close: () => app.close() };
}
