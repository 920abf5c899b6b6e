// A partner's credential as the query service sees it, and how it is verified (authenticator.ts).
import type { Scope } from '../../adapters/mongodb/credential-store.js';

// What a credential may ask is what the store keeps of it.
export type { Scope };

export interface Credential {
  id: string;
  scopes: Scope[];
  clientIds: string[];
}

/** Gives a failed-login reservation back; never throws. */
export type GiveBackLogin = () => void;

/** The failed-login limit as the authenticator sees it, for one request (its source address). */
export interface LoginGuard {
  /**
   * Throws (RateLimitedError) while the address or `id` has used up its failed logins: checked
   * before anything else, so that no password, right or wrong, verified before or not, gets
   * another answer while locked out. Takes nothing.
   */
  refuseLocked(id: string): Promise<void>;
  /**
   * Reserves one failed login for a password check of `id` (throws RateLimitedError when none is
   * left); the authenticator gives it back only when that check found the credential.
   */
  reserve(id: string): Promise<GiveBackLogin>;
}

export interface Authenticator {
  /**
   * The credential when id and password match an active one; undefined otherwise (never says which
   * part was wrong). `guard.refuseLocked` runs (and may throw) first, for every login;
   * `guard.reserve` runs (and may throw) before the password is checked against the store, not for
   * a pair verified moments ago; the reservation is kept unless the check returns a credential, so
   * an aborted, timed-out or failed request stays counted as a guess.
   */
  verify(id: string, password: string, guard?: LoginGuard): Promise<Credential | undefined>;
}
