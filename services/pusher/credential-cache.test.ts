import { describe, expect, it } from 'vitest';
import { CredentialCache } from './credential-cache.js';
import type { CredentialLinks } from './push-targets.js';

const active: CredentialLinks = { active: true, scopes: ['osn'], clientIds: ['C1'] };
const inactive: CredentialLinks = { ...active, active: false };

/** A store of credentials behind the cache, counting the reads it is asked. */
function setUp(maxAgeMs = 1_000) {
  let now = 0;
  const store = new Map<string, CredentialLinks>([
    ['a', active],
    ['b', active],
  ]);
  const reads: string[][] = [];
  const cache = new CredentialCache({
    maxAgeMs,
    now: () => now,
    read: (ids) => {
      reads.push([...ids]);
      return Promise.resolve(new Map(ids.flatMap((id) => (store.has(id) ? [[id, store.get(id) as CredentialLinks] as const] : []))));
    },
  });
  return { cache, store, reads, at: (ms: number) => void (now = ms) };
}

type Step = { at: number; find: string } | { at: number; set: [string, CredentialLinks | undefined] } | { retain: string[] };

describe('CredentialCache', () => {
  it.each<[string, Step[], (CredentialLinks | undefined)[], string[][]]>([
    ['reads once for finds within its age', [{ at: 0, find: 'a' }, { at: 999, find: 'a' }], [active, active], [['a']]],
    ['reads again once its age is past', [{ at: 0, find: 'a' }, { at: 1_000, find: 'a' }], [active, active], [['a'], ['a']]],
    ['sees a credential made inactive once its age is past, not before', [{ at: 0, find: 'a' }, { at: 10, set: ['a', inactive] }, { at: 500, find: 'a' }, { at: 1_010, find: 'a' }], [active, active, inactive], [['a'], ['a']]],
    ['reads every credential asked for in one read', [{ at: 0, find: 'a' }, { at: 1, find: 'b' }, { at: 1_500, find: 'a' }, { at: 1_501, find: 'b' }], [active, active, active, active], [['a'], ['a', 'b'], ['a', 'b']]],
    ['keeps a gone credential gone within its age', [{ at: 0, set: ['a', undefined] }, { at: 0, find: 'a' }, { at: 300, find: 'a' }], [undefined, undefined], [['a']]],
    ['forgets the credentials not retained', [{ at: 0, find: 'a' }, { at: 1, find: 'b' }, { retain: ['b'] }, { at: 2_000, find: 'b' }], [active, active, active], [['a'], ['a', 'b'], ['b']]],
  ])('%s', async (_, steps, found, reads) => {
    const t = setUp();
    const results: (CredentialLinks | undefined)[] = [];
    for (const step of steps) {
      if ('retain' in step) t.cache.retain(new Set(step.retain));
      else if ('find' in step) {
        t.at(step.at);
        results.push(await t.cache.find(step.find));
      } else {
        const [id, links] = step.set;
        if (links) t.store.set(id, links);
        else t.store.delete(id);
      }
    }
    expect(results).toEqual(found);
    expect(t.reads).toEqual(reads);
  });

  it('shares one read among the finds made while it runs', async () => {
    const t = setUp();
    const found = await Promise.all([t.cache.find('a'), t.cache.find('a')]);
    expect(found).toEqual([active, active]);
    expect(t.reads).toEqual([['a']]);
  });

  it('finds a credential let go by a look while it waited for a read begun before it asked', async () => {
    const answers: ((found: Map<string, CredentialLinks>) => void)[] = [];
    const reads: string[][] = [];
    const cache = new CredentialCache({
      maxAgeMs: 1_000,
      now: () => 0,
      read: (ids) => {
        reads.push([...ids]);
        if (reads.length > 2) return Promise.reject(new Error('read in a loop'));
        return new Promise((resolve) => answers.push(resolve));
      },
    });
    const a = cache.find('a');
    const b = cache.find('b');
    cache.retain(new Set(['a']));
    answers[0]?.(new Map([['a', active]]));
    await a;
    await Promise.resolve();
    answers[1]?.(new Map([['b', inactive]]));
    expect(await b).toEqual(inactive);
    expect(reads).toEqual([['a'], ['a', 'b']]);
  });

  it('gives up waiting when the signal aborts', async () => {
    const t = setUp();
    const stop = new AbortController();
    stop.abort(new Error('stopped'));
    await expect(t.cache.find('a', stop.signal)).rejects.toThrow('stopped');
  });
});
