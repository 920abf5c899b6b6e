import type { ProjectorConfig } from '../config/config.js';
import type { Logger } from '../plumbing/logging/logger.js';
import type { ProjectorMetrics } from '../plumbing/metrics/projector-metrics.js';
import { startOpsServer } from '../plumbing/ops-port/ops-server.js';
import type { FollowingProjector } from '../projector/follow-active-version.js';

/**
 * The projector's operators' port (OSSN_METRICS_HOST/PORT): /metrics, /healthz, and /readyz once
 * the projector has started (`projector()` gives it), the store answers and the consumer of the
 * active version has joined its group. Bound before the projector starts: a port that cannot be
 * had ends the command before anything is consumed (PortUnavailableError).
 */
export function serveProjectorOps(config: ProjectorConfig, projector: () => FollowingProjector | undefined, metrics: ProjectorMetrics, logger: Logger) {
  return startOpsServer({
    host: config.metricsHost ?? '127.0.0.1',
    port: config.metricsPort ?? 9464,
    variables: { host: 'OSSN_METRICS_HOST', port: 'OSSN_METRICS_PORT' },
    registry: metrics.registry,
    logger,
    readinessCheck: async () => {
      const started = projector();
      if (!started) throw new Error('the projector is starting');
      await started.ping();
      if (!started.joined()) throw new Error(`not (yet) a member of the consumer group of read-model version ${started.version()}`);
    },
  });
}
