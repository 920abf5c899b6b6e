/**
 * A failure a person can act on: its message is one line that names the artifact, port, process
 * or log file concerned. The CLI prints it without a stack trace.
 */
export class StackError extends Error {
  override readonly name = 'StackError';
}

export function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
