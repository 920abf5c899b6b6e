// Where each push subscription's poller stands, and which pusher works it (docs/design/osn-2.1.0.md
// §2: several pushers may run, each subscription worked by one at a time through a lease). One
// document per subscription: its cursor (the time of its last completed poll) and its lease. Lease
// times are the database server's ($$NOW), so pushers whose clocks differ still agree on them.
// Writes take no signal (the driver has none for them): the caller's store deadline bounds them.
import { MongoBulkWriteError, type Collection, type Db } from 'mongodb';

export interface PushCursorDocument {
  /** The subscription's id. */
  _id: string;
  /** The start of the last poll whose news is recorded as pending deliveries; absent before the first. */
  cursor?: Date;
  /** The pusher holding the lease, and until when (the server's clock). */
  owner?: string;
  leaseUntil?: Date;
}

export const pushCursorsCollectionName = 'push_cursors';

export function pushCursorsCollection(db: Db): Collection<PushCursorDocument> {
  return db.collection<PushCursorDocument>(pushCursorsCollectionName);
}

/** A subscription's lease, held: where its poller stands. */
export interface HeldLease {
  cursor: Date | undefined;
}

export class MongoPushCursors {
  constructor(private readonly collection: Collection<PushCursorDocument>) {}

  /**
   * Takes the subscription's lease for `owner` for `ttlMs` when it is free, lapsed or owner's
   * already; undefined when another pusher holds it.
   */
  async acquire(subscriptionId: string, owner: string, ttlMs: number): Promise<HeldLease | undefined> {
    return (await this.acquireMany([subscriptionId], owner, ttlMs)).get(subscriptionId);
  }

  /**
   * Takes, for `owner` and `ttlMs`, the leases of these subscriptions that are free, lapsed or
   * owner's already, in three round trips whatever their number (a pusher looks at every
   * subscription at once); the leases taken, by subscription id. Each document is claimed by one
   * conditional update, so two pushers never both take one lease.
   */
  async acquireMany(subscriptionIds: readonly string[], owner: string, ttlMs: number): Promise<Map<string, HeldLease>> {
    const ids = [...new Set(subscriptionIds)];
    if (ids.length === 0) return new Map();
    // The documents first ($expr may not decide an upsert), then the leases where they are free.
    await this.collection
      .bulkWrite(
        ids.map((_id) => ({ updateOne: { filter: { _id }, update: { $setOnInsert: { _id } }, upsert: true } })),
        { ordered: false },
      )
      .catch((error: unknown) => {
        // Two pushers created one at once: it is there.
        const duplicates = error instanceof MongoBulkWriteError && [error.writeErrors].flat().every((e) => e.code === 11000);
        if (!duplicates) throw error;
      });
    await this.collection.updateMany(
      { _id: { $in: ids }, $or: [{ owner }, { leaseUntil: { $exists: false } }, { $expr: { $lt: ['$leaseUntil', '$$NOW'] } }] },
      [{ $set: { owner, leaseUntil: { $add: ['$$NOW', ttlMs] } } }],
    );
    // Held by owner now: taken just above (a lease lasts at least seconds, so none lapsed since).
    const held = await this.collection.find({ _id: { $in: ids }, owner }, { projection: { cursor: 1 } }).toArray();
    return new Map(held.map((document) => [document._id, { cursor: document.cursor }]));
  }

  /** Extends owner's lease by `ttlMs` from now; false when it is no longer owner's (lapsed and taken). */
  async renew(subscriptionId: string, owner: string, ttlMs: number): Promise<boolean> {
    const result = await this.collection.updateOne({ _id: subscriptionId, owner }, [{ $set: { leaseUntil: { $add: ['$$NOW', ttlMs] } } }]);
    return result.matchedCount === 1;
  }

  /** Lets the lease go at once (a pusher stopping), so another takes the subscription without waiting for it to lapse. */
  async release(subscriptionId: string, owner: string): Promise<void> {
    await this.collection.updateOne({ _id: subscriptionId, owner }, { $unset: { owner: '', leaseUntil: '' } });
  }

  /** Moves the cursor while owner holds the lease; false when it does not (nothing moved). */
  async advance(subscriptionId: string, owner: string, cursor: Date): Promise<boolean> {
    const result = await this.collection.updateOne({ _id: subscriptionId, owner }, { $set: { cursor } });
    return result.matchedCount === 1;
  }

  async list(signal?: AbortSignal): Promise<PushCursorDocument[]> {
    return this.collection.find({}, { signal }).toArray();
  }

  /** Every cursor, each with whether its lease is held now by the server's clock, as the leases are judged (ossn status). */
  async standings(signal?: AbortSignal): Promise<(PushCursorDocument & { leaseLive: boolean })[]> {
    return this.collection
      .aggregate<PushCursorDocument & { leaseLive: boolean }>(
        [{ $set: { leaseLive: { $and: [{ $gt: [{ $ifNull: ['$owner', null] }, null] }, { $gt: [{ $ifNull: ['$leaseUntil', null] }, '$$NOW'] }] } } }],
        { signal },
      )
      .toArray();
  }

  async remove(subscriptionId: string): Promise<void> {
    await this.collection.deleteOne({ _id: subscriptionId });
  }
}
