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
}

/**
 * Verifies id and password against the stored scrypt hash. A successful verification is cached
 * briefly as a keyed digest (never the password), so a partner polling all day costs one scrypt per
 * TTL, not one per request. Failures are never cached: each wrong guess pays the full scrypt.
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

    // Every request that waits for a check reserves a failed login, one that joins a pending check
    // included: otherwise parallel copies of one guess would each learn its answer for free.
    const giveBack = await reserve?.(id);
    // Parallel requests with the same pair (a partner's first polls) share one check: one scrypt.
    // A check needs one of the process's slots first (PasswordChecksBusyError when none comes soon).
    const key = digest.toString('base64');
    let check = this.checking.get(key);
    if (!check) {
      check = (async () => {
        const release = await this.slots.acquire();
        try {
          return await this.check(id, password, digest);
        } finally {
          release();
        }
      })().finally(() => this.checking.delete(key));
      this.checking.set(key, check);
    }
    // Decided by the check's own result, not by what became of the request: a request aborted or
    // timed out while its check runs keeps its reservation unless the check finds the credential.
    // A login refused as busy checked nothing, so it is no guess either.
    void check.then(
      (credential) => credential && giveBack?.(),
      (error: unknown) => error instanceof PasswordChecksBusyError && giveBack?.(),
    );
    return check;
  }

  private async check(id: string, password: string, digest: Buffer): Promise<Credential | undefined> {
    // The TTL counts from the read, not from the end of the check: a change made while the store
    // answers or scrypt runs must still show within the TTL (the README's 30 s).
    const readAt = this.now();
    const stored = await this.store.find(id);
    if (!stored) {
      await verifyPassword(password, await decoyHash);
      return undefined;
    }
    if (!(await verifyPassword(password, stored.passwordHash)) || !stored.active) return undefined;

    const credential: Credential = { id: stored._id, scopes: stored.scopes, clientIds: stored.clientIds };
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(id, { digest, credential, expiresAt: readAt + this.ttlMs });
    return credential;
  }
}
