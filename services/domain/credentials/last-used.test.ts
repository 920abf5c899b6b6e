import { describe, expect, it } from 'vitest';
import { createLogger } from '../../plumbing/logging/logger.js';
import type { Authenticator } from './credential.js';
import { RecordingLastUse } from './last-used.js';

describe('RecordingLastUse', () => {
  const inner: Authenticator = { verify: async (id, password) => (password === 'right' ? { id, scopes: ['osn'], clientIds: ['C1'] } : undefined) };

  it('writes a credential\'s use at most once a minute, never for a refused login, and never makes the request wait', async () => {
    let now = 1_000_000;
    const writes: [string, number][] = [];
    let release: () => void = () => undefined;
    const store = { recordUse: (id: string, at: Date) => (writes.push([id, at.getTime()]), new Promise<void>((resolve) => (release = resolve))) };
    const auth = new RecordingLastUse(inner, store, createLogger('test', 'silent'), () => now);

    // The store's write never ends here: the verification does not wait for it.
    expect(await auth.verify('acme', 'right')).toMatchObject({ id: 'acme' });
    expect(await auth.verify('acme', 'wrong')).toBeUndefined();
    now += 59_999;
    expect(await auth.verify('acme', 'right')).toMatchObject({ id: 'acme' });
    expect(await auth.verify('globex', 'right')).toMatchObject({ id: 'globex' });
    now += 1;
    expect(await auth.verify('acme', 'right')).toMatchObject({ id: 'acme' });
    release();
    expect(writes).toEqual([
      ['acme', 1_000_000],
      ['globex', 1_059_999],
      ['acme', 1_060_000],
    ]);
  });

  it('a failed write costs the partner nothing and is tried again a minute later', async () => {
    let now = 0;
    let tries = 0;
    const store = { recordUse: async () => void (tries++, await Promise.reject(new Error('store away'))) };
    const auth = new RecordingLastUse(inner, store, createLogger('test', 'silent'), () => now);
    expect(await auth.verify('acme', 'right')).toMatchObject({ id: 'acme' });
    expect(await auth.verify('acme', 'right')).toMatchObject({ id: 'acme' });
    now += 60_000;
    expect(await auth.verify('acme', 'right')).toMatchObject({ id: 'acme' });
    expect(tries).toBe(2);
  });
});
