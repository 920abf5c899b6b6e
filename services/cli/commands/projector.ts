import { readProjectorConfig } from '../../config/config.js';
import { createLogger } from '../../logging/logger.js';
import { startProjector } from '../../projector/run.js';
import { exitOnSecondSignal } from '../second-signal.js';
import { untilSignal } from '../signals.js';

export async function projectorCommand(): Promise<void> {
  const config = readProjectorConfig();
  const logger = createLogger('ossn-projector', config.logLevel);
  // Listening from the start: as a container's PID 1 the process would otherwise ignore SIGTERM.
  const stopRequested = untilSignal();
  const starting = startProjector(config, logger);
  const first = await Promise.race([starting.then((projector) => ({ projector })), stopRequested.then((signal) => ({ signal }))]);
  if ('signal' in first) {
    // Still connecting (Kafka or MongoDB may be away): no batch has been committed by this process,
    // so leaving now loses nothing; waiting for the start could outlast the grace period.
    logger.info({ signal: first.signal }, 'stopping while starting');
    process.exit(0);
  }
  const signal = await stopRequested;
  logger.info({ signal }, 'stopping after the current batch');
  exitOnSecondSignal(logger);
  await first.projector.stop();
}
