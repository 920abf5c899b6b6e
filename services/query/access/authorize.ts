// The one access step of every partner request, SOAP or JSON, 1.0.0 or 2.0.0: the credential
// (the password checked against the store, behind the failed-login guard), then the request
// limit, then the scope, in that order (docs/partners.md, Limits). Reading the login is each
// version's own (fields, Basic auth); what a refusal is answered is ./refusals.ts.
import type { Authenticator, Credential, LoginGuard, Scope } from '../../domain/credentials/credential.js';
import { LoginRefused, ScopeRefused } from './refusals.js';

/** What a request is let in by. */
export interface Access {
  authenticator: Authenticator;
  /** After the credential, before the scope: the rate limit (throws RateLimitedError). */
  admit?: ((credential: Credential) => void | Promise<void>) | undefined;
  /** Just before a password is checked against the store (see Authenticator.verify). */
  beforePasswordCheck?: LoginGuard | undefined;
}

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
