import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';

type DeadlineCode = typeof ErrorCodes.DEADLINE_EXCEEDED | typeof ErrorCodes.STORE_TIMEOUT;

/** Work that did not end within its deadline: `<what> took longer than <ms> ms`. */
export class DeadlineExceededError extends OssnError {
  constructor(what: string, ms: number, code: DeadlineCode = ErrorCodes.DEADLINE_EXCEEDED) {
    super(code, `${what} took longer than ${ms} ms`);
  }
}

/**
 * `work`, or a DeadlineExceededError naming `what` (with `code`) once `ms` have passed (the work
 * itself is left to finish or fail unobserved).
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string, code?: DeadlineCode): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceededError(what, ms, code)), ms);
  });
  work.catch(() => undefined); // a late failure must not become an unhandled rejection
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
