import { describe, expect, it } from 'vitest';
import { scryptRuns } from '../../../test/support/scrypt-runs.js';
import { CachingAuthenticator } from './authenticator.js';
import type { CredentialDocument } from '../../adapters/mongodb/credential-store.js';
import { hashPassword } from './password-hash.js';

// The real scrypt runs, counted.
const scrypt = scryptRuns();

async function storeOf(doc: CredentialDocument) {
  const byId = new Map([[doc._id, doc]]);
  return { byId, find: async (id: string) => byId.get(id) ?? null };
}

describe('CachingAuthenticator past its TTL', () => {
  it('renews a partner polling less often than the TTL from a store read, without another scrypt, until its password changes', async () => {
    let now = 0;
    const store = await storeOf({ _id: 'acme', passwordHash: await hashPassword('pw'), scopes: ['order_status'], clientIds: ['C1'], active: true, createdAt: new Date() });
    const auth = new CachingAuthenticator(store, { ttlMs: 30_000, now: () => now, verifyPassword: scrypt.verifyPassword });
    scrypt.runs = 0;
    expect(await auth.verify('acme', 'pw')).toMatchObject({ id: 'acme', clientIds: ['C1'] });
    expect(scrypt.runs).toBe(1);

    // A poll a minute later: the store says the same hash, the client list changed meanwhile.
    now += 60_000;
    store.byId.get('acme')!.clientIds = ['C1', 'C2'];
    expect(await auth.verify('acme', 'pw')).toMatchObject({ clientIds: ['C1', 'C2'] });
    expect(scrypt.runs).toBe(1);
    // A wrong password is checked in full, renewed entry or not.
    expect(await auth.verify('acme', 'guess')).toBeUndefined();
    expect(scrypt.runs).toBe(2);

    // The password is reset: the old one is checked against the new hash, and refused.
    store.byId.get('acme')!.passwordHash = await hashPassword('new-pw');
    now += 60_000;
    expect(await auth.verify('acme', 'pw')).toBeUndefined();
    expect(scrypt.runs).toBe(3);
  });

  it('refuses a disabled credential at the first poll past the TTL', async () => {
    let now = 0;
    const store = await storeOf({ _id: 'acme', passwordHash: await hashPassword('pw'), scopes: ['osn'], clientIds: ['C1'], active: true, createdAt: new Date() });
    const auth = new CachingAuthenticator(store, { ttlMs: 30_000, now: () => now, verifyPassword: scrypt.verifyPassword });
    expect(await auth.verify('acme', 'pw')).toBeDefined();
    store.byId.get('acme')!.active = false;
    now += 29_000;
    expect(await auth.verify('acme', 'pw')).toBeDefined();
    now += 2_000;
    expect(await auth.verify('acme', 'pw')).toBeUndefined();
    store.byId.get('acme')!.active = true;
    now += 60_000;
    scrypt.runs = 0;
    expect(await auth.verify('acme', 'pw')).toBeDefined();
    expect(scrypt.runs).toBe(1);
  });

  it('refuses a partner, cached or past the TTL, while its id or address is locked out by a guesser, and renews it without scrypt once the lock ends', async () => {
    let now = 0;
    const store = await storeOf({ _id: 'acme', passwordHash: await hashPassword('pw'), scopes: ['osn'], clientIds: ['C1'], active: true, createdAt: new Date() });
    const auth = new CachingAuthenticator(store, { ttlMs: 30_000, now: () => now, verifyPassword: scrypt.verifyPassword });
    expect(await auth.verify('acme', 'pw')).toBeDefined();
    // From now on every failed login the limit could reserve is used up.
    const reservations: string[] = [];
    let locked = true;
    const guard = {
      refuseLocked: async () => {
        if (locked) throw new Error('failed logins used up');
      },
      reserve: async (id: string) => {
        reservations.push(id);
        return () => undefined;
      },
    };
    now += 10_000; // within the TTL: the right password is refused all the same
    await expect(auth.verify('acme', 'pw', guard)).rejects.toThrow('failed logins used up');
    now += 60_000; // past the TTL
    await expect(auth.verify('acme', 'pw', guard)).rejects.toThrow('failed logins used up');
    await expect(auth.verify('acme', 'guess', guard)).rejects.toThrow('failed logins used up');
    expect(reservations).toEqual([]);
    locked = false;
    scrypt.runs = 0;
    expect(await auth.verify('acme', 'pw', guard)).toMatchObject({ id: 'acme' });
    expect(scrypt.runs).toBe(0);
    expect(reservations).toEqual([]);
  });
});
