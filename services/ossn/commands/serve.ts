import { readQueryConfig } from '../../plumbing/config/config.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { startQueryService } from '../../query/server.js';
import { exitOnSecondSignal } from '../second-signal.js';
import { untilSignal } from '../signals.js';

export async function serveCommand(): Promise<void> {
  const config = readQueryConfig();
  const logger = createLogger('ossn-query', config.logLevel);
  // Listening from the start: as a container's PID 1 the process would otherwise ignore SIGTERM.
  const stopRequested = untilSignal();
  const service = await startQueryService(config, logger);
  logger.info({ url: service.url, opsUrl: service.opsUrl, publicBaseUrl: config.publicBaseUrl }, 'query service listening');
  await stopRequested;
  exitOnSecondSignal(logger);
  await service.close();
}
