// What the metrics know of a partner request: its route's own labels (the route's config, set by
// the version that declares the route, so the metrics layer knows no route), and what the protocol
// layer that read the request adds (the SOAP operation is named inside the body), read when the
// answer is sent.
import type { FastifyRequest } from 'fastify';
import type { Interface, Outcome } from '../../plumbing/metrics/query-metrics.js';
import { orderStatusQueryTypes } from '../../../contracts/v2-vocabulary.js';

/** A partner route's labels: its interface, and its operation where the route alone names it (JSON). */
export interface RouteMetrics {
  interface: Interface;
  operation?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Present on the partner routes the request metrics count, absent on WSDLs, documents and probes. */
    metrics?: RouteMetrics;
  }
}

/** The partner route a request was routed to; undefined for WSDLs, probes, /metrics and the like. */
export function routeMetrics(request: FastifyRequest): RouteMetrics | undefined {
  return request.routeOptions.config.metrics;
}

export interface RequestLabels {
  operation?: string;
  queryType?: unknown;
  /** The outcome when the HTTP status would tell it wrong (a JSON v2 404 for a lookup that found nothing is ok). */
  outcome?: Outcome;
}

const labels = new WeakMap<FastifyRequest, RequestLabels>();

export function labelRequest(request: FastifyRequest, given: RequestLabels): void {
  labels.set(request, { ...labels.get(request), ...given });
}

export function labelsOf(request: FastifyRequest): RequestLabels {
  return labels.get(request) ?? {};
}

/**
 * queryType as a label: 1 to 4 or a 2.0.0 OSS word, `none` when absent, `other` for anything else
 * (a label must not take any value a client sends).
 */
export function queryTypeLabel(value: unknown): string {
  if (value === undefined || value === null || value === '') return 'none';
  const text = String(value).trim().replace(/^\+/, '');
  return ['1', '2', '3', '4'].includes(text) || (orderStatusQueryTypes as readonly string[]).includes(text) ? text : 'other';
}
