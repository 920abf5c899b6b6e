// Request metrics of the partner endpoints (GET /metrics is on the operators' port). Registered without encapsulation
// (fastify-plugin), so its hooks see the requests of the SOAP and JSON plugins beside it.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { Outcome, QueryMetrics } from '../../plumbing/metrics/query-metrics.js';
import { ErrorCodes, hasCode, OssnError } from '../../../contracts/errors/ossn-error.js';
import { labelsOf, queryTypeLabel, routeMetrics } from './request-labels.js';

export interface QueryMetricsOptions {
  metrics: QueryMetrics;
}

/** Our refusals of either protocol by their code (never their text or status); any other error by its HTTP status. */
function outcomeOf(error: Error): Outcome {
  if (error instanceof OssnError) {
    switch (error.code) {
      case ErrorCodes.RATE_LIMITED:
        return 'rate_limited';
      case ErrorCodes.PASSWORD_CHECKS_BUSY:
        return 'busy';
      case ErrorCodes.LOGIN_INVALID:
      case ErrorCodes.SCOPE_FORBIDDEN:
      case ErrorCodes.CREDENTIALS_MISSING:
        return 'denied';
      case ErrorCodes.BAD_REQUEST:
        return 'bad_request';
    }
  }
  const status = (error as { statusCode?: number }).statusCode;
  return status !== undefined && status >= 400 && status < 500 ? 'bad_request' : 'error';
}

const started = new WeakMap<FastifyRequest, bigint>();
const outcomes = new WeakMap<FastifyRequest, Outcome>();

const plugin: FastifyPluginAsync<QueryMetricsOptions> = async (app, { metrics }) => {
  // A body too slow (the request timeout, server-limits.ts) is answered by the server itself
  // (Fastify's clientError handler writes 408 and closes the socket), never through the request's
  // reply: a refusal of the partner's request, which did not leave (docs/operations.md, Metrics).
  // Not other client errors: a partner that leaves mid-body is one too (an early end of the body).
  // The request in flight is the socket's latest.
  const inFlightOn = new WeakMap<object, FastifyRequest>();
  app.server.on('clientError', (error: NodeJS.ErrnoException, socket: object) => {
    const request = inFlightOn.get(socket);
    if (request && error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && !outcomes.has(request)) outcomes.set(request, 'bad_request');
  });

  app.addHook('onRequest', async (request, reply) => {
    started.set(request, process.hrtime.bigint());
    inFlightOn.set(request.raw.socket, request);
    // A response that never finishes runs no onResponse: counted when its connection closes, with
    // the outcome already decided (an error when we aborted its transfer on a failure,
    // sent-as-read.ts; a refusal, a body too large or too slow included), else as disconnected:
    // the partner left. count() takes each request once, as Fastify also runs onResponse on the
    // response's 'error'.
    let finished = false;
    reply.raw.once('finish', () => (finished = true));
    reply.raw.once('close', () => {
      if (finished) return;
      if (!outcomes.has(request) && labelsOf(request).outcome === undefined) outcomes.set(request, 'disconnected');
      count(request, reply);
    });
  });

  app.addHook('onError', async (request, _reply, error) => {
    const route = routeMetrics(request);
    if (!route) return;
    const outcome = outcomeOf(error);
    outcomes.set(request, outcome);
    if (outcome === 'rate_limited') metrics.rateLimitRefusals.inc({ interface: route.interface });
    if (outcome === 'busy') metrics.busyRefusals.inc({ interface: route.interface });
    // A failed login of either protocol (JSON's InvalidCredentialsError, SOAP's fault for an unknown id/password pair).
    if (hasCode(error, ErrorCodes.LOGIN_INVALID)) metrics.failedLogins.inc({ interface: route.interface });
  });

  const counted = new WeakSet<FastifyRequest>();
  const count = (request: FastifyRequest, reply: FastifyReply) => {
    const route = routeMetrics(request);
    if (!route || counted.has(request)) return;
    counted.add(request);
    const labels = labelsOf(request);
    const operation = labels.operation ?? route.operation ?? 'unknown';
    const queryType = queryTypeLabel(route.interface === 'json' ? (request.query as { queryType?: unknown } | undefined)?.queryType : labels.queryType);
    const outcome = outcomes.get(request) ?? labels.outcome ?? (reply.statusCode < 400 ? 'ok' : reply.statusCode < 500 ? 'bad_request' : 'error');
    metrics.requests.inc({ interface: route.interface, operation, query_type: queryType, outcome });
    const start = started.get(request);
    // The time to an answer: a request left unanswered is not one.
    if (start !== undefined && outcome !== 'disconnected') {
      metrics.requestDuration.observe({ interface: route.interface, operation }, Number(process.hrtime.bigint() - start) / 1e9);
    }
  };
  app.addHook('onResponse', async (request, reply) => count(request, reply));

};

export const queryMetrics = fastifyPlugin(plugin, { name: 'ossn-query-metrics' });
