import type { FastifyPluginAsync } from 'fastify';

export interface HealthOptions {
  /** Resolves when the service's dependencies answer; rejects otherwise. */
  check(): Promise<void>;
}

const healthSchema = {
  response: {
    200: { type: 'object', properties: { status: { const: 'ok' } }, required: ['status'], additionalProperties: false },
    503: { type: 'object', properties: { status: { const: 'unavailable' } }, required: ['status'], additionalProperties: false },
  },
} as const;

export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (app, options) => {
  app.get('/healthz', { schema: healthSchema, logLevel: 'warn' }, async (request, reply) => {
    try {
      await options.check();
      return { status: 'ok' as const };
    } catch (error) {
      request.log.warn({ err: error }, 'health check failed');
      return reply.code(503).send({ status: 'unavailable' as const });
    }
  });
};
