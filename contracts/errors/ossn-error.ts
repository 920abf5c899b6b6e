import type { ErrorCode } from './codes.js';

export { ErrorCodes, type ErrorCode } from './codes.js';

/**
 * An error of ours: a stable `code` (an own, enumerable property, so logs show it) and the
 * standard `cause` when it wraps another error.
 */
export class OssnError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Whether `error` is one of ours with this code. */
export function hasCode(error: unknown, code: ErrorCode): boolean {
  return error instanceof OssnError && error.code === code;
}
