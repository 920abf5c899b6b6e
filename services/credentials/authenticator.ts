import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Authenticator, Credential, ReserveLogin } from '../query/ports.js';
import { CheckSlots, DEFAULT_CHECK_SLOTS, PasswordChecksBusyError, type CheckSlotOptions } from './check-slots.js';
import type { CredentialStore } from './credential-store.js';
import { decoyHash, verifyPassword } from './password-hash.js';

export interface CachingAuthenticatorOptions {
  /** How long a verified credential is trusted without asking the store again (counted from the read): any change to it takes effect within it. */
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
  /** The bound on password checks in this process; DEFAULT_CHECK_SLOTS when absent. */
  checkSlots?: CheckSlotOptions;
}

interface CacheEntry {
  digest: Buffer;
  credential: Credential;
  expiresAt: number;
  /** The stored hash the pair was verified against: while it is unchanged, the pair needs no second scrypt. */
  passwordHash: string;
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

  constructor(
    private readonly store: Pick<CredentialStore, 'find'>,
    options: CachingAuthenticatorOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
    this.slots = new CheckSlots(options.checkSlots ?? DEFAULT_CHECK_SLOTS);
  }

  async verify(id: string, password: string, reserve?: ReserveLogin): Promise<Credential | undefined> {
    const digest = createHmac('sha256', this.key).update(id).update('\0').update(password).digest();
    const cached = this.cache.get(id);
    if (cached && cached.expiresAt > this.now() && timingSafeEqual(cached.digest, digest)) return cached.credential;

    // Parallel requests with the same pair (a partner's first polls) share one check: one scrypt.
    const key = digest.toString('base64');
    const pending = this.checking.get(key);
    if (pending) return this.join(pending, id, reserve);
    const check = this.reservedCheck(id, password, digest, reserve).finally(() => this.checking.delete(key));
    this.checking.set(key, check);
    return check;
  }

  /**
   * The check of a new pair, with one failed login reserved before it (RateLimitedError from
   * `reserve`: nothing is checked). The reservation is decided by the check's own result, not by
   * what became of the request: a request aborted or timed out while its check runs stays counted
   * unless the check finds the credential. A login refused as busy checked nothing: no guess.
   */
  private async reservedCheck(id: string, password: string, digest: Buffer, reserve?: ReserveLogin): Promise<Credential | undefined> {
    const giveBack = await reserve?.(id);
    try {
      const credential = await this.check(id, password, digest);
      if (credential) giveBack?.();
      return credential;
    } catch (error) {
      if (error instanceof PasswordChecksBusyError) giveBack?.();
      throw error;
    }
  }

  /**
   * A request that joins a pending check of the same pair learns the same answer, so it counts as
   * a failed login too when that check fails: parallel copies of one guess are each a guess. It
   * reserves nothing beforehand, so that a partner's parallel first polls are not refused.
   */
  private async join(check: Promise<Credential | undefined>, id: string, reserve?: ReserveLogin): Promise<Credential | undefined> {
    const credential = await check;
    // Counted even where the window is used up (then the answer stays 401: the check was made).
    if (!credential) await reserve?.(id).catch(() => undefined);
    return credential;
  }

  private async check(id: string, password: string, digest: Buffer): Promise<Credential | undefined> {
    // The TTL counts from the read, not from the end of the check: a change made while the store
    // answers or scrypt runs must still show within the TTL (the README's 30 s).
    const readAt = this.now();
    const stored = await this.store.find(id);
    if (!stored) {
      const decoy = await decoyHash;
      await this.hashing(() => verifyPassword(password, decoy));
      return undefined;
    }
    const known = this.cache.get(id);
    const verifiedBefore = known !== undefined && known.passwordHash === stored.passwordHash && timingSafeEqual(known.digest, digest);
    if (!stored.active || !(verifiedBefore || (await this.hashing(() => verifyPassword(password, stored.passwordHash))))) {
      if (verifiedBefore) this.cache.delete(id);
      return undefined;
    }

    const credential: Credential = { id: stored._id, scopes: stored.scopes, clientIds: stored.clientIds };
    this.cache.delete(id); // re-inserted last: the entry evicted at the bound is the least recently checked
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(id, { digest, credential, expiresAt: readAt + this.ttlMs, passwordHash: stored.passwordHash });
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
