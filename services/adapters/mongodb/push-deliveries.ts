// The push deliveries (docs/design/osn-2.1.0.md §2): one document per subscription, client and
// purchase order that ever had news, saying whether its latest picture still has to be sent. News
// counts up `news`; a delivery remembers the count it read before it read the picture, and is done
// only if no news came meanwhile (else it stays pending and sends the newer picture next). Every
// attempt is also written to a bounded log, with the transactionId a receiver answered.
import type { Collection, Db, Document } from 'mongodb';

export type DeliveryState = 'pending' | 'delivered' | 'parked' | 'nothing-to-send';

/** What the last attempt came to, as the log and `ossn push parked` show it. */
export interface AttemptRecord {
  at: Date;
  outcome: 'acknowledged' | 'transient' | 'refused' | 'nothing-to-send';
  status?: number;
  reason?: string;
  transactionId?: string;
  /** The news count the picture sent was read at. */
  news: number;
  durationMs: number;
}

export interface PushDeliveryDocument {
  _id: string;
  subscriptionId: string;
  clientId: string;
  purchaseOrderNumber: string;
  state: DeliveryState;
  /** How many times news of this purchase order was recorded. */
  news: number;
  /** When the oldest news not yet delivered was recorded; absent when none is waiting. */
  newsSince?: Date;
  /** When news was last recorded. */
  latestNewsAt: Date;
  /** A pending delivery is sent from this time on. */
  dueAt: Date;
  /** The attempts at the news now waiting (its back-off counts from the first). */
  firstAttemptAt?: Date;
  attempts: number;
  refusals: number;
  parkedReason?: string;
  last?: AttemptRecord;
  deliveredAt?: Date;
  /** The digest of the picture the receiver last acknowledged: the same picture is not sent again. */
  sentDigest?: string;
  /** When it was last settled (delivered, nothing to send), while nothing waits: it is forgotten 30 days on. */
  settledAt?: Date;
}

export interface DeliveryLogDocument extends AttemptRecord {
  subscriptionId: string;
  clientId: string;
  purchaseOrderNumber: string;
}

export const pushDeliveriesCollectionName = 'push_deliveries';
export const pushDeliveryLogCollectionName = 'push_delivery_log';
/** The log keeps the latest attempts within this size (a capped collection): about 200,000 of them. */
const DELIVERY_LOG_BYTES = 64 * 1024 * 1024;

/**
 * A delivery settled this long ago is forgotten (a TTL index): news of its purchase order after that
 * makes a new one, sent as any news is. Only the digest that spares a receiver a repeat is lost.
 */
const SETTLED_KEPT_SECONDS = 30 * 24 * 3600;

/** The key of a delivery: one per subscription, client and purchase order number. */
export const deliveryId = (subscriptionId: string, clientId: string, purchaseOrderNumber: string) => JSON.stringify([subscriptionId, clientId, purchaseOrderNumber]);

/** What follows an attempt (services/pusher/delivery-policy.ts decides it). */
export type AttemptStep = { done: 'delivered'; digest: string } | { done: 'nothing-to-send' } | { retryAt: Date } | { park: string };

/** Counts of a subscription's deliveries, and its oldest news still waiting (pending or parked). */
export interface DeliverySummary {
  subscriptionId: string;
  pending: number;
  parked: number;
  delivered: number;
  oldestWaitingNews?: Date;
}

export class MongoPushDeliveries {
  constructor(
    private readonly deliveries: Collection<PushDeliveryDocument>,
    private readonly log: Collection<DeliveryLogDocument>,
  ) {}

  static of(db: Db): MongoPushDeliveries {
    return new MongoPushDeliveries(db.collection<PushDeliveryDocument>(pushDeliveriesCollectionName), db.collection<DeliveryLogDocument>(pushDeliveryLogCollectionName));
  }

  /** The indexes the pusher reads by, and the capped log; idempotent. */
  async ensureIndexes(): Promise<void> {
    await this.deliveries.createIndex({ subscriptionId: 1, state: 1, dueAt: 1 }, { name: 'due_by_subscription' });
    await this.deliveries.createIndex({ settledAt: 1 }, { name: 'settled_forgotten', expireAfterSeconds: SETTLED_KEPT_SECONDS });
    // The pusher's gauges read the waiting deliveries every few seconds: from this index alone,
    // never the settled ones kept for 30 days (docs/operations.md, Sending: ossn pusher).
    await this.deliveries.createIndex({ state: 1, subscriptionId: 1, newsSince: 1 }, { name: 'waiting_by_state' });
    const db = this.deliveries.db;
    const existing = await db.listCollections({ name: this.log.collectionName }, { nameOnly: true }).toArray();
    if (existing.length === 0) {
      await db.createCollection(this.log.collectionName, { capped: true, size: DELIVERY_LOG_BYTES }).catch((error: unknown) => {
        // Another pusher created it first.
        if (!(error instanceof Error && 'code' in error && error.code === 48)) throw error;
      });
    }
    await this.log.createIndex({ subscriptionId: 1, purchaseOrderNumber: 1, at: 1 }, { name: 'by_purchase_order' });
  }

