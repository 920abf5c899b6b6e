import { readQueryConfig } from '../../config/config.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { startQueryService } from '../../query/server.js';
import { exitOnSecondSignal } from '../second-signal.js';
import { untilSignal } from '../signals.js';
import type { Command } from '../command.js';
import { parseCommandLine } from '../command-line.js';
import { stopWithinDeadline } from '../stop-deadline.js';

export const serveCommand: Command = {
  help: `usage: ossn serve

  The query service: partners' SOAP and JSON on HOST:PORT, /metrics, /healthz and /readyz on
  OPS_HOST:OPS_PORT. Configuration from the environment, MONGODB_URI required; every variable is in
  docs/operations.md (Configuration). Stops on the first SIGTERM or Ctrl-C.`,
  run: serve,
};

async function serve(argv: string[]): Promise<void> {
  parseCommandLine({ name: 'serve', options: {} }, argv);
  const config = readQueryConfig();
  const logger = createLogger('ossn-query', config.logLevel);
  // Listening from the start: as a container's PID 1 the process would otherwise ignore SIGTERM.
  const stopRequested = untilSignal();
  const starting = startQueryService(config, logger);
  const first = await Promise.race([starting.then((service) => ({ service })), stopRequested.then((signal) => ({ signal }))]);
  if ('signal' in first) {
    // Still starting (waiting a moment for the store): nothing is served yet, so nothing is lost.
    logger.info({ signal: first.signal }, 'stopping while starting');
    process.exit(0);
  }
  const { service } = first;
  logger.info({ url: service.url, opsUrl: service.opsUrl, publicBaseUrl: config.publicBaseUrl }, 'query service listening');
  const signal = await stopRequested;
  logger.info({ signal }, 'stopping');
  exitOnSecondSignal(logger);
  // Bounded whatever MongoDB, Redis and partners' connections do: a container's grace period ends in SIGKILL.
  await stopWithinDeadline(config.stopTimeoutMs, logger, [['closing the query service', () => service.close()]]);
  process.exit();
}
