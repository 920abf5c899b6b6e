// Push subscriptions as the store keeps them: the partner receivers ossn sends ship notifications
// to (docs/operations.md, Push subscriptions). services/domain/push/ judges and seals what is
// stored here; this keeps it, the receiver's password sealed, and never opens it.
import { MongoServerError, type Collection, type Db, type Filter } from 'mongodb';
import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';

/** A secret sealed with the operator's key (services/domain/push/sealed-secret.ts): binary parts in base64. */
export interface SealedSecret {
  cipher: 'aes-256-gcm';
  /** The id of the key it was sealed with (services/config/secret-key.ts). */
  keyId: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

export interface PushSubscriptionRecord {
  /** Generated when it is added (services/domain/push/subscription.ts). */
  id: string;
  credentialId: string;
  /** The one client it is for; absent: every client the credential is linked to. */
  clientId?: string;
  /** The receiver's endpoint, as the URL policy normalised it. */
  url: string;
  /** Added with --allow-http: plain http to another machine, for a trial. */
  allowHttp?: boolean;
  /** The id ossn sends the receiver. */
  receiverId: string;
  /** The password ossn sends the receiver, sealed; absent when the receiver asks for none. */
  receiverPassword?: SealedSecret;
  customerIdentifier?: string;
  enabled: boolean;
  createdAt: Date;
  /** Shipment news from this time on is pushed. */
  cursorStart: Date;
}

type PushSubscriptionDocument = Omit<PushSubscriptionRecord, 'id'> & { _id: string };

export const pushSubscriptionsCollectionName = 'push_subscriptions';

export function pushSubscriptionsCollection(db: Db): Collection<PushSubscriptionDocument> {
  return db.collection<PushSubscriptionDocument>(pushSubscriptionsCollectionName);
}

/**
 * One subscription per credential, client and URL: two would send each notification twice. An
 * absent client (every client) is indexed as null, so two of those are one too many as well.
 */
const uniqueIndex = { name: 'one_per_credential_client_url', key: { credentialId: 1, clientId: 1, url: 1 }, unique: true } as const;

export class PushSubscriptionExistsError extends OssnError {
  constructor(subscription: Pick<PushSubscriptionRecord, 'credentialId' | 'clientId' | 'url'>, existingId: string | undefined, options?: ErrorOptions) {
    const clients = subscription.clientId === undefined ? 'all its clients' : `client ${subscription.clientId}`;
    super(
      ErrorCodes.PUSH_SUBSCRIPTION_EXISTS,
      `credential ${subscription.credentialId} has a push subscription for ${clients} to ${subscription.url} already${existingId ? ` (${existingId})` : ''}`,
      options,
    );
    this.name = 'PushSubscriptionExistsError';
  }
}

export class UnknownPushSubscriptionError extends OssnError {
  constructor(id: string) {
    super(ErrorCodes.PUSH_SUBSCRIPTION_UNKNOWN, `no push subscription with id ${id}`);
    this.name = 'UnknownPushSubscriptionError';
  }
}

function toRecord({ _id, ...rest }: PushSubscriptionDocument): PushSubscriptionRecord {
  return { id: _id, ...rest };
}

/** The subscriptions in the store (services/domain/push/subscription-store.ts is the port it fills). */
export class MongoPushSubscriptions {
  constructor(private readonly collection: Collection<PushSubscriptionDocument>) {}

  /** The unique index above; idempotent, and run before every add, so no add goes without it. */
  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex(uniqueIndex.key, { name: uniqueIndex.name, unique: uniqueIndex.unique });
  }

  async add(subscription: PushSubscriptionRecord): Promise<void> {
    await this.ensureIndexes();
    const { id, ...rest } = subscription;
    try {
      // An optional field given as undefined stays absent (connect.ts: ignoreUndefined).
      await this.collection.insertOne({ _id: id, ...rest });
    } catch (error) {
      if (!(error instanceof MongoServerError && error.code === 11000)) throw error;
      // null finds an absent client as the index sees it.
      const sameKey: Filter<PushSubscriptionDocument> = { credentialId: subscription.credentialId, clientId: subscription.clientId ?? (null as never), url: subscription.url };
      const existing = await this.collection.findOne(sameKey, { projection: { _id: 1 } });
      throw new PushSubscriptionExistsError(subscription, existing?._id, { cause: error });
    }
  }

  /** Every subscription, oldest first; `signal` ends the read (its cursor closed). */
  async list(signal?: AbortSignal): Promise<PushSubscriptionRecord[]> {
    return (await this.collection.find({}, signal ? { signal } : {}).sort({ createdAt: 1, _id: 1 }).toArray()).map(toRecord);
  }

  /** The enabled subscriptions, oldest first: the ones to push to. */
  async listEnabled(): Promise<PushSubscriptionRecord[]> {
    return (await this.collection.find({ enabled: true }).sort({ createdAt: 1, _id: 1 }).toArray()).map(toRecord);
  }

  async hasEnabled(credentialId: string, signal?: AbortSignal): Promise<boolean> {
    return (await this.collection.findOne({ credentialId, enabled: true }, { projection: { _id: 1 }, signal })) !== null;
  }

  async find(id: string): Promise<PushSubscriptionRecord | undefined> {
    const document = await this.collection.findOne({ _id: id });
    return document ? toRecord(document) : undefined;
  }

  async setEnabled(id: string, enabled: boolean): Promise<void> {
    const result = await this.collection.updateOne({ _id: id }, { $set: { enabled } });
    if (result.matchedCount === 0) throw new UnknownPushSubscriptionError(id);
  }

  async remove(id: string): Promise<void> {
    const result = await this.collection.deleteOne({ _id: id });
    if (result.deletedCount === 0) throw new UnknownPushSubscriptionError(id);
  }
}
