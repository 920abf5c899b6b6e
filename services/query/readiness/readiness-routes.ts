import type { FastifyPluginAsync } from 'fastify';
import { withDeadline } from '../../lifecycle/deadline.js';

export interface ReadinessOptions {
  /** Resolves when the service can answer partners; rejects with the reason otherwise. */
  check(): Promise<void>;
  /** A check that takes longer counts as not ready; 2 s by default. */
  timeoutMs?: number;
}

const readinessSchema = {
  response: {
    200: { type: 'object', properties: { status: { const: 'ready' } }, required: ['status'], additionalProperties: false },
    503: { type: 'object', properties: { status: { const: 'not ready' } }, required: ['status'], additionalProperties: false },
  },
} as const;

/**
 * GET /readyz: whether to send partners here (a load balancer's readiness probe). /healthz stays
 * liveness only: a service that is alive but cannot answer yet is not restarted, only passed over.
 */
export const readinessRoutes: FastifyPluginAsync<ReadinessOptions> = async (app, options) => {
  app.get('/readyz', { schema: readinessSchema, logLevel: 'warn' }, async (request, reply) => {
    try {
      await withDeadline(options.check(), options.timeoutMs ?? 2_000, 'readiness check');
      return { status: 'ready' as const };
    } catch (error) {
      request.log.warn({ err: error }, 'not ready');
      return reply.code(503).send({ status: 'not ready' as const });
    }
  });
};
