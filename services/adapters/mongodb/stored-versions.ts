// The read-model versions whose collections the store holds, and dropping one of them.
import type { StoreDatabase } from './connect.js';
import { collectionNames } from './documents.js';

/** Versions that have read-model collections in the store. */
export async function storedVersions(db: StoreDatabase): Promise<number[]> {
  const names = await db.listCollections({}, { nameOnly: true }).toArray();
  return names.flatMap(({ name }) => {
    const match = /^order_status_v(\d+)$/.exec(name);
    return match ? [Number(match[1])] : [];
  });
}

/** Drops the read-model collections of `version` that exist. */
export async function dropVersionCollections(db: StoreDatabase, version: number): Promise<void> {
  const names = collectionNames(version);
  const existing = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  for (const name of [names.orderStatus, names.shipments]) if (existing.has(name)) await db.dropCollection(name);
}
