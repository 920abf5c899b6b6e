import { ErrorCodes, OssnError } from '../../contracts/errors/ossn-error.js';

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

/**
 * An abort, by the marks its kinds document: Node's AbortError (timers, child processes given a
 * signal) has code ABORT_ERR; the DOMException of an AbortController aborted without a reason is
 * told by its name, the DOMException standard's discriminator.
 */
export function isAbort(error: unknown): boolean {
  if (error instanceof DOMException) return error.name === 'AbortError';
  return error instanceof Error && (error as NodeJS.ErrnoException).code === 'ABORT_ERR';
}
