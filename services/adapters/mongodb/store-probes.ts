// The operators' probes of a process that answers from the read models (docs/operations.md, Probes):
// alive while the store answers a ping; ready when, besides, the active read-model version was read
// lately, or a switch by `ossn replay` may have gone unnoticed.
import type { Db } from 'mongodb';
import type { StoreConnection } from './store-connection.js';
import type { SwitchingLookups } from './switching-lookups.js';

/** A probe's ping waits at most this long: a probe that hangs is read as a failure anyway. */
const PING_TIMEOUT_MS = 1_500;
/** The active version is read every second (switching-lookups.ts): ten misses in a row mean trouble. */
const VERSION_READ_WITHIN_MS = 10_000;

export interface StoreProbes {
  healthCheck(): Promise<void>;
  readinessCheck(): Promise<void>;
}

export function storeProbes(store: StoreConnection, db: Db, switching: SwitchingLookups): StoreProbes {
  const ping = async () => void (await db.command({ ping: 1 }, { signal: AbortSignal.timeout(PING_TIMEOUT_MS) }));
  return {
    healthCheck: () => store.whenConnected(ping),
    readinessCheck: () =>
      store.whenConnected(async () => {
        await ping();
        if (!switching.readWithin(VERSION_READ_WITHIN_MS)) throw new Error(`active read-model version not read in the last ${VERSION_READ_WITHIN_MS / 1000} s`);
      }),
  };
}
