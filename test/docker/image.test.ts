// The image holds the product and nothing of its tests: the files the Dockerfile's COPY lines take
// from the build context, less those .dockerignore leaves out, read without a Docker engine (none
// runs on our machines). Docker's own rules for .dockerignore: a pattern matches a path or one of
// its parent folders; `**` is any number of folders, `*` and `?` stay within one.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../docs/markdown.js';

const read = (file: string) => readFileSync(join(repositoryRoot, file), 'utf8');

/** The sources of the Dockerfile's COPY lines (of the build context: no --from). */
export function copiedSources(dockerfile: string): string[] {
  return dockerfile
    .split('\n')
    .map((line) => /^\s*COPY\s+(.+)$/i.exec(line)?.[1]?.trim().split(/\s+/))
    .filter((words): words is string[] => words !== undefined && !words.some((word) => word.startsWith('--from')))
    .flatMap((words) => words.filter((word) => !word.startsWith('--')).slice(0, -1));
}

/** .dockerignore's patterns as matchers; a `!` pattern lets a path in again (the last one that matches decides). */
export function ignoreRules(dockerignore: string): { exclude: boolean; pattern: RegExp }[] {
  return dockerignore
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const exclude = !line.startsWith('!');
      const glob = line.replace(/^!/, '').replace(/^\/+|\/+$/g, '');
      const source = glob
        .split(/(\*\*\/|\*\*|\*|\?)/)
        .map((part) => ({ '**/': '(?:.*/)?', '**': '.*', '*': '[^/]*', '?': '[^/]' })[part] ?? part.replace(/[.+^${}()|[\]\\]/g, '\\$&'))
        .join('');
      return { exclude, pattern: new RegExp(`^${source}$`) };
    });
}

export function isIgnored(path: string, rules: { exclude: boolean; pattern: RegExp }[]): boolean {
  const parts = path.split('/');
  const pathAndParents = parts.map((_, n) => parts.slice(0, n + 1).join('/'));
  let ignored = false;
  for (const rule of rules) if (pathAndParents.some((p) => rule.pattern.test(p))) ignored = rule.exclude;
  return ignored;
}

/** Every file under `source` (a file or a folder of the build context). */
function filesUnder(source: string): string[] {
  const full = join(repositoryRoot, source);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [source];
  return readdirSync(full).flatMap((name) => filesUnder(`${source.replace(/\/$/, '')}/${name}`));
}

const isTestFile = (path: string) => path.endsWith('.test.ts') || path.startsWith('test/');

describe('the image', () => {
  const sources = copiedSources(read('Dockerfile'));
  const rules = ignoreRules(read('.dockerignore'));
  const sent = sources.flatMap(filesUnder);
  const inImage = sent.filter((path) => !isIgnored(path, rules));

  it('takes the product: the command, its code and the WSDLs', () => {
    expect(sources).toEqual(expect.arrayContaining(['bin', 'services', 'contracts', 'projections', 'wsdl', 'package.json']));
    expect(inImage).toEqual(expect.arrayContaining(['bin/ossn.mjs', 'services/ossn/ossn.ts', 'contracts/erp-events.ts', 'wsdl/oss-1.0.0/OrderStatusService.wsdl']));
  });

  it('holds no test file, and leaves out nothing else', () => {
    expect(inImage.filter(isTestFile)).toEqual([]);
    expect(sent.filter((path) => isIgnored(path, rules) && !isTestFile(path))).toEqual([]);
  });

  it("reads .dockerignore as Docker does", () => {
    const rules = ignoreRules('# a comment\n**/*.test.ts\ntest/\n!test/keep.ts\nbuild?\n');
    expect(isIgnored('services/query/app.test.ts', rules)).toBe(true);
    expect(isIgnored('app.test.ts', rules)).toBe(true);
    expect(isIgnored('services/query/app.ts', rules)).toBe(false);
    expect(isIgnored('test/support/seed.ts', rules)).toBe(true);
    expect(isIgnored('test/keep.ts', rules)).toBe(false);
    expect(isIgnored('services/test/x.ts', rules)).toBe(false);
    expect(isIgnored('build1/x.ts', rules)).toBe(true);
    expect(isIgnored('build12/x.ts', rules)).toBe(false);
  });
});
