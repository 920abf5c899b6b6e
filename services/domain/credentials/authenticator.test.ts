import { describe, expect, it, vi } from 'vitest';
import { CachingAuthenticator } from './authenticator.js';
import type { CredentialDocument } from '../../adapters/mongodb/credential-store.js';
import { hashPassword, verifyPassword } from './password-hash.js';

// The store here is an in-memory stand-in for the credential lookup; the MongoDB store itself is
// covered by the integration tests.
function storeWith(docs: CredentialDocument[]) {
  const byId = new Map(docs.map((d) => [d._id, d]));
  let lookups = 0;
  return {
    lookups: () => lookups,
    find: async (id: string) => {
      lookups++;
      return byId.get(id) ?? null;
    },
    byId,
  };
}

async function credential(id: string, password: string, extra: Partial<CredentialDocument> = {}): Promise<CredentialDocument> {
  return { _id: id, passwordHash: await hashPassword(password), scopes: ['order_status'], clientIds: ['C1'], active: true, createdAt: new Date(), ...extra };
}

describe('password hashing', () => {
  it('verifies the right password and refuses a wrong one, with a fresh salt each time', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).not.toBe(b);
    expect(a.startsWith('scrypt$32768$8$1$')).toBe(true);
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct hors', a)).toBe(false);
    expect(await verifyPassword('x', 'plain-text')).toBe(false);
  });
});

describe('CachingAuthenticator', () => {
  it('answers the same undefined for an unknown id, a wrong password and an inactive credential', async () => {
    const store = storeWith([await credential('alice', 'pw-a'), await credential('bob', 'pw-b', { active: false })]);
    const auth = new CachingAuthenticator(store);
    expect(await auth.verify('nobody', 'pw-a')).toBeUndefined();
    expect(await auth.verify('alice', 'wrong')).toBeUndefined();
    expect(await auth.verify('bob', 'pw-b')).toBeUndefined();
    expect(await auth.verify('alice', 'pw-a')).toEqual({ id: 'alice', scopes: ['order_status'], clientIds: ['C1'] });
  });

  it('serves a verified credential from the cache until the TTL, and never a wrong password from it', async () => {
    let now = 1_000;
    const store = storeWith([await credential('alice', 'pw-a')]);
    const auth = new CachingAuthenticator(store, { ttlMs: 100, now: () => now });
    await auth.verify('alice', 'pw-a');
    await auth.verify('alice', 'pw-a');
    expect(store.lookups()).toBe(1);
    expect(await auth.verify('alice', 'not-it')).toBeUndefined();

    store.byId.get('alice')!.active = false;
    now += 101;
    expect(await auth.verify('alice', 'pw-a')).toBeUndefined();
  });

  it('counts the TTL from the store read, so a change made while a check runs shows within it', async () => {
    let now = 1_000;
    const inner = storeWith([await credential('alice', 'pw-a')]);
    // Read at 1_000, the check ends 5 s later (a slow store answer, a queue for scrypt).
    const store = {
      find: async (id: string) => {
        const doc = await inner.find(id);
        now += 5_000;
        return doc && { ...doc };
      },
    };
    const auth = new CachingAuthenticator(store, { ttlMs: 30_000, now: () => now });
    expect(await auth.verify('alice', 'pw-a')).toBeDefined();
    inner.byId.get('alice')!.active = false;
    now = 1_000 + 30_001;
    expect(await auth.verify('alice', 'pw-a')).toBeUndefined();
  });

  it('reserves for every request that waits for a check, joiners included, and gives back only what a found credential covers', async () => {
    const store = storeWith([await credential('alice', 'pw-a')]);
    const auth = new CachingAuthenticator(store);
    let held = 0;
    const reserve = {
      refuseLocked: async () => undefined,
      reserve: async () => {
        held++;
        return () => void held--;
      },
    };
    const answers = await Promise.all(Array.from({ length: 8 }, () => auth.verify('alice', 'pw-a', reserve)));
    expect(answers.every((a) => a?.id === 'alice')).toBe(true);
    expect(store.lookups()).toBe(1); // one check for the eight
    await auth.verify('alice', 'pw-a', reserve); // from the cache: no reservation
    expect(held).toBe(0);
    // Eight copies of one wrong pair share one check, and each counts as a guess.
    await Promise.all(Array.from({ length: 8 }, () => auth.verify('alice', 'guess', reserve)));
    expect(held).toBe(8);
  });

  it('keeps the reservation of a check whose caller stopped waiting, unless the check finds the credential', async () => {
    const slow = storeWith([await credential('alice', 'pw-a')]);
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    let asked = 0;
    const store = { find: async (id: string) => (asked++, await answered, slow.find(id)) };
    const auth = new CachingAuthenticator(store);
    const given: string[] = [];
    const reserve = (password: string) => ({ refuseLocked: async () => undefined, reserve: async () => () => void given.push(password) });
    // Callers that give up while the store is still asked (a deadline, an aborted request): the checks go on.
    const checks = ['guess', 'pw-a'].map((password) => auth.verify('alice', password, reserve(password)));
    await vi.waitUntil(() => asked === 2, { timeout: 10_000, interval: 1 });
    expect(given).toEqual([]);
    // The checks themselves end once the store answers.
    answer();
    await Promise.allSettled(checks);
    expect(given).toEqual(['pw-a']);
  });

  it('checks no password when the reservation is refused', async () => {
    const store = storeWith([await credential('alice', 'pw-a')]);
    const auth = new CachingAuthenticator(store);
    await expect(auth.verify('alice', 'pw-a', { refuseLocked: async () => undefined, reserve: async () => Promise.reject(new Error('limited')) })).rejects.toThrow('limited');
    expect(store.lookups()).toBe(0);
  });

  it('refuses every pair while locked out, before the cache, a pending check or the store is asked', async () => {
    const slow = storeWith([await credential('alice', 'pw-a')]);
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    const store = { find: async (id: string) => (asked++, await gate, slow.find(id)) };
    const auth = new CachingAuthenticator(store);
    let locked = false;
    const guard = {
      refuseLocked: async () => {
        if (locked) throw new Error('locked out');
      },
      reserve: async () => () => undefined,
    };
    // A check of the right pair is pending when the lock-out begins: a copy of it does not join it.
    const first = auth.verify('alice', 'pw-a', guard);
    await vi.waitUntil(() => asked === 1, { timeout: 10_000, interval: 1 });
    locked = true;
    await expect(auth.verify('alice', 'pw-a', guard)).rejects.toThrow('locked out');
    release();
    expect(await first).toMatchObject({ id: 'alice' });
    // Now the pair is in the cache: still refused, as are a wrong password and an unknown id.
    for (const [id, password] of [['alice', 'pw-a'], ['alice', 'guess'], ['nobody', 'pw-a']] as const) {
      await expect(auth.verify(id, password, guard)).rejects.toThrow('locked out');
    }
    expect(slow.lookups()).toBe(1);
    locked = false;
    expect(await auth.verify('alice', 'pw-a', guard)).toMatchObject({ id: 'alice' });
  });

  it('never lets two different pairs share one check', async () => {
    // Joined with a separator, ("a\0b", "c") and ("a", "b\0c") would be one pair.
    const store = storeWith([await credential('a', 'b\0c'), await credential('a\0b', 'x')]);
    const auth = new CachingAuthenticator(store);
    const [joined, own] = await Promise.all([auth.verify('a\0b', 'c'), auth.verify('a', 'b\0c')]);
    expect(joined).toBeUndefined();
    expect(own).toMatchObject({ id: 'a' });
  });
});
