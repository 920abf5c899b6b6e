import type { FastifyPluginAsync } from 'fastify';
import { probeRoute } from './probe-route.js';

export interface HealthOptions {
  /** Resolves when the service's dependencies answer; rejects otherwise. */
  check(): Promise<void>;
  /** A check that takes longer counts as unavailable; 2 s by default. */
  timeoutMs?: number;
}

export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (app, options) => {
  probeRoute(app, { path: '/healthz', check: options.check, timeoutMs: options.timeoutMs ?? 2_000, up: 'ok', down: 'unavailable', failure: 'health check failed' });
};
