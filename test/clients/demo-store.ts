// A database filled with the demo data set the way the projector fills it: demo events, folded
// by the projections, written by the store's own writeEffects.
import type { Db } from 'mongodb';
import { generateDemoEvents, type DemoOptions } from '../../services/ossn/demo-events/demo-events.js';
import { foldEvents, type FoldResult } from '../../projections/fold.js';
import { ensureIndexes, readModelCollections, type ReadModelCollections } from '../../services/adapters/mongodb/documents.js';
import { writeEffects } from '../../services/adapters/mongodb/writes.js';
import { CredentialStore, credentialsCollection } from '../../services/adapters/mongodb/credential-store.js';
import { hashPassword } from '../../services/domain/credentials/password-hash.js';
import type { Scope } from '../../services/domain/credentials/credential.js';

export const READ_MODEL_VERSION = 1;

export interface SeededDemo {
  collections: ReadModelCollections;
  /** The read models as the projections computed them, keyed `<clientId>:<salesOrderNumber>`. */
  folded: FoldResult;
}

/** Folds the demo events and writes every resulting state as the projector would, in batches. */
export async function seedDemoReadModels(db: Db, options: DemoOptions, batchSize = 500): Promise<SeededDemo> {
  const folded = foldEvents(generateDemoEvents(options));
  if (folded.rejected.length > 0) throw new Error(`the demo data set has ${folded.rejected.length} rejected events`);
  const collections = readModelCollections(db, READ_MODEL_VERSION);
  await ensureIndexes(collections);
  const statuses = [...folded.orderStatus.values()];
  const shipments = [...folded.shipments.values()];
  for (let i = 0; i < Math.max(statuses.length, shipments.length); i += batchSize) {
    await writeEffects(collections, {
      orderStatus: statuses.slice(i, i + batchSize).map((after) => ({ after })),
      shipments: shipments.slice(i, i + batchSize).map((after) => ({ after })),
    });
  }
  return { collections, folded };
}

/** Adds an active credential through the real store, its password hashed as in production. */
export async function addCredential(db: Db, input: { id: string; password: string; scopes: Scope[]; clientIds: string[] }): Promise<void> {
  await new CredentialStore(credentialsCollection(db)).add({
    id: input.id,
    passwordHash: await hashPassword(input.password),
    scopes: input.scopes,
    clientIds: input.clientIds,
  });
}
