// The read-model versions whose collections the store holds, and dropping one of them.
import { MongoAPIError, type Collection, type Document } from 'mongodb';
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

/**
 * Throws unless `collection` is still stored. A read of a collection dropped while it runs (`ossn
 * replay --drop-previous` dropping the version it reads) finds nothing and says nothing: a long
 * read confirms after its last read that what it read from was not dropped meanwhile. A dropped
 * version is never stored again under its number (a replay builds into the first version above
 * the active one and every stored one, and the active version only grows), so "still stored"
 * means "never dropped".
 */
export async function confirmStillStored<T extends Document>(collection: Collection<T>): Promise<void> {
  try {
    // Throws when the collection is not stored (the driver's own listCollections by name).
    await collection.options();
  } catch (error) {
    if (error instanceof MongoAPIError) throw new Error(`${collection.collectionName} was dropped while it was read (ossn replay --drop-previous): the answer is abandoned`, { cause: error });
    throw error;
  }
}
