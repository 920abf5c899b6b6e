import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/env.js';
import { UnknownCredentialError } from '../adapters/mongodb/credential-store.js';
import { ExitCode, exitCodeFor } from './exit-codes.js';
import { ServerUnreachableError } from './server-waits.js';
import { UsageError } from './usage.js';

describe('exit codes', () => {
  it.each<[string, unknown, number]>([
    ['a usage mistake', new UsageError('ossn publish: unknown option --x'), 2],
    ['a bad setting', new ConfigError(['KAFKA_BROKERS is required']), 2],
    ['a server away', new ServerUnreachableError('Kafka', 'KAFKA_BROKERS', 'k:9092', 10_000, new Error('connect ECONNREFUSED')), 1],
    ['an unknown id', new UnknownCredentialError('ghost'), 1],
    ['anything else', new Error('boom'), 1],
    ['a thrown string', 'boom', 1],
  ])('%s exits %i', (_case, error, code) => {
    expect(exitCodeFor(error)).toBe(code);
  });

  it('are the table the operators read (README.md or docs/), code for code', () => {
    const root = new URL('../../', import.meta.url);
    const docs = [new URL('README.md', root), ...readdirSafe(new URL('docs/', root)).map((name) => new URL(`docs/${name}`, root))];
    const tables = docs
      .map((file) => readFileSync(file, 'utf8'))
      .map((text) => [...text.matchAll(/^\| `(\d)` \| (\w[\w ]*?):/gm)].map((m) => [Number(m[1]), m[2]] as const))
      .filter((rows) => rows.length > 0);
    expect(tables).toHaveLength(1);
    const expected = Object.entries(ExitCode).map(([name, code]) => [code, name === 'partial' ? 'partly done' : name] as const);
    expect(tables[0]).toEqual(expected);
  });
});

function readdirSafe(dir: URL): string[] {
  try {
    return readdirSync(dir).filter((name) => name.endsWith('.md'));
  } catch {
    return [];
  }
}
