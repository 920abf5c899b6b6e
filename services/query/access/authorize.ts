// The one access step of every partner request, SOAP or JSON, 1.0.0 or 2.0.0: the credential
// (the password checked against the store, behind the failed-login guard), then the request
// limit, then the scope, in that order (docs/partners.md, Limits). Reading the login is each
// version's own (fields, Basic auth); what a refusal is answered is ./refusals.ts. Every plugin is
// given the step's parts the same way (AccessOptions) and makes them per request (accessFor).
import type { FastifyRequest } from 'fastify';
import type { Authenticator, Credential, LoginGuard, Scope } from '../../domain/credentials/credential.js';
import { LoginRefused, ScopeRefused } from './refusals.js';

/** The request limit: counts a verified credential before its scope is checked; throws RateLimitedError to refuse. */
export type Admit = (credential: Credential) => void | Promise<void>;

/** The request limit of one request: the plugins' option, made per request so the limit can tell its answer (its headers). */
export type AdmitRequest = (request: FastifyRequest) => Admit;

/** What a request is let in by. */
export interface Access {
  authenticator: Authenticator;
  /** After the credential, before the scope: the rate limit. */
  admit?: Admit | undefined;
  /** Just before a password is checked against the store (see Authenticator.verify). */
  beforePasswordCheck?: LoginGuard | undefined;
}

/** The access step's parts as every version's plugins take them: those that count a request, made per request. */
export interface AccessOptions {
  authenticator: Authenticator;
  /** The rate limit of each request (../rate-limit/rate-limit-headers.ts). */
  admit?: AdmitRequest | undefined;
  /** The failed-login guard of each request; throws RateLimitedError to refuse. */
  beforePasswordCheck?: ((request: FastifyRequest) => LoginGuard) | undefined;
}

/** What `request` is let in by. */
export const accessFor = (options: AccessOptions, request: FastifyRequest): Access => ({
  authenticator: options.authenticator,
  admit: options.admit?.(request),
  beforePasswordCheck: options.beforePasswordCheck?.(request),
});

export interface Login {
  id: string;
  password: string;
}

/** The request's credential; a login not sent (undefined) is refused as a failed one, nothing checked. */
export async function authorize(login: Login | undefined, scope: Scope, access: Access): Promise<Credential> {
  const credential = login === undefined ? undefined : await access.authenticator.verify(login.id, login.password, access.beforePasswordCheck);
  if (!credential) throw new LoginRefused();
  await access.admit?.(credential);
  if (!credential.scopes.includes(scope)) throw new ScopeRefused(scope);
  return credential;
}
