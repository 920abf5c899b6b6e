import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../plumbing/logging/logger.js';
import { readPushConfig } from './config.js';
import { ConfigError } from './env.js';
import { decodeSecretKey, SecretKey } from './secret-key.js';

const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7 + 1));
const base64 = bytes.toString('base64');
const hex = bytes.toString('hex');
const store = { MONGODB_URI: 'mongodb://db:27017/' };

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

const form = '32 bytes in base64 (openssl rand -base64 32) or in hex (64 hex digits)';

describe('the secret key as written', () => {
  it.each<[string, string, string | undefined]>([
    ['base64, padded', base64, undefined],
    ['base64 with a newline after it (a file)', `${base64}\n`, undefined],
    ['base64 without padding', base64.replace(/=+$/, ''), undefined],
    ['URL-safe base64', bytes.toString('base64url'), undefined],
    ['hex', hex, undefined],
    ['hex in capitals', hex.toUpperCase(), undefined],
    ['16 bytes of base64', bytes.subarray(0, 16).toString('base64'), `must be ${form}; it holds 16 bytes (read as base64)`],
    ['33 bytes of base64', Buffer.concat([bytes, Buffer.from([1])]).toString('base64'), `must be ${form}; it holds 33 bytes (read as base64)`],
    ['16 bytes of hex', bytes.subarray(0, 16).toString('hex'), `must be ${form}; it holds 16 bytes (read as hex)`],
    ['a passphrase', 'correct horse battery staple', `must be ${form}; it is neither`],
    ['base64 with padding inside', `${base64.slice(0, 10)}=${base64.slice(11)}`, `must be ${form}; it is neither`],
  ])('%s', (_case, text, problem) => {
    const decoded = decodeSecretKey(text);
    if (problem === undefined) {
      expect('key' in decoded && decoded.key.bytes()).toEqual(bytes);
    } else {
      expect(decoded).toEqual({ problem });
    }
  });

  it('has an id of 16 hex digits that differs between keys and tells nothing of the bytes', () => {
    const key = new SecretKey(bytes);
    expect(key.id).toMatch(/^[0-9a-f]{16}$/);
    expect(new SecretKey(bytes).id).toBe(key.id);
    expect(new SecretKey(Buffer.alloc(32, 1)).id).not.toBe(key.id);
    expect(hex).not.toContain(key.id);
  });

  it('never shows its bytes when printed, serialised or logged at trace level', () => {
    const key = new SecretKey(bytes);
    let logged = '';
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged += chunk.toString();
        done();
      },
    });
    createLogger('test', 'trace', out).trace({ key, config: { secretKey: key } }, 'key');
    const shown = [JSON.stringify({ key }), inspect(key, { showHidden: true, depth: 5 }), String(key), `${key}`, logged];
    expect(logged).toContain(key.id);
    for (const text of shown) {
      expect(text).not.toContain(hex);
      expect(text).not.toContain(base64.slice(0, 20));
      expect(text).not.toContain(bytes.toString('base64url').slice(0, 20));
    }
  });
});

describe('the push configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ossn-secret-key-'));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it('reads the key from OSSN_SECRET_KEY or from the file OSSN_SECRET_KEY_FILE names', () => {
    expect(readPushConfig({ ...store, OSSN_SECRET_KEY: base64 }).secretKey.bytes()).toEqual(bytes);
    expect(readPushConfig({ ...store, OSSN_SECRET_KEY_FILE: file('key', `${hex}\n`) }).secretKey.bytes()).toEqual(bytes);
    expect(readPushConfig({ ...store, OSSN_SECRET_KEY: base64 }).store).toEqual({ mongodbUri: 'mongodb://db:27017/', database: 'ossn', readModelVersion: 1 });
  });

  it.each<[string, Record<string, string>, string[]]>([
    ['no key', {}, [`OSSN_SECRET_KEY is required: set OSSN_SECRET_KEY or OSSN_SECRET_KEY_FILE (${form})`]],
    ['an empty key', { OSSN_SECRET_KEY: '  ' }, [`OSSN_SECRET_KEY is required: set OSSN_SECRET_KEY or OSSN_SECRET_KEY_FILE (${form})`]],
    ['both', { OSSN_SECRET_KEY: base64, OSSN_SECRET_KEY_FILE: '/run/secrets/key' }, ['OSSN_SECRET_KEY and OSSN_SECRET_KEY_FILE are both set: set one of them']],
    ['a short key', { OSSN_SECRET_KEY: 'c2hvcnQta2V5LXNlY3JldA==' }, [`OSSN_SECRET_KEY must be ${form}; it holds 16 bytes (read as base64)`]],
    ['a missing file', { OSSN_SECRET_KEY_FILE: '/nonexistent/ossn-key' }, ['OSSN_SECRET_KEY_FILE: the file /nonexistent/ossn-key cannot be read (ENOENT)']],
  ])('refuses %s in one line, never quoting the key', (_case, env, problems) => {
    expect(problemsOf(() => readPushConfig({ ...store, ...env }))).toEqual(problems);
  });

  it("refuses a file whose content is not a key, naming the file and never quoting the content", () => {
    const path = file('bad', 'c2hvcnQta2V5LXNlY3JldA==\n');
    const problems = problemsOf(() => readPushConfig({ ...store, OSSN_SECRET_KEY_FILE: path }));
    expect(problems).toEqual([`OSSN_SECRET_KEY_FILE's file ${path} must be ${form}; it holds 16 bytes (read as base64)`]);
    expect(problems.join('\n')).not.toContain('c2hvcnQta2V5LXNlY3JldA');
  });

  it('reports a bad key beside the other problems', () => {
    expect(problemsOf(() => readPushConfig({ OSSN_SECRET_KEY: 'nope nope' }))).toEqual([
      'MONGODB_URI is required (mongodb or mongodb+srv URL)',
      `OSSN_SECRET_KEY must be ${form}; it is neither`,
    ]);
  });
});
