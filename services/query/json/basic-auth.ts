// HTTP Basic credentials (RFC 7617): id as user name, password as password.
import type { Authenticator, Credential, LoginGuard, Scope } from '../../domain/credentials/credential.js';
import { BadRequestError, InvalidCredentialsError, MissingCredentialsError, ScopeForbiddenError, tooLong } from './json-errors.js';
import { fieldTooLong } from '../order-queries.js';

export interface BasicLogin {
  id: string;
  password: string;
}

/** The login in an Authorization header; undefined when none is sent; 'malformed' when it cannot be read. */
export function readBasicAuth(header: string | undefined): BasicLogin | 'malformed' | undefined {
  const match = header === undefined ? null : /^basic(?:\s+(.*))?$/is.exec(header.trim());
  if (!match) return undefined;
  const token = (match[1] ?? '').trim();
  if (token === '') return undefined;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token)) return 'malformed';
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  return { id: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

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
