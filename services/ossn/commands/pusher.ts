import { readPusherConfig } from '../../config/config.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { startPusher } from '../../pusher/start-pusher.js';
import { exitOnSecondSignal } from '../second-signal.js';
import { untilSignal } from '../signals.js';
import { stopWithinDeadline } from '../stop-deadline.js';
import type { Command } from '../command.js';
import { parseCommandLine } from '../command-line.js';

export const pusherCommand: Command = {
  help: `usage: ossn pusher

  The pusher: sends each enabled push subscription's ship notifications (OSN 2.1.0
  sendAdvanceShipmentNotification) to its receiver, as \`ossn push\` set them up: polls each
  subscription's news every OSSN_PUSH_POLL_INTERVAL_MS, sends each purchase order's latest picture,
  retries and parks as docs/operations.md (Push subscriptions) says. Several may run: each
  subscription is worked by one at a time, through a lease. Serves /metrics, /healthz and /readyz on
  OSSN_PUSHER_METRICS_HOST:OSSN_PUSHER_METRICS_PORT. MONGODB_URI and OSSN_SECRET_KEY (or
  OSSN_SECRET_KEY_FILE) are required; every variable is in docs/operations.md (Configuration).
  Stops on the first SIGTERM or Ctrl-C: requests in flight are cut off and sent again later.`,
  run: runPusher,
};

async function runPusher(argv: string[]): Promise<void> {
  parseCommandLine({ name: 'pusher', options: {} }, argv);
  const config = readPusherConfig();
  const logger = createLogger('ossn-pusher', config.logLevel);
  const stopRequested = untilSignal();
  const running = await startPusher(config, logger);
  logger.info({ url: running.opsUrl }, 'pusher metrics and probes listening');
  const signal = await stopRequested;
  logger.info({ signal }, 'stopping the pusher');
  exitOnSecondSignal(logger);
  await stopWithinDeadline(config.stopTimeoutMs, logger, [['stopping the pusher', () => running.close()]]);
  process.exit();
}
