import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, withLock } from './lock.js';

let dir = '';
let file = '';
const lines: string[] = [];
const options = { log: (line: string) => void lines.push(line) };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ossn-lock-'));
  file = join(dir, 'lock');
  lines.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the lock file', () => {
  it('lets callers in one process through one at a time (its own pid holding it makes the others wait)', async () => {
    let inside = 0;
    let most = 0;
    const order: string[] = [];
    const work = (name: string) =>
      withLock(file, options, async () => {
        most = Math.max(most, ++inside);
        order.push(`${name} in`);
        // A turn of the event loop inside: callers let in together would all be inside now.
        await new Promise((resolve) => setImmediate(resolve));
        order.push(`${name} out`);
        inside--;
        return name;
      });
    expect(await Promise.all([work('a'), work('b'), work('c')])).toEqual(['a', 'b', 'c']);
    expect(most).toBe(1);
    // Each one out before the next one in.
    const pairs = [0, 2, 4].map((i) => `${order[i]} / ${order[i + 1]}`);
    expect(pairs.sort()).toEqual(['a in / a out', 'b in / b out', 'c in / c out']);
    expect(lines).toContain(`waiting for another stack command (pid ${process.pid}) to finish with ${file}`);
    expect(existsSync(file)).toBe(false);
  });

  it('is held by acquireLock until released, and a caller waiting longer than its deadline is told who holds it', async () => {
    const release = await acquireLock(file, options);
    const waited = withLock(file, { ...options, timeoutMs: 600, holder: 'another cluster test run' }, async () => 'ran');
    await expect(waited).rejects.toThrow(`another cluster test run (pid ${process.pid}) has held ${file} for 0.6 s; let it finish or stop it`);
    const next = withLock(file, options, async () => 'ran'); // waiting from its first look at the file
    await release();
    expect(await next).toBe('ran');
  });

  it('is taken over from a holder that died', async () => {
    writeFileSync(file, JSON.stringify({ pid: 2 ** 22 + 1 }));
    expect(await withLock(file, { ...options, timeoutMs: 1_000 }, async () => 'ran')).toBe('ran');
    expect(lines).toEqual([]);
  });

  it('is released when the work fails', async () => {
    await expect(withLock(file, options, () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(existsSync(file)).toBe(false);
  });
});
