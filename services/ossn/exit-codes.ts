import { ConfigError } from '../config/env.js';
import { UsageError } from './usage.js';

/**
 * The exit codes of every `ossn` command, the one table scripts can rely on (docs/operations.md,
 * "The `ossn` command line", lists it; exit-codes.test.ts keeps the two equal).
 */
export const ExitCode = {
  /** Everything asked was done (`--help` and `--version` included). */
  ok: 0,
  /** It failed: a server away or refusing, a missing file, an unknown id, a check that found trouble (`ossn status`). */
  failure: 1,
  /** A mistake in the command line or in the environment's settings: nothing was done. */
  usage: 2,
  /** Partly done: some of the input was refused, the rest done (`publish`, `dlq redrive`). */
  partial: 3,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit code of a command that ended by throwing `error`. */
export function exitCodeFor(error: unknown): ExitCode {
  return error instanceof UsageError || error instanceof ConfigError ? ExitCode.usage : ExitCode.failure;
}
