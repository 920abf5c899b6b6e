import { Counter, Gauge, Histogram } from 'prom-client';
import { serviceRegistry } from './service-registry.js';

/** The projector's metrics, in a registry of their own, served on the projector's metrics port. */
export function createProjectorMetrics() {
  const registry = serviceRegistry();
  const registers = [registry];
  return {
    registry,
    eventsApplied: new Counter({
      name: 'ossn_projector_events_applied_total',
      help: 'Events that changed a read model.',
      registers,
    }),
    eventsSkipped: new Counter({
      name: 'ossn_projector_events_skipped_total',
      help: 'Events that changed nothing by the sequence rule, by reason: duplicate (the sequence already applied) or stale (below it).',
      labelNames: ['reason'] as const,
      registers,
    }),
    deadLetters: new Counter({
      name: 'ossn_projector_dead_letters_total',
      help: 'Events sent to the dead-letter topic, by reason (not-json, schema, unknown-type, unknown-schema-version, wrong-key, rejected).',
      labelNames: ['reason'] as const,
      registers,
    }),
    batchDuration: new Histogram({
      name: 'ossn_projector_batch_duration_seconds',
      help: 'Time to project one batch (one partition), retries included.',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    freshness: new Histogram({
      name: 'ossn_projector_freshness_seconds',
      help: 'Time from an event’s publication (its Kafka timestamp) to its change being visible in the read models.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    }),
    consumerLag: new Gauge({
      name: 'ossn_projector_consumer_lag_messages',
      help: 'Messages of the event topic not yet committed by the projector’s consumer group, by partition.',
      labelNames: ['partition'] as const,
      registers,
    }),
    activeVersion: new Gauge({
      name: 'ossn_projector_read_model_version',
      help: 'The read-model version the projector keeps current (the active version it follows).',
      registers,
    }),
  };
}

export type ProjectorMetrics = ReturnType<typeof createProjectorMetrics>;
