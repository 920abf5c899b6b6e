import { readQueryConfig } from '../../plumbing/config/config.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { startQueryService } from '../../query/server.js';
import { exitOnSecondSignal } from '../second-signal.js';
import { untilSignal } from '../signals.js';
import type { Command } from '../command.js';
import { parseCommandLine } from '../command-line.js';

export const serveCommand: Command = {
  help: `usage: ossn serve

  The query service: partners' SOAP and JSON on HOST:PORT, /metrics, /healthz and /readyz on
  OPS_HOST:OPS_PORT. Configuration from the environment (MONGODB_URI required; see README.md).
  Stops on the first SIGTERM or Ctrl-C.`,
  run: serve,
};

async function serve(argv: string[]): Promise<void> {
  parseCommandLine({ name: 'serve', options: {} }, argv);
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
