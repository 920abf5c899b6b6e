import type { ProjectorConfig } from '../plumbing/config/config.js';
import type { Logger } from '../plumbing/logging/logger.js';
import type { ProjectorMetrics } from '../plumbing/metrics/projector-metrics.js';
import { startOpsServer } from '../plumbing/ops-port/ops-server.js';
import type { FollowingProjector } from '../projector/follow-active-version.js';

/**
 * The projector's operators' port (OSSN_METRICS_HOST/PORT): /metrics, /healthz, and /readyz once
 * the store answers and the consumer of the active version has joined its group.
 */
export function serveProjectorOps(config: ProjectorConfig, projector: FollowingProjector, metrics: ProjectorMetrics, logger: Logger) {
  return startOpsServer({
    host: config.metricsHost ?? '127.0.0.1',
    port: config.metricsPort ?? 9464,
    registry: metrics.registry,
    logger,
    readinessCheck: async () => {
      await projector.ping();
      if (!projector.joined()) throw new Error(`not (yet) a member of the consumer group of read-model version ${projector.version()}`);
    },
  });
}
