// The one way a MongoClient is made, by the services, the `ossn` command, the tests and the benches
// alike: every client names itself (appName, in the server's logs and currentOp) and leaves absent
// fields absent. (The local stack's own administration, scripts/stack/mongodb.ts, talks to its
// member before there is a replica set and imports nothing of the product.)
import { MongoClient, WriteConcern, type Db } from 'mongodb';

/**
 * A database of the store as the rest of ossn holds it: from a client made here, handed to this
 * folder's functions, never used through the driver outside it (docs/development.md, Layout).
 */
export type StoreDatabase = Db;

export interface MongoClientOptions {
  /**
   * The longest one round trip to the server may take: choosing the server, waiting for a pooled
   * connection, connecting, and each read of an answer. A frozen or absent server then fails the
   * operation within it instead of holding it. (The driver's own `timeoutMS` has no effect in 7.x.)
   */
  deadlineMs?: number;
  /**
   * How long choosing a server may take, alone (10 s, or the deadline): for a client that connects
   * on its first operation and must give up soon, as a report that shows the rest when the store is away.
   */
  serverSelectionTimeoutMs?: number;
  /** Emit the driver's command events (commandStarted, commandSucceeded…): for a test that watches what is sent. */
  monitorCommands?: boolean;
}

/**
 * A MongoDB client, not yet connected (it connects on its first operation, or `connect()`).
 * `ignoreUndefined` keeps absent optional fields absent (the driver would otherwise store them as
 * null, which no answer may carry).
 *
 * Writes wait for a majority of a replica set's members, journalled: a write the projector counts
 * as done (and commits its Kafka offset after) survives the primary's loss, where a write only the
 * old primary held would be rolled back at its return and the event never applied again. On one
 * member, as the local stack, majority is that member. A failed-over primary's writes and reads are
 * retried once on the new one (the driver's defaults, stated so that no URI's `retryWrites=false`
 * turns them off; options given here win over the URI's). No code path names a weaker write concern.
 */
export function createMongoClient(uri: string, appName: string, options: MongoClientOptions = {}): MongoClient {
  const { deadlineMs, serverSelectionTimeoutMs, monitorCommands } = options;
  return new MongoClient(uri, {
    ignoreUndefined: true,
    appName,
    // An instance, not `{ journal: true }`: the driver takes a URI's `journal=false` over the plain object's journal.
    writeConcern: new WriteConcern('majority', undefined, true),
    retryWrites: true,
    retryReads: true,
    serverSelectionTimeoutMS: serverSelectionTimeoutMs ?? deadlineMs ?? 10_000,
    ...(deadlineMs ? { socketTimeoutMS: deadlineMs, connectTimeoutMS: deadlineMs, waitQueueTimeoutMS: deadlineMs } : {}),
    ...(monitorCommands ? { monitorCommands } : {}),
  });
}

/**
 * Whether the driver takes `uri` as a connection string (a replica set's lists its members, which a
 * URL parser refuses). A client made from it connects to nothing until asked.
 */
export function isMongoConnectionString(uri: string): boolean {
  try {
    new MongoClient(uri);
    return true;
  } catch {
    return false;
  }
}

/** A connected client (see createMongoClient); rejects when the server cannot be reached in time. */
export async function connectMongo(uri: string, appName: string, options: MongoClientOptions = {}): Promise<MongoClient> {
  const client = createMongoClient(uri, appName, options);
  await client.connect();
  return client;
}
