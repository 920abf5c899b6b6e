// Shared by both protocol layers: the SOAP plugin answers it with a soap:Server fault, the JSON
// plugin with {"error":"Rate limit exceeded"}; both send HTTP 429 and Retry-After.
import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';

/** A request refused by a limit; Retry-After is this many whole seconds. */
export class RateLimitedError extends OssnError {
  override readonly name = 'RateLimitedError';
  constructor(readonly retryAfterSeconds: number) {
    super(ErrorCodes.RATE_LIMITED, 'Rate limit exceeded');
  }
}

/** Whole seconds until `ms` from now, at least 1 (Retry-After 0 would invite an immediate retry). */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
