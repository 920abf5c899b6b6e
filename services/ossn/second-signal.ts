import { constants } from 'node:os';
import type { Logger } from '../plumbing/logging/logger.js';
import { untilSignal } from './signals.js';

/**
 * Call once a stop has begun: a second SIGINT or SIGTERM then ends the process at once, with the
 * shell's code for death by that signal. Without a handler, a container's PID 1 ignores SIGTERM,
 * so an operator could not end a stop that waits on a server away.
 */
export function exitOnSecondSignal(logger: Logger): void {
  void untilSignal().then((signal) => {
    logger.warn({ signal }, 'second stop signal: exiting at once');
    process.exit(128 + constants.signals[signal]);
  });
}
