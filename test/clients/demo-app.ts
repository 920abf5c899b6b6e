// A test file's real app over the demo read models: a database of its own seeded with the demo
// data set, one partner credential, the real MongoDB lookups (1.0.0 and 2.0.0) and the real
// authenticator over the credential store; started before the file's tests, dropped after.
import { afterAll, beforeAll } from 'vitest';
import type { Db, MongoClient } from 'mongodb';
import type { FoldResult } from '../../projections/fold.js';
import { connectMongo } from '../../services/adapters/mongodb/connect.js';
import { MongoOrderLookups } from '../../services/adapters/mongodb/lookups.js';
import { CachingAuthenticator } from '../../services/domain/credentials/authenticator.js';
import { CredentialStore, credentialsCollection } from '../../services/adapters/mongodb/credential-store.js';
import { createLogger } from '../../services/plumbing/logging/logger.js';
import { servers, uniqueNames } from '../support/servers.js';
import { addCredential, seedDemoReadModels } from './demo-store.js';
import { startRealApp, type RealApp } from './real-app.js';

export interface DemoApp {
  /** e.g. http://127.0.0.1:41234, also the app's publicBaseUrl. */
  url: string;
  lookups: MongoOrderLookups;
  /** The read models as the projections folded them. */
  folded: FoldResult;
  /** Before the read models were written: every change time lies after it. */
  seededFrom: Date;
}

export interface DemoAppOptions {
  /** The demo data set's seed. */
  seed: number;
  partner: { id: string; password: string };
  clientIds: string[];
}

/** The app, filled in before the file's tests run (read its fields inside tests and hooks only). */
export function useDemoApp(label: string, { seed, partner, clientIds }: DemoAppOptions): DemoApp {
  const demo = {} as DemoApp;
  let mongo: MongoClient | undefined;
  let db: Db | undefined;
  let real: RealApp | undefined;
  beforeAll(async () => {
    mongo = await connectMongo(servers().mongodbUri, `${label}-test`);
    db = mongo.db(uniqueNames(label).database);
    const seededFrom = new Date(Date.now() - 60_000);
    const { folded, collections } = await seedDemoReadModels(db, { clients: 3, orders: 40, seed });
    const lookups = new MongoOrderLookups(collections);
    await addCredential(db, { ...partner, scopes: ['order_status', 'osn'], clientIds });
    real = await startRealApp({
      logger: createLogger(`${label}-test`, 'warn'),
      lookups,
      lookupsV2: lookups,
      authenticator: new CachingAuthenticator(new CredentialStore(credentialsCollection(db))),
    });
    Object.assign(demo, { url: real.url, lookups, folded, seededFrom });
  }, 180_000);
  afterAll(async () => {
    await real?.close();
    await db?.dropDatabase().catch(() => undefined);
    await mongo?.close();
  });
  return demo;
}
