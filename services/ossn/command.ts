import type { ExitCode } from './exit-codes.js';

/** One `ossn` command: its help (printed by `--help`, nothing else done) and what it does. */
export interface Command {
  help: string;
  /** Parses `argv` (parseCommandLine) and does the work; resolves with its exit code (0 when none). */
  run(argv: string[]): Promise<ExitCode | void>;
}
