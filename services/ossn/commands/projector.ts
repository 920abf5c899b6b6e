import { defaultStopTimeoutMs, readProjectorConfig } from '../../config/config.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { createProjectorMetrics } from '../../plumbing/metrics/projector-metrics.js';
import { startFollowingProjector, type FollowingProjector } from '../../projector/follow-active-version.js';
import { serveProjectorOps } from '../projector-ops.js';
import { exitOnSecondSignal } from '../second-signal.js';
import { untilSignal } from '../signals.js';
import { stopWithinDeadline } from '../stop-deadline.js';
import type { Command } from '../command.js';
import { parseCommandLine } from '../command-line.js';

export const projectorCommand: Command = {
  help: `usage: ossn projector

  The projector: reads the event topic (OSSN_TOPIC) in its consumer group (OSSN_CONSUMER_GROUP, by
  default ossn-projector-<topic>-v<READ_MODEL_VERSION>) into the read models, follows \`ossn replay\`'s
  switches, and serves /metrics, /healthz and /readyz on OSSN_METRICS_HOST:OSSN_METRICS_PORT. It
  refuses to join a group whose members read another topic. KAFKA_BROKERS and MONGODB_URI are
  required; every variable is in docs/operations.md (Configuration). Stops after its current batch
  on the first SIGTERM or Ctrl-C.`,
  run: runProjector,
};

async function runProjector(argv: string[]): Promise<void> {
  parseCommandLine({ name: 'projector', options: {} }, argv);
  const config = readProjectorConfig();
  const logger = createLogger('ossn-projector', config.logLevel);
  // Listening from the start: as a container's PID 1 the process would otherwise ignore SIGTERM.
  const stopRequested = untilSignal();
  const metrics = createProjectorMetrics();
  let started: FollowingProjector | undefined;
  // First, so that a port it cannot have ends the command before anything is consumed.
  const probes = await serveProjectorOps(config, () => started, metrics, logger);
  logger.info({ url: probes.url }, 'projector metrics and probes listening');
  const starting = startFollowingProjector(config, logger, { metrics });
  const first = await Promise.race([starting.then((projector) => ({ projector })), stopRequested.then((signal) => ({ signal }))]);
  if ('signal' in first) {
    // Still connecting (Kafka or MongoDB may be away): no batch has been committed by this process,
    // so leaving now loses nothing; waiting for the start could outlast the grace period.
    logger.info({ signal: first.signal }, 'stopping while starting');
    process.exit(0);
  }
  const projector = (started = first.projector);
  const signal = await stopRequested;
  logger.info({ signal }, 'stopping after the current batch');
  exitOnSecondSignal(logger);
  // Bounded whatever MongoDB and Kafka do: a container's grace period ends in SIGKILL.
  const stopTimeoutMs = config.stopTimeoutMs ?? defaultStopTimeoutMs;
  await stopWithinDeadline(stopTimeoutMs, logger, [
    // A probe in flight waits on the store (at most 2 s): the projector's stop need not wait for it.
    ['closing the metrics and probes port', () => probes.close(), stopTimeoutMs * 0.1],
    ['stopping the projector', () => projector.stop()],
  ]);
  // An abandoned step, or a connection it left to a server that does not answer, would hold the process.
  process.exit();
}
