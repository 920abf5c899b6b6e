import type { ReadModelCollections } from './documents.js';

/** Every sales order with a document in the version (either read model), read from the _id indexes alone. */
export async function documentIds(collections: ReadModelCollections): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const collection of [collections.orderStatus, collections.shipments] as const) {
    const cursor = collection.find({}, { projection: { _id: 1 }, hint: { _id: 1 } });
    for await (const { _id } of cursor) ids.add(_id);
  }
  return ids;
}
