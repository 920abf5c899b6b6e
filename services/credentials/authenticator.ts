import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Authenticator, Credential } from '../query/ports.js';
import type { CredentialStore } from './credential-store.js';
import { decoyHash, verifyPassword } from './password-hash.js';

export interface CachingAuthenticatorOptions {
  /** How long a verified credential is trusted without asking the store again; a disable takes effect within it. */
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
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

  constructor(
    private readonly store: Pick<CredentialStore, 'find'>,
    options: CachingAuthenticatorOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  async verify(id: string, password: string, beforeCheck?: () => Promise<void>): Promise<Credential | undefined> {
    const digest = createHmac('sha256', this.key).update(id).update('\0').update(password).digest();
    const cached = this.cache.get(id);
    if (cached && cached.expiresAt > this.now() && timingSafeEqual(cached.digest, digest)) return cached.credential;

    // Parallel requests with the same pair (a partner's first polls) share one check: one scrypt,
    // and one guess as far as the failed-login limit is concerned.
    const key = digest.toString('base64');
    const pending = this.checking.get(key);
    if (pending) return pending;
    const check = this.check(id, password, digest, beforeCheck).finally(() => this.checking.delete(key));
    this.checking.set(key, check);
    return check;
  }

  private async check(id: string, password: string, digest: Buffer, beforeCheck?: () => Promise<void>): Promise<Credential | undefined> {
    await beforeCheck?.();
    const stored = await this.store.find(id);
    if (!stored) {
      await verifyPassword(password, await decoyHash);
      return undefined;
    }
    const known = this.cache.get(id);
    const verifiedBefore = known !== undefined && known.passwordHash === stored.passwordHash && timingSafeEqual(known.digest, digest);
    if (!stored.active || !(verifiedBefore || (await verifyPassword(password, stored.passwordHash)))) {
      if (verifiedBefore) this.cache.delete(id);
      return undefined;
    }

    const credential: Credential = { id: stored._id, scopes: stored.scopes, clientIds: stored.clientIds };
    this.cache.delete(id); // re-inserted last: the entry evicted at the bound is the least recently checked
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(id, { digest, credential, expiresAt: this.now() + this.ttlMs, passwordHash: stored.passwordHash });
    return credential;
  }
}
