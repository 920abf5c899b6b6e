// The credentials a pusher's workers push for (docs/design/osn-2.1.0.md §2: a subscription pushes
// only while its credential is active, has the osn scope and is linked to the client), read for
// all of them at once and kept at most `maxAgeMs`: one read per poll interval for every
// subscription, where each worker read its own every round. A change to a credential is seen by
// every poll that starts `maxAgeMs` after it or later.
import type { CredentialLinks } from './push-targets.js';

export interface CredentialCacheOptions {
  /** How long a read answers finds (the pusher's poll interval). */
  maxAgeMs: number;
  /** Reads these credentials; those absent from the answer are gone. */
  read(ids: readonly string[]): Promise<Map<string, CredentialLinks>>;
  now?: () => number;
}

/** Settles as `promise` does, or rejects with the signal's reason once it aborts (the read goes on for the others). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export class CredentialCache {
  private readonly wanted = new Set<string>();
  private entries = new Map<string, CredentialLinks>();
  /** The ids the last read asked for, and when it started (a change after that start is not in it). */
  private readIds = new Set<string>();
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: CredentialCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The credential as read at most `maxAgeMs` before this call; undefined when it is gone. */
  async find(id: string, signal?: AbortSignal): Promise<CredentialLinks | undefined> {
    const oldest = this.now() - this.options.maxAgeMs;
    // At most two reads: one begun after this call asks for the id (asked again each time, as a
    // look may have let it go meanwhile).
    while (!(this.readIds.has(id) && this.readAt > oldest)) {
      this.wanted.add(id);
      this.reading ??= this.readWanted().finally(() => (this.reading = undefined));
      await untilAborted(this.reading, signal);
    }
    return this.entries.get(id);
  }

  /** Forgets the credentials not among these (subscriptions removed or disabled). */
  retain(ids: ReadonlySet<string>): void {
    for (const id of this.wanted) if (!ids.has(id)) this.wanted.delete(id);
  }

  private async readWanted(): Promise<void> {
    const ids = [...this.wanted];
    const startedAt = this.now();
    const entries = await this.options.read(ids);
    this.entries = entries;
    this.readIds = new Set(ids);
    this.readAt = startedAt;
  }
}
