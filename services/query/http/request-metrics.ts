// Request metrics of the partner endpoints (GET /metrics is on the operators' port). Registered without encapsulation
// (fastify-plugin), so its hooks see the requests of the SOAP and JSON plugins beside it.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { Interface, Outcome, QueryMetrics } from '../../plumbing/metrics/query-metrics.js';
import { ErrorCodes, hasCode, OssnError } from '../../../contracts/errors/ossn-error.js';
import { ORDER_STATUS_JSON_PATH, SHIPMENTS_JSON_PATH } from '../versions/1.0.0/json/index.js';
import { ORDER_STATUS_PATH, SHIPMENT_NOTIFICATION_PATH } from '../versions/1.0.0/soap/index.js';
import { ISSUES_JSON_V2_PATH, ORDER_STATUS_JSON_V2_PATH, SHIPMENTS_JSON_V2_PATH } from '../versions/2.0.0/json/plugin.js';
import { ORDER_STATUS_V2_PATH, SHIPMENT_NOTIFICATION_V2_PATH } from '../versions/2.0.0/soap/plugin.js';
import { labelsOf, queryTypeLabel } from './request-labels.js';

export interface QueryMetricsOptions {
  metrics: QueryMetrics;
}

const routes = new Map<string, { interface: Interface; operation?: string }>([
  [ORDER_STATUS_PATH, { interface: 'soap' }],
  [SHIPMENT_NOTIFICATION_PATH, { interface: 'soap' }],
  [ORDER_STATUS_JSON_PATH, { interface: 'json', operation: 'getOrderStatus' }],
  [SHIPMENTS_JSON_PATH, { interface: 'json', operation: 'getShipments' }],
  [ORDER_STATUS_V2_PATH, { interface: 'soap' }],
  [SHIPMENT_NOTIFICATION_V2_PATH, { interface: 'soap' }],
  [ORDER_STATUS_JSON_V2_PATH, { interface: 'json', operation: 'v2/getOrderStatus' }],
  [SHIPMENTS_JSON_V2_PATH, { interface: 'json', operation: 'v2/getShipments' }],
  [ISSUES_JSON_V2_PATH, { interface: 'json', operation: 'v2/getIssue' }],
]);

/** The partner route a request was routed to; undefined for WSDLs, probes, /metrics and the like. */
function partnerRoute(request: FastifyRequest) {
  const route = routes.get(request.routeOptions.url ?? '');
  if (!route || (route.interface === 'soap' && request.method !== 'POST')) return undefined;
  return route;
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
  app.addHook('onRequest', async (request) => {
    started.set(request, process.hrtime.bigint());
  });

  app.addHook('onError', async (request, _reply, error) => {
    const route = partnerRoute(request);
    if (!route) return;
    const outcome = outcomeOf(error);
    outcomes.set(request, outcome);
    if (outcome === 'rate_limited') metrics.rateLimitRefusals.inc({ interface: route.interface });
    if (outcome === 'busy') metrics.busyRefusals.inc({ interface: route.interface });
    // A failed login of either protocol (JSON's InvalidCredentialsError, SOAP's fault for an unknown id/password pair).
    if (hasCode(error, ErrorCodes.LOGIN_INVALID)) metrics.failedLogins.inc({ interface: route.interface });
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = partnerRoute(request);
    if (!route) return;
    const labels = labelsOf(request);
    const operation = labels.operation ?? route.operation ?? 'unknown';
    const queryType = queryTypeLabel(route.interface === 'json' ? (request.query as { queryType?: unknown } | undefined)?.queryType : labels.queryType);
    const outcome = outcomes.get(request) ?? labels.outcome ?? (reply.statusCode < 400 ? 'ok' : reply.statusCode < 500 ? 'bad_request' : 'error');
    metrics.requests.inc({ interface: route.interface, operation, query_type: queryType, outcome });
    const start = started.get(request);
    if (start !== undefined) {
      metrics.requestDuration.observe({ interface: route.interface, operation }, Number(process.hrtime.bigint() - start) / 1e9);
    }
  });

};

export const queryMetrics = fastifyPlugin(plugin, { name: 'ossn-query-metrics' });
