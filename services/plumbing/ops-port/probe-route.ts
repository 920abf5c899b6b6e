import type { FastifyInstance } from 'fastify';
import { withDeadline } from '../lifecycle/deadline.js';

export interface Probe {
  path: string;
  /** Resolves when the probe passes; rejects with the reason otherwise. */
  check(): Promise<void>;
  /** A check that takes longer fails the probe. */
  timeoutMs: number;
  /** The status answered with 200, and with 503. */
  up: string;
  down: string;
  /** Logged (warn) with the reason when the probe fails. */
  failure: string;
  /** Said beside a passing answer: what an operator should know though it passes (never a secret). */
  details?: () => Record<string, string> | undefined;
}

/** GET <path>: 200 {status: up} when the check passes in time, else 503 {status: down}. */
export function probeRoute(app: FastifyInstance, probe: Probe): void {
  const body = (status: string) => ({
    type: 'object',
    properties: { status: { const: status }, details: { type: 'object', additionalProperties: { type: 'string' } } },
    required: ['status'],
    additionalProperties: false,
  });
  app.get(probe.path, { schema: { response: { 200: body(probe.up), 503: { ...body(probe.down), properties: { status: { const: probe.down } } } } }, logLevel: 'warn' }, async (request, reply) => {
    try {
      await withDeadline(probe.check(), probe.timeoutMs, `the ${probe.path} check`);
      const details = probe.details?.();
      return details ? { status: probe.up, details } : { status: probe.up };
    } catch (error) {
      request.log.warn({ err: error }, probe.failure);
      return reply.code(503).send({ status: probe.down });
    }
  });
}
