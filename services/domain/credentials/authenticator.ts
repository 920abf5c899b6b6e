import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Authenticator, Credential, LoginGuard } from './credential.js';
import { CheckSlots, DEFAULT_CHECK_SLOTS, PasswordChecksBusyError, type CheckSlotOptions } from './check-slots.js';
import type { CredentialDocument, CredentialStore } from '../../adapters/mongodb/credential-store.js';
import { decoyHash, verifyPassword } from './password-hash.js';
import { sentPassword } from './password-rule.js';

export interface CachingAuthenticatorOptions {
  /** How long a verified credential is trusted without asking the store again (counted from the read): any change to it takes effect within it. */
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
  /** The bound on password checks in this process; DEFAULT_CHECK_SLOTS when absent. */
  checkSlots?: CheckSlotOptions;
  /** The scrypt verification (password-hash.ts) unless given: a test counts or holds the checks through it. */
  verifyPassword?: (password: string, hash: string) => Promise<boolean>;
}

interface CacheEntry {
  digest: Buffer;
  credential: Credential;
  expiresAt: number;
  /** The stored hash the pair was verified against: while it is unchanged, the pair needs no second scrypt. */
  passwordHash: string;
}

/**
 * The hashes a credential's password may match at `now`: its own, and the one a reset replaced
 * while the operator's overlap lasts (with its end).
 */
function acceptedHashes(stored: CredentialDocument, now: number): { hash: string; until?: number }[] {
  const until = stored.previousPasswordUntil?.getTime();
  return [
    { hash: stored.passwordHash },
    ...(stored.previousPasswordHash && until !== undefined && until > now ? [{ hash: stored.previousPasswordHash, until }] : []),
  ];
}

/**
 * Verifies id and password against the stored scrypt hash. A successful verification is cached as a
 * keyed digest (never the password) for the TTL; after it, the credential is read from the store
 * again, so a disabled, unlinked or re-scoped credential takes effect within the TTL. Scrypt runs
 * again only when the stored hash changed (a reset password): partners poll about once a minute,
 * longer than the TTL, and one scrypt per poll would make password checks the service's main work.
 * Failures are never cached: each wrong guess pays the full scrypt.
 */
export class CachingAuthenticator implements Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly checking = new Map<string, Promise<Credential | undefined>>();
  private readonly key = randomBytes(32);
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly slots: CheckSlots;
  private readonly verifyPassword: (password: string, hash: string) => Promise<boolean>;

  constructor(
    private readonly store: Pick<CredentialStore, 'find'>,
    options: CachingAuthenticatorOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
    this.slots = new CheckSlots(options.checkSlots ?? DEFAULT_CHECK_SLOTS);
    this.verifyPassword = options.verifyPassword ?? verifyPassword;
  }

  async verify(id: string, sent: string, guard?: LoginGuard): Promise<Credential | undefined> {
    const password = sentPassword(sent);
    // A locked-out address or id learns nothing, whatever the pair: not from the cache, not from a
    // pending check, not from the store.
    await guard?.refuseLocked(id);
    const digest = this.digestOf(id, password);
    const cached = this.cache.get(id);
    if (cached && cached.expiresAt > this.now() && timingSafeEqual(cached.digest, digest)) return cached.credential;

    // Parallel requests with the same pair (a partner's first polls) share one check: one scrypt.
    const key = digest.toString('base64');
    const pending = this.checking.get(key);
    if (pending) return this.join(pending, id, guard);
    const check = this.check(id, password, digest, guard).finally(() => this.checking.delete(key));
    this.checking.set(key, check);
    return check;
  }

  /** One digest per pair: each part is length-prefixed, so no two pairs share one. */
  private digestOf(id: string, password: string): Buffer {
    const hmac = createHmac('sha256', this.key);
    for (const part of [id, password]) hmac.update(`${Buffer.byteLength(part)}:`).update(part);
    return hmac.digest();
  }

  /**
   * A request that joins a pending check of the same pair learns the same answer, so it counts as
   * a failed login too when that check fails: parallel copies of one guess are each a guess. It
   * reserves nothing beforehand, so that a partner's parallel first polls are not refused.
   */
  private async join(check: Promise<Credential | undefined>, id: string, guard?: LoginGuard): Promise<Credential | undefined> {
    const credential = await check;
    // Counted even where the window is used up (then the answer stays 401: the check was made).
    if (!credential) await guard?.reserve(id).catch(() => undefined);
    return credential;
  }

  /**
   * The check of a pair the cache does not answer. One verified before against the same stored
   * hash is renewed from the store read alone: no scrypt and no failed login reserved, so a
   * partner polling less often than the TTL is never taken for a guesser.
   * Otherwise one failed login is reserved before the password is hashed (RateLimitedError from
   * `guard.reserve`: nothing is hashed) and given back only when the check finds the credential: a
   * request aborted or timed out meanwhile stays counted. A login refused as busy hashed nothing.
   */
  private async check(id: string, password: string, digest: Buffer, guard?: LoginGuard): Promise<Credential | undefined> {
    // The TTL counts from the read, not from the end of the check: a change made while the store
    // answers or scrypt runs must still show within the TTL (docs/operations.md: the 30 s rule).
    const known = this.cache.get(id);
    const renewable = known !== undefined && timingSafeEqual(known.digest, digest);
    // Any other pair reserves first: a locked-out guesser costs not even a store read.
    let giveBack = renewable ? undefined : await guard?.reserve(id);
    const readAt = this.now();
    const stored = await this.store.find(id);
    const accepted = stored ? acceptedHashes(stored, readAt) : [];
    const still = renewable ? accepted.find((a) => a.hash === known.passwordHash) : undefined;
    if (renewable && stored && still) {
      if (stored.active) return this.remember(stored, digest, readAt, still);
      this.cache.delete(id);
      return undefined;
    }
    giveBack ??= await guard?.reserve(id); // a renewable pair whose password was reset: hashed again
    let matched: { hash: string; until?: number } | undefined;
    try {
      // An unknown id costs the same scrypt as a known one; an old password in its overlap, a second.
      for (const candidate of accepted.length > 0 ? accepted : [{ hash: await decoyHash }]) {
        if (await this.hashing(() => this.verifyPassword(password, candidate.hash))) {
          matched = candidate;
          break;
        }
      }
    } catch (error) {
      if (error instanceof PasswordChecksBusyError) giveBack?.();
      throw error;
    }
    if (!stored?.active || !matched) return undefined;
    giveBack?.();
    return this.remember(stored, digest, readAt, matched);
  }

  /** Caches the pair, no longer than the overlap of the old password it matched lasts. */
  private remember(stored: CredentialDocument, digest: Buffer, readAt: number, matched: { hash: string; until?: number }): Credential {
    const credential: Credential = { id: stored._id, scopes: stored.scopes, clientIds: stored.clientIds };
    this.cache.delete(stored._id); // re-inserted last: the entry evicted at the bound is the least recently checked
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(stored._id, { digest, credential, expiresAt: Math.min(readAt + this.ttlMs, matched.until ?? Infinity), passwordHash: matched.hash });
    return credential;
  }

  /** Scrypt, in one of the process's slots (PasswordChecksBusyError when none comes soon). */
  private async hashing(verify: () => Promise<boolean>): Promise<boolean> {
    const release = await this.slots.acquire();
    try {
      return await verify();
    } finally {
      release();
    }
  }
}
