import type { Authenticator, Credential, LoginGuard } from './credential.js';
import type { CredentialStore } from '../../adapters/mongodb/credential-store.js';
import type { Logger } from '../../plumbing/logging/logger.js';

/** A credential's use is written at most this often per query service: the store sees one write a minute per partner, not one per request. */
export const lastUseEveryMs = 60_000;

/**
 * An authenticator that notes when each credential last let a partner in (for `ossn credentials
 * list`): at most once per `everyMs` per credential, the write not awaited, so the request never
 * waits for it and a store away costs it nothing (the write is tried again a minute later).
 */
export class RecordingLastUse implements Authenticator {
  private readonly written = new Map<string, number>();

  constructor(
    private readonly inner: Authenticator,
    private readonly store: Pick<CredentialStore, 'recordUse'>,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly everyMs = lastUseEveryMs,
    private readonly maxEntries = 10_000,
  ) {}

  async verify(id: string, password: string, guard?: LoginGuard): Promise<Credential | undefined> {
    const credential = await this.inner.verify(id, password, guard);
    if (credential) this.note(credential.id);
    return credential;
  }

  private note(id: string): void {
    const now = this.now();
    const last = this.written.get(id);
    if (last !== undefined && now - last < this.everyMs) return;
    this.written.delete(id); // re-inserted last: the entry dropped at the bound is the one written longest ago
    if (this.written.size >= this.maxEntries) this.written.delete(this.written.keys().next().value as string);
    this.written.set(id, now);
    this.store.recordUse(id, new Date(now)).catch((error: unknown) => {
      this.logger.warn({ err: error }, "could not record a credential's last use; tried again a minute later");
    });
  }
}
