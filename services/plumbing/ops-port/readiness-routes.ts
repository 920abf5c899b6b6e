import type { FastifyPluginAsync } from 'fastify';
import { probeRoute } from './probe-route.js';

export interface ReadinessOptions {
  /** Resolves when the service can answer partners; rejects with the reason otherwise. */
  check(): Promise<void>;
  /** A check that takes longer counts as not ready; 2 s by default. */
  timeoutMs?: number;
  /** Said beside `ready` (e.g. the rate limits counted in this instance alone). */
  details?: () => Record<string, string> | undefined;
}

/**
 * GET /readyz: whether to send partners here (a load balancer's readiness probe). /healthz stays
 * liveness only: a service that is alive but cannot answer yet is not restarted, only passed over.
 */
export const readinessRoutes: FastifyPluginAsync<ReadinessOptions> = async (app, options) => {
  probeRoute(app, { path: '/readyz', check: options.check, timeoutMs: options.timeoutMs ?? 2_000, up: 'ready', down: 'not ready', failure: 'not ready', details: options.details });
};
