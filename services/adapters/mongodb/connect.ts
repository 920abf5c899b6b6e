import { MongoClient } from 'mongodb';

export interface MongoClientOptions {
  /**
   * The longest one round trip to the server may take: choosing the server, waiting for a pooled
   * connection, connecting, and each read of an answer. A frozen or absent server then fails the
   * operation within it instead of holding it. (The driver's own `timeoutMS` has no effect in 7.x.)
   */
  deadlineMs?: number;
}

/**
 * A MongoDB client for the read models, not yet connected. `ignoreUndefined` keeps absent optional
 * fields absent (the driver would otherwise store them as null, which no answer may carry).
 */
export function createMongoClient(uri: string, appName: string, options: MongoClientOptions = {}): MongoClient {
  const { deadlineMs } = options;
  return new MongoClient(uri, {
    ignoreUndefined: true,
    appName,
    serverSelectionTimeoutMS: deadlineMs ?? 10_000,
    ...(deadlineMs ? { socketTimeoutMS: deadlineMs, connectTimeoutMS: deadlineMs, waitQueueTimeoutMS: deadlineMs } : {}),
  });
}

/** A connected client (see createMongoClient); rejects when the server cannot be reached in time. */
export async function connectMongo(uri: string, appName: string, options: MongoClientOptions = {}): Promise<MongoClient> {
  const client = createMongoClient(uri, appName, options);
  await client.connect();
  return client;
}

/** A client that connects on its first operation and gives up selecting a server after `timeoutMs`: for a report that must show the rest when the store is away. */
export function lazyMongo(uri: string, appName: string, timeoutMs: number): MongoClient {
  return new MongoClient(uri, { ignoreUndefined: true, appName, serverSelectionTimeoutMS: timeoutMs });
}
