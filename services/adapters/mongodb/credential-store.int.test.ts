import type { Collection, MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { connectMongo } from './connect.js';
import { CachingAuthenticator } from '../../domain/credentials/authenticator.js';
import { ClientNotLinkedError, CredentialExistsError, CredentialStore, credentialsCollection, UnknownCredentialError, type CredentialDocument } from './credential-store.js';
import { hashPassword } from '../../domain/credentials/password-hash.js';

// The credential store against the real server: what an operator does with it and what the
// query service then lets a partner do.

const env = testEnvironment();
let mongo: MongoClient;
let hashes: { a: string; b: string };

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'credential-store-test');
  hashes = { a: await hashPassword('pw-alpha'), b: await hashPassword('pw-beta') };
});
afterAll(async () => {
  await mongo?.close();
});

function freshStore(): { store: CredentialStore; collection: Collection<CredentialDocument> } {
  const collection = credentialsCollection(mongo.db(uniqueNames('credentials').database));
  return { store: new CredentialStore(collection), collection };
}

describe('CredentialStore against the real server', () => {
  it('adds credentials active, and lists them by id with scopes, clients and state, never a hash', async () => {
    const { store, collection } = freshStore();
    const before = Date.now();
    await store.add({ id: 'zeta', passwordHash: hashes.b, scopes: ['osn'], clientIds: ['C2'] });
    await store.add({ id: 'alpha', passwordHash: hashes.a, scopes: ['order_status', 'osn'], clientIds: ['C1', 'C2'] });

    const listed = await store.list();
    expect(listed).toEqual([
      { id: 'alpha', scopes: ['order_status', 'osn'], clientIds: ['C1', 'C2'], active: true, createdAt: expect.any(Date) },
      { id: 'zeta', scopes: ['osn'], clientIds: ['C2'], active: true, createdAt: expect.any(Date) },
    ]);
    expect(listed[0]!.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    const text = JSON.stringify(listed);
    expect(text).not.toContain('scrypt');
    expect(text).not.toContain(hashes.a.split('$').at(-1));
    expect(listed.every((c) => !('passwordHash' in c) && !('_id' in c))).toBe(true);

    // What is stored is the hash, never the password.
    const stored = await collection.findOne({ _id: 'alpha' });
    expect(stored?.passwordHash).toBe(hashes.a);
    expect(JSON.stringify(await collection.find({}).toArray())).not.toContain('pw-alpha');
  });

  it('refuses a duplicate id clearly and leaves the existing credential as it was', async () => {
    const { store } = freshStore();
    await store.add({ id: 'alpha', passwordHash: hashes.a, scopes: ['order_status'], clientIds: ['C1'] });
    const duplicate = store.add({ id: 'alpha', passwordHash: hashes.b, scopes: ['osn'], clientIds: ['C9'] });
    await expect(duplicate).rejects.toThrow(CredentialExistsError);
    await expect(duplicate).rejects.toThrow('credential alpha already exists');
    expect(await store.list()).toEqual([{ id: 'alpha', scopes: ['order_status'], clientIds: ['C1'], active: true, createdAt: expect.any(Date) }]);
    expect(await new CachingAuthenticator(store).verify('alpha', 'pw-alpha')).toEqual({ id: 'alpha', scopes: ['order_status'], clientIds: ['C1'] });
    expect(await new CachingAuthenticator(store).verify('alpha', 'pw-beta')).toBeUndefined();
  });

  it('disables and enables a credential, and verification follows', async () => {
    const { store } = freshStore();
    await store.add({ id: 'alpha', passwordHash: hashes.a, scopes: ['order_status'], clientIds: ['C1'] });
    await store.setActive('alpha', false);
    expect((await store.list())[0]?.active).toBe(false);
    // A fresh authenticator (no cache): a disabled credential does not verify, even with the right password.
    expect(await new CachingAuthenticator(store).verify('alpha', 'pw-alpha')).toBeUndefined();
    await store.setActive('alpha', false);
    expect((await store.list())[0]?.active).toBe(false);

    await store.setActive('alpha', true);
    expect((await store.list())[0]?.active).toBe(true);
    expect(await new CachingAuthenticator(store).verify('alpha', 'pw-alpha')).toEqual({ id: 'alpha', scopes: ['order_status'], clientIds: ['C1'] });
  });

  it('a disable takes effect for an authenticator that cached the credential once its TTL has passed', async () => {
    const { store } = freshStore();
    await store.add({ id: 'alpha', passwordHash: hashes.a, scopes: ['order_status'], clientIds: ['C1'] });
    let now = 1_000_000;
    const auth = new CachingAuthenticator(store, { ttlMs: 1_000, now: () => now });
    expect(await auth.verify('alpha', 'pw-alpha')).toBeDefined();
    await store.setActive('alpha', false);
    now += 1_001;
    expect(await auth.verify('alpha', 'pw-alpha')).toBeUndefined();
  });

  it('links more clients without duplicates, keeping the existing ones', async () => {
    const { store } = freshStore();
    await store.add({ id: 'alpha', passwordHash: hashes.a, scopes: ['order_status'], clientIds: ['C1'] });
    await store.link('alpha', ['C2', 'C1', 'C3']);
    await store.link('alpha', ['C3']);
    expect((await store.list())[0]?.clientIds).toEqual(['C1', 'C2', 'C3']);
    expect((await new CachingAuthenticator(store).verify('alpha', 'pw-alpha'))?.clientIds).toEqual(['C1', 'C2', 'C3']);
  });

  it('unlinks clients, and verification no longer carries them', async () => {
    const { store } = freshStore();
    await store.add({ id: 'alpha', passwordHash: hashes.a, scopes: ['order_status'], clientIds: ['C1', 'C2', 'C3'] });
    await store.unlink('alpha', ['C3', 'C1']);
    expect((await store.list())[0]?.clientIds).toEqual(['C2']);
    expect((await new CachingAuthenticator(store).verify('alpha', 'pw-alpha'))?.clientIds).toEqual(['C2']);
    // The last link may go too: the credential then sees no client's orders.
    await store.unlink('alpha', ['C2']);
    expect((await new CachingAuthenticator(store).verify('alpha', 'pw-alpha'))?.clientIds).toEqual([]);
  });

  it('unlinks all or none: a client not linked is named and nothing changes', async () => {
    const { store } = freshStore();
    await store.add({ id: 'alpha', passwordHash: hashes.a, scopes: ['order_status'], clientIds: ['C1', 'C2'] });
    const typo = store.unlink('alpha', ['C1', 'C9', 'C8']);
    await expect(typo).rejects.toThrow(ClientNotLinkedError);
    await expect(typo).rejects.toThrow('credential alpha is not linked to C9, C8');
    expect((await store.list())[0]?.clientIds).toEqual(['C1', 'C2']);
  });

  it('replaces the scopes, and verification carries the new ones', async () => {
    const { store } = freshStore();
    await store.add({ id: 'alpha', passwordHash: hashes.a, scopes: ['order_status'], clientIds: ['C1'] });
    await store.setScopes('alpha', ['osn']);
    expect((await store.list())[0]?.scopes).toEqual(['osn']);
    expect((await new CachingAuthenticator(store).verify('alpha', 'pw-alpha'))?.scopes).toEqual(['osn']);
  });

  it('a new password hash makes the old password fail and the new one verify', async () => {
    const { store } = freshStore();
    await store.add({ id: 'alpha', passwordHash: hashes.a, scopes: ['order_status'], clientIds: ['C1'] });
    await store.setPasswordHash('alpha', hashes.b);
    expect(await new CachingAuthenticator(store).verify('alpha', 'pw-alpha')).toBeUndefined();
    expect(await new CachingAuthenticator(store).verify('alpha', 'pw-beta')).toEqual({ id: 'alpha', scopes: ['order_status'], clientIds: ['C1'] });
  });

  it('refuses to change an unknown id, creating nothing', async () => {
    const { store } = freshStore();
    await expect(store.setActive('ghost', false)).rejects.toThrow(UnknownCredentialError);
    await expect(store.setActive('ghost', true)).rejects.toThrow('no credential with id ghost');
    await expect(store.link('ghost', ['C1'])).rejects.toThrow(UnknownCredentialError);
    await expect(store.unlink('ghost', ['C1'])).rejects.toThrow('no credential with id ghost');
    await expect(store.setScopes('ghost', ['osn'])).rejects.toThrow('no credential with id ghost');
    await expect(store.setPasswordHash('ghost', hashes.a)).rejects.toThrow('no credential with id ghost');
    expect(await store.list()).toEqual([]);
    expect(await store.find('ghost')).toBeNull();
  });

  it('finds by exact id only: an operator-shaped id is not a query', async () => {
    const { store } = freshStore();
    await store.add({ id: 'alpha', passwordHash: hashes.a, scopes: ['order_status'], clientIds: ['C1'] });
    expect(await store.find('ALPHA')).toBeNull();
    expect(await store.find('alph')).toBeNull();
    expect(await store.find('.*')).toBeNull();
    expect((await store.find('alpha'))?._id).toBe('alpha');
  });
});
