import { Counter, Gauge, Histogram } from 'prom-client';
import { serviceRegistry } from './service-registry.js';

/** The pusher's metrics (docs/operations.md, Push subscriptions), served on its metrics port. */
export function createPusherMetrics() {
  const registry = serviceRegistry();
  const registers = [registry];
  return {
    registry,
    attempts: new Counter({
      name: 'ossn_pusher_attempts_total',
      help: 'Delivery attempts by outcome: acknowledged, transient (retried), refused, nothing-to-send (the purchase order has no package left to show).',
      labelNames: ['outcome'] as const,
      registers,
    }),
    unchanged: new Counter({
      name: 'ossn_pusher_unchanged_total',
      help: 'Deliveries settled without a request: the picture is the one the receiver last acknowledged (news seen again in the polls’ overlap).',
      registers,
    }),
    parkedTotal: new Counter({
      name: 'ossn_pusher_parked_total',
      help: 'Deliveries parked (given up until an operator redelivers them).',
      registers,
    }),
    attemptDuration: new Histogram({
      name: 'ossn_pusher_attempt_duration_seconds',
      help: 'From reading a purchase order’s picture to its receiver’s answer being judged.',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    inFlight: new Gauge({
      name: 'ossn_pusher_requests_in_flight',
      help: 'Requests to receivers sent and not yet answered, in this pusher.',
      registers,
    }),
    fullAnswers: new Counter({
      name: 'ossn_pusher_full_polls_total',
      help: 'Polls whose news filled an answer (5,000 purchase orders): news beyond it is sent only when it changes again.',
      registers,
    }),
    fitted: new Counter({
      name: 'ossn_pusher_fitted_total',
      help: 'Values cut or rounded to fit a pushed notification to the 2.1.0 schema, by field.',
      labelNames: ['field'] as const,
      registers,
    }),
    leasesHeld: new Gauge({
      name: 'ossn_pusher_subscriptions_worked',
      help: 'Subscriptions this pusher holds the lease of.',
      registers,
    }),
    pending: new Gauge({
      name: 'ossn_pusher_pending',
      help: 'Deliveries waiting to be sent, by subscription (read from the store, every pusher alike).',
      labelNames: ['subscription'] as const,
      registers,
    }),
    parked: new Gauge({
      name: 'ossn_pusher_parked',
      help: 'Deliveries parked, by subscription.',
      labelNames: ['subscription'] as const,
      registers,
    }),
    lag: new Gauge({
      name: 'ossn_pusher_lag_seconds',
      help: 'By subscription: now less the time its oldest undelivered news was seen, or its last poll when none waits.',
      labelNames: ['subscription'] as const,
      registers,
    }),
  };
}

export type PusherMetrics = ReturnType<typeof createPusherMetrics>;
