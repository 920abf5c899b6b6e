import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnvironment, uniqueNames } from '../../../test/support/servers.js';
import { SecretKey } from '../../config/secret-key.js';
import { newPushSubscription } from '../../domain/push/new-subscription.js';
import { openReceiverPassword, ReceiverPassword } from '../../domain/push/receiver-password.js';
import type { PushSubscriptionStore } from '../../domain/push/subscription-store.js';
import type { PushSubscription } from '../../domain/push/subscription.js';
import { connectMongo } from './connect.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection, PushSubscriptionExistsError, UnknownPushSubscriptionError } from './push-subscriptions.js';

// The push subscriptions' store against the real server: what `ossn push` does with it and what
// the pusher reads back.

const env = testEnvironment();
let mongo: MongoClient;
const key = new SecretKey(Buffer.alloc(32, 3));

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'push-subscriptions-test');
});
afterAll(async () => {
  await mongo?.close();
});

function freshStore() {
  const collection = pushSubscriptionsCollection(mongo.db(uniqueNames('push-subscriptions').database));
  // The port the command line and the pusher use: the adapter fills it (checked by the compiler).
  const store: PushSubscriptionStore = new MongoPushSubscriptions(collection);
  return { store, adapter: store as MongoPushSubscriptions, collection };
}

let at = Date.parse('2026-06-01T12:00:00Z');
function subscription(id: string, fields: Partial<PushSubscription> & { password?: string } = {}): PushSubscription {
  const { password, ...rest } = fields;
  const now = new Date((at += 1_000));
  const added = newPushSubscription(
    { credentialId: 'acme', url: 'https://osn.acme.example/receiver', receiverId: 'ossn', cursorStart: new Date('2026-05-01T00:00:00Z') },
    { key, now, id, ...(password === undefined ? {} : { password: new ReceiverPassword(password) }) },
  );
  return { ...added, ...rest };
}

describe('push subscriptions in the store', () => {
  it('adds, finds and lists them oldest first, every field kept, absent ones absent, the password sealed', async () => {
    const { store, collection } = freshStore();
    const withPassword = subscription('ps-a', { clientId: 'C1', customerIdentifier: 'ACME', password: 'receiver-secret-1' });
    const without = subscription('ps-b');
    await store.add(withPassword);
    await store.add(without);

    expect(await store.find('ps-a')).toEqual(withPassword);
    expect(await store.find('ps-b')).toEqual(without);
    expect(await store.find('ps-none')).toBeUndefined();
    expect((await store.list()).map((s) => s.id)).toEqual(['ps-a', 'ps-b']);
    expect(await store.find('ps-b')).not.toHaveProperty('clientId');
    // Absent, not null, even when given as undefined: the record reads back as it was given.
    await store.add(subscription('ps-c', { clientId: undefined, customerIdentifier: undefined, url: 'https://osn.acme.example/c' }));
    for (const id of ['ps-b', 'ps-c']) {
      const stored = await collection.findOne({ _id: id });
      for (const field of ['clientId', 'customerIdentifier', 'receiverPassword']) expect(stored).not.toHaveProperty(field);
    }
    // Sealed in the store; opens with the key to what was given.
    expect(JSON.stringify(await collection.find({}).toArray())).not.toContain('receiver-secret-1');
    expect(openReceiverPassword((await store.find('ps-a'))!, key)?.reveal()).toBe('receiver-secret-1');
  });

  it('refuses a second subscription for the same credential, client and URL, naming the first; another client or URL is another', async () => {
    const { store } = freshStore();
    await store.add(subscription('ps-all'));
    await store.add(subscription('ps-c1', { clientId: 'C1' }));
    const twiceAll = store.add(subscription('ps-all-2'));
    await expect(twiceAll).rejects.toThrow(PushSubscriptionExistsError);
    await expect(twiceAll).rejects.toThrow('credential acme has a push subscription for all its clients to https://osn.acme.example/receiver already (ps-all)');
    await expect(store.add(subscription('ps-c1-2', { clientId: 'C1', password: 'other' }))).rejects.toThrow(
      'credential acme has a push subscription for client C1 to https://osn.acme.example/receiver already (ps-c1)',
    );
    await store.add(subscription('ps-c2', { clientId: 'C2' }));
    await store.add(subscription('ps-other-url', { url: 'https://osn.acme.example/other' }));
    await store.add(subscription('ps-other-credential', { credentialId: 'globex' }));
    expect((await store.list()).map((s) => s.id)).toEqual(['ps-all', 'ps-c1', 'ps-c2', 'ps-other-url', 'ps-other-credential']);
    expect(await store.find('ps-c1')).not.toHaveProperty('receiverPassword');
  });

  it('disables and enables one; listEnabled gives the enabled ones only', async () => {
    const { store } = freshStore();
    await store.add(subscription('ps-1'));
    await store.add(subscription('ps-2', { clientId: 'C2' }));
    await store.setEnabled('ps-1', false);
    expect((await store.find('ps-1'))?.enabled).toBe(false);
    expect((await store.listEnabled()).map((s) => s.id)).toEqual(['ps-2']);
    await store.setEnabled('ps-1', false);
    await store.setEnabled('ps-1', true);
    expect((await store.listEnabled()).map((s) => s.id)).toEqual(['ps-1', 'ps-2']);
  });

  it('says whether a credential has an enabled subscription (2.1.0 getServiceMethods)', async () => {
    const { store } = freshStore();
    expect(await store.hasEnabled('acme')).toBe(false);
    await store.add(subscription('ps-1'));
    await store.add(subscription('ps-2', { credentialId: 'globex' }));
    expect(await store.hasEnabled('acme')).toBe(true);
    await store.setEnabled('ps-1', false);
    expect(await store.hasEnabled('acme')).toBe(false);
    expect(await store.hasEnabled('globex')).toBe(true);
    expect(await store.hasEnabled('initech')).toBe(false);
  });

  it('removes one; an unknown id is refused by name for every change', async () => {
    const { store } = freshStore();
    await store.add(subscription('ps-1'));
    await store.remove('ps-1');
    expect(await store.list()).toEqual([]);
    for (const change of [() => store.remove('ps-1'), () => store.setEnabled('ps-1', true), () => store.setEnabled('ghost', false)]) {
      await expect(change()).rejects.toThrow(UnknownPushSubscriptionError);
    }
    await expect(store.remove('ghost')).rejects.toThrow('no push subscription with id ghost');
  });

  it('makes its unique index itself, before the first add', async () => {
    const { adapter, collection } = freshStore();
    await adapter.add(subscription('ps-1'));
    expect((await collection.indexes()).find((index) => index.name === 'one_per_credential_client_url')).toMatchObject({
      key: { credentialId: 1, clientId: 1, url: 1 },
      unique: true,
    });
  });
});
