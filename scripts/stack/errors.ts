import { ErrorCodes, OssnError } from '../../services/errors/ossn-error.js';

/**
 * A failure a person can act on: its message is one line that names the artifact, port, process
 * or log file concerned. The CLI prints it without a stack trace.
 */
export class StackError extends OssnError {
  override readonly name = 'StackError';
  constructor(message: string, options?: ErrorOptions) {
    super(ErrorCodes.STACK_FAILED, message, options);
  }
}

export function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
