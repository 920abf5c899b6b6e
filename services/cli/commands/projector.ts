import { readProjectorConfig } from '../../config/config.js';
import { createLogger } from '../../logging/logger.js';
import { startProjector } from '../../projector/run.js';
import { untilSignal } from '../signals.js';

export async function projectorCommand(): Promise<void> {
  const config = readProjectorConfig();
  const logger = createLogger('ossn-projector', config.logLevel);
  // Listening before the start: a SIGTERM while connecting stops the projector as soon as it runs.
  const stopRequested = untilSignal();
  const projector = await startProjector(config, logger);
  const signal = await stopRequested;
  logger.info({ signal }, 'stopping after the current batch');
  await projector.stop();
}
