import { Counter, Gauge, Histogram } from 'prom-client';
import { serviceRegistry } from './service-registry.js';

/** Labels of a partner request; every value comes from a short fixed list (never a credential, PO or client). */
export type Interface = 'soap' | 'json';
/** `disconnected`: the connection closed before the answer's last byte, no other outcome decided. */
export type Outcome = 'ok' | 'bad_request' | 'denied' | 'rate_limited' | 'busy' | 'error' | 'disconnected';

export interface QueryMetricsSources {
  /** Whether the rate limits are counted in this instance alone (read at each scrape). */
  rateLimitLocal?: () => boolean;
}

/** The query service's metrics, in a registry of their own (a second app in one process gets its own). */
export function createQueryMetrics({ rateLimitLocal }: QueryMetricsSources = {}) {
  const registry = serviceRegistry();
  const registers = [registry];
  return {
    registry,
    requests: new Counter({
      name: 'ossn_query_requests_total',
      help: 'Partner requests, by interface (soap, json), operation, queryType and outcome (ok, bad_request, denied, rate_limited, busy, error, disconnected: the partner left before the end of its answer; a body too large or too slow, which the server refuses or cuts, is bad_request).',
      labelNames: ['interface', 'operation', 'query_type', 'outcome'] as const,
      registers,
    }),
    requestDuration: new Histogram({
      name: 'ossn_query_request_duration_seconds',
      help: 'Time from receiving a partner request to its answer, by interface and operation.',
      labelNames: ['interface', 'operation'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    rateLimitRefusals: new Counter({
      name: 'ossn_query_rate_limit_refusals_total',
      help: 'Partner requests refused with 429 by the rate limit or the failed-login block, by interface.',
      labelNames: ['interface'] as const,
      registers,
    }),
    busyRefusals: new Counter({
      name: 'ossn_query_busy_refusals_total',
      help: 'Partner logins refused as busy (password checks running and waiting at their bound), by interface.',
      labelNames: ['interface'] as const,
      registers,
    }),
    failedLogins: new Counter({
      name: 'ossn_query_failed_logins_total',
      help: 'Partner requests with an unknown id or a wrong password, by interface.',
      labelNames: ['interface'] as const,
      registers,
    }),
    answerPurchaseOrders: new Histogram({
      name: 'ossn_query_answer_purchase_orders',
      help: 'Purchase orders per answer of an order status or shipment lookup, by lookup (order_status, shipments).',
      labelNames: ['lookup'] as const,
      buckets: [0, 1, 5, 10, 50, 100, 500, 1000, 2500, 5000],
      registers,
    }),
    answersCut: new Counter({
      name: 'ossn_query_answers_cut_total',
      help: 'Answers cut at the 5,000 purchase orders an answer may hold, by lookup (order_status, shipments).',
      labelNames: ['lookup'] as const,
      registers,
    }),
    v2Degraded: new Counter({
      name: 'ossn_query_v2_degraded_total',
      help: 'Values of 2.0.0 answers cut, replaced or left out so that the answer stays valid against the XSDs, by field.',
      labelNames: ['field'] as const,
      registers,
    }),
    rateLimitLocal: new Gauge({
      name: 'ossn_query_rate_limit_local',
      help: '1 while this instance counts the rate limits on its own (no REDIS_URL, or Redis not answering: N instances then allow up to N times the limit), 0 while the counts are shared in Redis.',
      registers,
      collect() {
        if (rateLimitLocal) this.set(rateLimitLocal() ? 1 : 0);
      },
    }),
    activeVersion: new Gauge({
      name: 'ossn_query_read_model_version',
      help: 'The read-model version this query service answers from (the active version as it last read it).',
      registers,
    }),
  };
}

export type QueryMetrics = ReturnType<typeof createQueryMetrics>;
