import { readQueryConfig } from '../../config/config.js';
import { createLogger } from '../../logging/logger.js';
import { startQueryService } from '../../query/server.js';
import { untilSignal } from '../signals.js';

export async function serveCommand(): Promise<void> {
  const config = readQueryConfig();
  const logger = createLogger('ossn-query', config.logLevel);
  const service = await startQueryService(config, logger);
  logger.info({ url: service.url, publicBaseUrl: config.publicBaseUrl }, 'query service listening');
  await untilSignal();
  await service.close();
}
