import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { listenOn, type ListenVariables } from '../lifecycle/listen.js';
import type { Logger } from '../logging/logger.js';
import { metricsRoute } from '../metrics/metrics-route.js';
import { healthRoutes } from './health-routes.js';
import { readinessRoutes } from './readiness-routes.js';

export interface OpsServerOptions {
  host: string;
  port: number;
  /** The variables host and port come from, named when the port cannot be had. */
  variables: ListenVariables;
  registry: Registry;
  /** Resolves while the process is alive and its dependencies answer; alive only when absent. */
  healthCheck?(): Promise<void>;
  /** Resolves when the process can do its work. */
  readinessCheck(): Promise<void>;
  /** Said beside a passing /readyz. */
  readinessDetails?: () => Record<string, string> | undefined;
  logger: Logger;
}

/**
 * The operators' port: /metrics, /healthz and /readyz, apart from any partner port (by default on
 * loopback), so that partners can neither read the counters nor make each probe ping a store.
 */
export async function buildOpsApp(options: Omit<OpsServerOptions, 'host' | 'port' | 'variables'>): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: options.logger as FastifyBaseLogger });
  await app.register(healthRoutes, { check: options.healthCheck ?? (async () => {}) });
  await app.register(readinessRoutes, { check: options.readinessCheck, details: options.readinessDetails });
  metricsRoute(app, options.registry);
  return app;
}

export async function startOpsServer(options: OpsServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const app = await buildOpsApp(options);
  const url = await listenOn(app, options.host, options.port, options.variables).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
  return { url, close: () => app.close() };
}
