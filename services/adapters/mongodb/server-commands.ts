// Questions to the store's server itself, not to a collection.
import type { StoreDatabase } from './connect.js';

/** Resolves once the server answers a ping. */
export async function pingStore(db: StoreDatabase): Promise<void> {
  await db.command({ ping: 1 });
}

/** The database server's clock, which stamps every change and visible time. */
export async function databaseTime(db: StoreDatabase): Promise<Date> {
  const { localTime } = (await db.command({ hello: 1 })) as { localTime: Date };
  return localTime;
}