  /**
   * Records news of these purchase orders, seen at `seenAt`: each becomes pending (a parked one
   * stays parked, its news counted, for the operator to redeliver), due at once unless it is
   * already waiting out a back-off.
   */
  async recordNews(subscriptionId: string, clientId: string, purchaseOrderNumbers: readonly string[], seenAt: Date): Promise<void> {
    if (purchaseOrderNumbers.length === 0) return;
    const waiting = { $in: ['$state', ['pending', 'parked']] };
    await this.deliveries.bulkWrite(
      [...new Set(purchaseOrderNumbers)].map((purchaseOrderNumber) => ({
        updateOne: {
          filter: { _id: deliveryId(subscriptionId, clientId, purchaseOrderNumber) },
          update: [
            {
              $set: {
                subscriptionId,
                clientId,
                purchaseOrderNumber,
                news: { $add: [{ $ifNull: ['$news', 0] }, 1] },
                latestNewsAt: seenAt,
                newsSince: { $cond: [waiting, { $ifNull: ['$newsSince', seenAt] }, seenAt] },
                state: { $cond: [{ $eq: ['$state', 'parked'] }, 'parked', 'pending'] },
                dueAt: { $cond: [{ $eq: ['$state', 'pending'] }, '$dueAt', seenAt] },
                attempts: { $cond: [waiting, '$attempts', 0] },
                refusals: { $cond: [waiting, '$refusals', 0] },
                firstAttemptAt: { $cond: [waiting, '$firstAttemptAt', '$$REMOVE'] },
                settledAt: '$$REMOVE',
              },
            },
          ] as Document[],
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }

  /** The subscription's pending deliveries due at `now`, longest due first. */
  async due(subscriptionId: string, now: Date, limit: number, signal?: AbortSignal): Promise<PushDeliveryDocument[]> {
    return (await this.dueAndNext(subscriptionId, now, limit, signal)).due;
  }

  /**
   * The subscription's pending deliveries due at `now` (at most `limit`, longest due first), and
   * when the next of the others falls due: one read, one more document than the limit, so a
   * pusher's round knows how long it may pause without asking again.
   */
  async dueAndNext(subscriptionId: string, now: Date, limit: number, signal?: AbortSignal): Promise<{ due: PushDeliveryDocument[]; nextDueAt?: Date }> {
    const pending = await this.deliveries.find({ subscriptionId, state: 'pending' }, { signal }).sort({ dueAt: 1 }).limit(limit + 1).toArray();
    const due = pending.filter((delivery) => delivery.dueAt.getTime() <= now.getTime()).slice(0, limit);
    const next = pending[due.length];
    return next ? { due, nextDueAt: next.dueAt } : { due };
  }

  /** Puts a due delivery off without an attempt (its receiver's circuit is open). */
  async postpone(id: string, until: Date): Promise<void> {
    await this.deliveries.updateOne({ _id: id, state: 'pending' }, { $set: { dueAt: until } });
  }

  /**
   * Records an attempt at the picture read at news count `attempt.news`, and what follows it. A
   * delivery done while newer news came is pending again at once, its news waiting since then.
   */
  async attempted(delivery: PushDeliveryDocument, attempt: AttemptRecord, step: AttemptStep): Promise<void> {
    const last = { $literal: attempt };
    const refused = attempt.outcome === 'refused' ? 1 : 0;
    let set: Document;
    if ('done' in step) {
      const newer = { $gt: ['$news', attempt.news] };
      set = {
        state: { $cond: [newer, 'pending', step.done] },
        newsSince: { $cond: [newer, '$latestNewsAt', '$$REMOVE'] },
        dueAt: { $cond: [newer, attempt.at, '$dueAt'] },
        attempts: 0,
        refusals: 0,
        firstAttemptAt: '$$REMOVE',
        deliveredAt: step.done === 'delivered' ? attempt.at : '$deliveredAt',
        sentDigest: step.done === 'delivered' ? step.digest : '$$REMOVE',
        settledAt: { $cond: [newer, '$$REMOVE', attempt.at] },
        last,
      };
    } else if ('retryAt' in step) {
      set = {
        dueAt: step.retryAt,
        attempts: { $add: ['$attempts', 1] },
        refusals: { $add: ['$refusals', refused] },
        firstAttemptAt: { $ifNull: ['$firstAttemptAt', attempt.at] },
        last,
      };
    } else {
      set = {
        state: 'parked',
        parkedReason: step.park,
        attempts: { $add: ['$attempts', 1] },
        refusals: { $add: ['$refusals', refused] },
        firstAttemptAt: { $ifNull: ['$firstAttemptAt', attempt.at] },
        last,
      };
    }
    await this.deliveries.updateOne({ _id: delivery._id }, [{ $set: set }]);
    await this.log.insertOne({ subscriptionId: delivery.subscriptionId, clientId: delivery.clientId, purchaseOrderNumber: delivery.purchaseOrderNumber, ...attempt });
  }

  /**
   * Settles a delivery whose picture is the one its receiver last acknowledged (news seen again
   * within the polls' overlap, or a change the picture does not show): nothing is sent or logged.
   */
  async unchanged(delivery: PushDeliveryDocument, at: Date): Promise<void> {
    const newer = { $gt: ['$news', delivery.news] };
    await this.deliveries.updateOne({ _id: delivery._id, state: 'pending' }, [
      {
        $set: {
          state: { $cond: [newer, 'pending', 'delivered'] },
          newsSince: { $cond: [newer, '$latestNewsAt', '$$REMOVE'] },
          dueAt: { $cond: [newer, at, '$dueAt'] },
          attempts: 0,
          refusals: 0,
          firstAttemptAt: '$$REMOVE',
          settledAt: { $cond: [newer, '$$REMOVE', at] },
        },
      },
    ]);
  }

  /** The parked deliveries, of one subscription or all, oldest news first. */
  async parked(subscriptionId?: string): Promise<PushDeliveryDocument[]> {
    return this.deliveries.find({ state: 'parked', ...(subscriptionId === undefined ? {} : { subscriptionId }) }).sort({ newsSince: 1 }).toArray();
  }

  /**
   * Makes parked deliveries pending again, due at once with fresh attempts (the latest picture is
   * sent): of one subscription, and of one purchase order of it when given. How many.
   */
  async redeliver(subscriptionId: string, purchaseOrderNumber?: string): Promise<number> {
    const result = await this.deliveries.updateMany(
      { subscriptionId, state: 'parked', ...(purchaseOrderNumber === undefined ? {} : { purchaseOrderNumber }) },
      [{ $set: { state: 'pending', dueAt: '$$NOW', attempts: 0, refusals: 0, firstAttemptAt: '$$REMOVE', parkedReason: '$$REMOVE' } }],
    );
    return result.modifiedCount;
  }

  /**
   * Every subscription's pending and parked counts and oldest waiting news (the pusher's gauges),
   * read from the waiting_by_state index only: settled deliveries, most of the collection, are not
   * read. Subscriptions with nothing waiting are absent.
   */
  async waiting(signal?: AbortSignal): Promise<Omit<DeliverySummary, 'delivered'>[]> {
    const rows = await this.deliveries
      .aggregate<{ _id: string; pending: number; parked: number; oldestWaitingNews: Date | null }>(
        [
          { $match: { state: { $in: ['pending', 'parked'] } } },
          {
            $group: {
              _id: '$subscriptionId',
              pending: { $sum: { $cond: [{ $eq: ['$state', 'pending'] }, 1, 0] } },
              parked: { $sum: { $cond: [{ $eq: ['$state', 'parked'] }, 1, 0] } },
              oldestWaitingNews: { $min: '$newsSince' },
            },
          },
        ],
        { signal },
      )
      .toArray();
    return rows.map(({ _id, oldestWaitingNews, ...counts }) => ({ subscriptionId: _id, ...counts, ...(oldestWaitingNews ? { oldestWaitingNews } : {}) }));
  }

  /** Every subscription's counts, delivered ones too, and oldest waiting news (ossn status: it reads every delivery). */
  async summaries(signal?: AbortSignal): Promise<DeliverySummary[]> {
    const rows = await this.deliveries
      .aggregate<{ _id: string; pending: number; parked: number; delivered: number; oldestWaitingNews: Date | null }>(
        [
          {
            $group: {
              _id: '$subscriptionId',
              pending: { $sum: { $cond: [{ $eq: ['$state', 'pending'] }, 1, 0] } },
              parked: { $sum: { $cond: [{ $eq: ['$state', 'parked'] }, 1, 0] } },
              delivered: { $sum: { $cond: [{ $eq: ['$state', 'delivered'] }, 1, 0] } },
              oldestWaitingNews: { $min: { $cond: [{ $in: ['$state', ['pending', 'parked']] }, '$newsSince', null] } },
            },
          },
        ],
        { signal },
      )
      .toArray();
    return rows.map(({ _id, oldestWaitingNews, ...counts }) => ({ subscriptionId: _id, ...counts, ...(oldestWaitingNews ? { oldestWaitingNews } : {}) }));
  }

  /** The attempts logged for one subscription's purchase order, oldest first. */
  async attemptsOf(subscriptionId: string, purchaseOrderNumber: string): Promise<DeliveryLogDocument[]> {
    return this.log.find({ subscriptionId, purchaseOrderNumber }, { projection: { _id: 0 } }).sort({ at: 1 }).toArray();
  }

  /** Forgets a removed subscription's deliveries (its log ages out). */
  async removeSubscription(subscriptionId: string): Promise<void> {
    await this.deliveries.deleteMany({ subscriptionId });
  }
}
