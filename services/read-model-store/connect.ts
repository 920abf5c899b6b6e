import { MongoClient } from 'mongodb';

/**
 * A MongoDB client for the read models. `ignoreUndefined` keeps absent optional fields absent
 * (the driver would otherwise store them as null, which no answer may carry).
 */
export async function connectMongo(uri: string, appName: string): Promise<MongoClient> {
  const client = new MongoClient(uri, { ignoreUndefined: true, appName, serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  return client;
}

/** A client that connects on its first operation and gives up selecting a server after `timeoutMs`: for a report that must show the rest when the store is away. */
export function lazyMongo(uri: string, appName: string, timeoutMs: number): MongoClient {
  return new MongoClient(uri, { ignoreUndefined: true, appName, serverSelectionTimeoutMS: timeoutMs });
}
