import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

/** GET /metrics: the registry in Prometheus' text format. */
export function metricsRoute(app: FastifyInstance, registry: Registry): void {
  app.get('/metrics', { logLevel: 'warn', schema: { hide: true } }, async (_request, reply) => {
    const text = await registry.metrics();
    return reply.type(registry.contentType).send(text);
  });
}
