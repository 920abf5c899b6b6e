// Every relative link in the README and the documents under docs/ (and wsdl/) leads somewhere: the
// file it names exists, and the heading its #anchor names is in that file.
import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, documents, outsideCode, readDoc, repositoryRoot } from './markdown.js';

/** [text](target) links outside code, with their line numbers; images included, external links left out. */
function relativeLinks(markdown: string): { target: string; line: number }[] {
  const text = outsideCode(markdown);
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => ({ target: m[1]!, line: text.slice(0, m.index).split('\n').length }))
    .filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

function brokenLinks(doc: string): string[] {
  const broken: string[] = [];
  for (const { target, line } of relativeLinks(readDoc(doc))) {
    const [path = '', fragment] = target.split('#');
    const file = path === '' ? doc : normalize(join(dirname(doc), decodeURIComponent(path)));
    const where = `${doc} line ${line}: ${target}`;
    if (relative(repositoryRoot, join(repositoryRoot, file)).startsWith('..')) {
      broken.push(`${where} leaves the repository`);
      continue;
    }
    if (!existsSync(join(repositoryRoot, file))) {
      broken.push(`${where}: no file ${file}`);
      continue;
    }
    if (fragment !== undefined && file.endsWith('.md') && statSync(join(repositoryRoot, file)).isFile() && !anchors(readDoc(file)).has(fragment)) {
      broken.push(`${where}: no heading #${fragment} in ${file}`);
    }
  }
  return broken;
}

describe('links in the documents', () => {
  it('covers the README and docs/, and finds their links', () => {
    expect(documents()).toEqual(expect.arrayContaining(['README.md', 'docs/partners.md', 'docs/erp-events.md', 'docs/operations.md']));
    // A link reader that finds nothing would pass the next test whatever the links say.
    const found = documents().flatMap((doc) => relativeLinks(readDoc(doc)));
    expect(found.length).toBeGreaterThan(40);
    expect(found.filter(({ target }) => target.includes('#')).length).toBeGreaterThan(15);
  });

  it('lead to files and headings that exist', () => {
    expect(documents().flatMap(brokenLinks)).toEqual([]);
  });
});
