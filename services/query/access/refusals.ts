// The refusals of the access step (./authorize.ts), whatever the protocol: busy (the password
// checks at their bound), rate-limited (the request limit, or a login locked out after failures),
// a failed login, a scope not granted. Each protocol and version answers each kind its own way
// (RefusalAnswers); which kind an error is, and the one log line of a busy refusal, are decided here.
import type { FastifyRequest } from 'fastify';
import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';
import { PasswordChecksBusyError } from '../../domain/credentials/check-slots.js';
import type { Scope } from '../../domain/credentials/credential.js';
import { RateLimitedError } from '../rate-limit/rate-limited-error.js';

/** An unknown id, a wrong password, or no login to check. Counted as a failed login by its code. */
export class LoginRefused extends OssnError {
  override readonly name = 'LoginRefused';
  constructor() {
    super(ErrorCodes.LOGIN_INVALID, 'Invalid id or password');
  }
}

export class ScopeRefused extends OssnError {
  override readonly name = 'ScopeRefused';
  constructor(readonly scope: Scope) {
    super(ErrorCodes.SCOPE_FORBIDDEN, `Credential not permitted for scope: ${scope}`);
  }
}

export type Refusal =
  | { kind: 'busy' }
  | { kind: 'rateLimited'; retryAfterSeconds: number }
  | { kind: 'loginFailed' }
  | { kind: 'forbidden'; scope: Scope };

/** How one protocol and version answers each refusal. */
export type RefusalAnswers<A> = { [K in Refusal['kind']]: (refusal: Extract<Refusal, { kind: K }>) => A };

/** The refusal `error` is, or undefined for any other error. */
export function refusalOf(error: unknown, request: FastifyRequest): Refusal | undefined {
  if (error instanceof PasswordChecksBusyError) {
    // Debug only: a flood would otherwise write a line per refused login, which is what the bound is there to absorb.
    request.log.debug('password checks at their bound: login refused as busy');
    return { kind: 'busy' };
  }
  if (error instanceof RateLimitedError) return { kind: 'rateLimited', retryAfterSeconds: error.retryAfterSeconds };
  if (error instanceof LoginRefused) return { kind: 'loginFailed' };
  if (error instanceof ScopeRefused) return { kind: 'forbidden', scope: error.scope };
  return undefined;
}

/** `error` answered as the refusal it is, or undefined when it is none. */
export function answerRefusal<A>(error: unknown, request: FastifyRequest, answers: RefusalAnswers<A>): A | undefined {
  const refusal = refusalOf(error, request);
  if (refusal === undefined) return undefined;
  // Each kind goes to its own answer; the cast only joins the union back to the mapped type.
  return (answers[refusal.kind] as (r: Refusal) => A)(refusal);
}
