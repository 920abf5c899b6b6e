// Partners' credentials as the store keeps them (services/domain/credentials/ verifies them).
import { MongoServerError, type Collection, type Db } from 'mongodb';
import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';

/** What a credential may ask: order status (OSS), shipment notifications (OSN). */
export const scopes = ['order_status', 'osn'] as const;

export type Scope = (typeof scopes)[number];

export interface CredentialDocument {
  _id: string;
  passwordHash: string;
  scopes: Scope[];
  clientIds: string[];
  active: boolean;
  createdAt: Date;
  /** When a query service last let it in (at most a minute late: last-used.ts). */
  lastUsedAt?: Date;
  /** The password a reset replaced, still accepted until previousPasswordUntil (the operator's overlap). */
  previousPasswordHash?: string;
  previousPasswordUntil?: Date;
}

export function credentialsCollection(db: Db): Collection<CredentialDocument> {
  return db.collection<CredentialDocument>('credentials');
}

export class CredentialExistsError extends OssnError {
  constructor(id: string, options?: ErrorOptions) {
    super(ErrorCodes.CREDENTIAL_EXISTS, `credential ${id} already exists`, options);
    this.name = 'CredentialExistsError';
  }
}

export class UnknownCredentialError extends OssnError {
  constructor(id: string) {
    super(ErrorCodes.CREDENTIAL_UNKNOWN, `no credential with id ${id}`);
    this.name = 'UnknownCredentialError';
  }
}

export class ClientNotLinkedError extends OssnError {
  constructor(id: string, clientIds: string[]) {
    super(ErrorCodes.CREDENTIAL_CLIENT_NOT_LINKED, `credential ${id} is not linked to ${clientIds.join(', ')}`);
    this.name = 'ClientNotLinkedError';
  }
}

export interface CredentialSummary {
  id: string;
  scopes: Scope[];
  clientIds: string[];
  active: boolean;
  createdAt: Date;
  lastUsedAt?: Date;
  /** Until when the password a reset replaced still works, while it does. */
  previousPasswordUntil?: Date;
}

/** Operators' view of the credentials: no operation here returns or logs a password or its hash. */
export class CredentialStore {
  constructor(private readonly collection: Collection<CredentialDocument>) {}

  async add(input: { id: string; passwordHash: string; scopes: Scope[]; clientIds: string[] }): Promise<void> {
    try {
      await this.collection.insertOne({ _id: input.id, passwordHash: input.passwordHash, scopes: input.scopes, clientIds: input.clientIds, active: true, createdAt: new Date() });
    } catch (error) {
      if (error instanceof MongoServerError && error.code === 11000) throw new CredentialExistsError(input.id, { cause: error });
      throw error;
    }
  }

  /** Creates the credential, or gives an existing one this password, scopes and clients, active. */
  async upsert(input: { id: string; passwordHash: string; scopes: Scope[]; clientIds: string[] }): Promise<void> {
    await this.collection.updateOne(
      { _id: input.id },
      { $set: { passwordHash: input.passwordHash, scopes: input.scopes, clientIds: input.clientIds, active: true }, $setOnInsert: { createdAt: new Date() } },
      { upsert: true },
    );
  }

  async list(): Promise<CredentialSummary[]> {
    const docs = await this.collection.find({}, { projection: { passwordHash: 0, previousPasswordHash: 0 } }).sort({ _id: 1 }).toArray();
    const now = new Date();
    return docs.map(({ _id, scopes, clientIds, active, createdAt, lastUsedAt, previousPasswordUntil }) => ({
      id: _id,
      scopes,
      clientIds,
      active,
      createdAt,
      lastUsedAt,
      previousPasswordUntil: previousPasswordUntil && previousPasswordUntil > now ? previousPasswordUntil : undefined,
    }));
  }

  /** Deletes the credential: its partner is refused once the query services' 30 s have passed. */
  async remove(id: string): Promise<void> {
    const result = await this.collection.deleteOne({ _id: id });
    if (result.deletedCount === 0) throw new UnknownCredentialError(id);
  }

  /** Records a use at `at`; never moves the time back (two query services may record out of order). */
  async recordUse(id: string, at: Date): Promise<void> {
    await this.collection.updateOne({ _id: id, $or: [{ lastUsedAt: { $exists: false } }, { lastUsedAt: { $lt: at } }] }, { $set: { lastUsedAt: at } });
  }

  async setActive(id: string, active: boolean): Promise<void> {
    const result = await this.collection.updateOne({ _id: id }, { $set: { active } });
    if (result.matchedCount === 0) throw new UnknownCredentialError(id);
  }

  async link(id: string, clientIds: string[]): Promise<void> {
    const result = await this.collection.updateOne({ _id: id }, { $addToSet: { clientIds: { $each: clientIds } } });
    if (result.matchedCount === 0) throw new UnknownCredentialError(id);
  }

  /**
   * Removes client links, all or none: a client that is not linked (a typo, most likely) changes
   * nothing and is named, so an operator never believes a link gone that is still there.
   */
  async unlink(id: string, clientIds: string[]): Promise<void> {
    const result = await this.collection.updateOne({ _id: id, clientIds: { $all: clientIds } }, { $pullAll: { clientIds } });
    if (result.matchedCount > 0) return;
    const current = await this.collection.findOne({ _id: id }, { projection: { clientIds: 1 } });
    if (!current) throw new UnknownCredentialError(id);
    throw new ClientNotLinkedError(id, clientIds.filter((c) => !current.clientIds.includes(c)));
  }

  /** Replaces the scopes (not adds to them): the list given is the whole grant. */
  async setScopes(id: string, scopes: Scope[]): Promise<void> {
    const result = await this.collection.updateOne({ _id: id }, { $set: { scopes } });
    if (result.matchedCount === 0) throw new UnknownCredentialError(id);
  }

  /**
   * A new password. With `keepOldUntil` the one it replaces keeps working until then (partners
   * switch over meanwhile); without, it ends at once (within the query services' 30 s).
   */
  async setPasswordHash(id: string, passwordHash: string, keepOldUntil?: Date): Promise<void> {
    const result = await this.collection.updateOne({ _id: id }, [
      {
        $set: {
          passwordHash: { $literal: passwordHash },
          previousPasswordHash: keepOldUntil ? '$passwordHash' : '$$REMOVE',
          previousPasswordUntil: keepOldUntil ?? '$$REMOVE',
        },
      },
    ]);
    if (result.matchedCount === 0) throw new UnknownCredentialError(id);
  }

  async find(id: string): Promise<CredentialDocument | null> {
    return this.collection.findOne({ _id: id });
  }

  /** These credentials, by id, in one read (the pusher's, for all its subscriptions); an id absent is gone. */
  async findMany(ids: readonly string[]): Promise<Map<string, CredentialDocument>> {
    const found = await this.collection.find({ _id: { $in: [...ids] } }).toArray();
    return new Map(found.map((credential) => [credential._id, credential]));
  }
}
