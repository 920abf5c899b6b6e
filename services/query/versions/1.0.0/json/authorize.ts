// The 1.0.0 JSON routes' login: HTTP Basic credentials, then the checks of the SOAP operations.
import type { Authenticator, Credential, LoginGuard, Scope } from '../../../../domain/credentials/credential.js';
import { readBasicAuth } from '../../../protocol/json/basic-auth.js';
import { BadRequestError, InvalidCredentialsError, MissingCredentialsError, ScopeForbiddenError, tooLong } from './json-errors.js';
import { fieldTooLong } from '../../../order-queries.js';

export interface AuthorizeOptions {
  authenticator: Authenticator;
  /** After authentication, before the scope check (as on the SOAP side): the rate limit. */
  beforeLookup?: ((credential: Credential) => void | Promise<void>) | undefined;
  /** Just before a password is checked against the store (see Authenticator.verify). */
  beforePasswordCheck?: LoginGuard | undefined;
}

/** Same order of checks as the SOAP operations: credential, rate limit, scope. */
export async function authorize(header: string | undefined, scope: Scope, options: AuthorizeOptions): Promise<Credential> {
  const login = readBasicAuth(header);
  if (login === undefined) throw new MissingCredentialsError();
  if (login === 'malformed') throw new InvalidCredentialsError();
  for (const field of ['id', 'password'] as const) {
    if (fieldTooLong(login[field])) throw new BadRequestError(tooLong(field, 'Credential field'));
  }
  const credential = await options.authenticator.verify(login.id, login.password, options.beforePasswordCheck);
  if (!credential) throw new InvalidCredentialsError();
  await options.beforeLookup?.(credential);
  if (!credential.scopes.includes(scope)) throw new ScopeForbiddenError(scope);
  return credential;
}
