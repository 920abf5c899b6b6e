// The design documents the code cites are in the repository: every `*.md` a comment names exists
// (a bare name under docs/, a path from the repository's root), and so does each section it cites
// by § number or by name.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documents, headings, outsideCode, readDoc, repositoryRoot } from './markdown.js';

const codeFolders = ['services', 'projections', 'contracts', 'scripts', 'test', 'bench', 'bin', 'ops'];
const codeFile = /\.(ts|mjs|cjs|js|py|go|sh)$/;

function codeFiles(dir: string): string[] {
  return readdirSync(join(repositoryRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name.startsWith('.') ? [] : codeFiles(path);
    return codeFile.test(entry.name) ? [path] : [];
  });
}

/** The comments of a source file: `//` and `#` to the end of the line, and `/* … *\/` blocks. */
function comments(source: string, path: string): string[] {
  const found: string[] = [];
  const blocks = /\/\*[\s\S]*?\*\//g;
  for (const m of source.matchAll(blocks)) found.push(m[0]);
  const lineComment = path.endsWith('.py') || path.endsWith('.sh') ? /(?:^|\s)#(.*)$/gm : /(?:^|[^:"'`\w])\/\/(.*)$/gm;
  for (const m of source.replace(blocks, '').matchAll(lineComment)) found.push(m[1]!);
  return found;
}

interface Citation {
  where: string;
  file: string;
  sections: string[];
  named: string | undefined;
}

/** A Markdown file's name with the § numbers right after it (`§5, §6, §10.3-4`, `§4.1-§4.3`) or a section's name (`, Limits`, `, "Strings"`). */
function citations(text: string, where: string): Citation[] {
  const found: Citation[] = [];
  for (const m of text.matchAll(/([\w./-]*[\w-]\.md)\b((?:\s*(?:,|and)?\s*§[\d.]*\d(?:-§?[\d.]*\d)?)*)(?:,\s*(?:"([^"]+)"|([A-Z][a-z]+(?: [a-z]+)*)))?/g)) {
    const sections = [...(m[2] ?? '').matchAll(/§([\d.]*\d)(?:-§?([\d.]*\d))?/g)].flatMap(([, from = '', to]) => {
      if (!to) return [from];
      // §10.3-4 is 10.3 and 10.4; §4.1-§4.3 is 4.1 to 4.3.
      const [major, minor] = from.split('.');
      const last = Number(to.includes('.') ? to.split('.')[1] : to);
      return minor === undefined ? [from, to] : Array.from({ length: last - Number(minor) + 1 }, (_, i) => `${major}.${Number(minor) + i}`);
    });
    found.push({ where, file: m[1]!, sections, named: m[3] ?? m[4] });
  }
  return found;
}

/** Where a cited name lives: a path from the root, or the one document under docs/ of that name. */
function resolve(file: string): string | undefined {
  const docs = documents();
  if (file.includes('/')) return docs.includes(file) || documentsAnywhere(file) ? file : undefined;
  if (file === 'README.md') return file;
  const matches = docs.filter((d) => d.startsWith('docs/') && basename(d) === file);
  return matches.length === 1 ? matches[0] : undefined;
}

function documentsAnywhere(file: string): boolean {
  try {
    readFileSync(join(repositoryRoot, file));
    return true;
  } catch {
    return false;
  }
}

/** A § exists as a heading `N.` / `N.M` or, for `N.M`, as item `M.` of the numbered list under heading `N.`. */
function hasSection(markdown: string, section: string): boolean {
  const text = outsideCode(markdown);
  if (headings(text).some((h) => h.startsWith(`${section}.`) || h.startsWith(`${section} `))) return true;
  const [major, minor] = section.split('.');
  if (minor === undefined) return false;
  const start = text.search(new RegExp(`^#+ ${major}\\. `, 'm'));
  if (start < 0) return false;
  const rest = text.slice(start).split('\n').slice(1).join('\n');
  const end = rest.search(/^#+ /m);
  return new RegExp(`^${minor}\\. `, 'm').test(end < 0 ? rest : rest.slice(0, end));
}

function citationProblems(): string[] {
  const problems: string[] = [];
  for (const path of codeFolders.flatMap(codeFiles)) {
    const source = readFileSync(join(repositoryRoot, path), 'utf8');
    for (const comment of comments(source, path)) {
      if (/\.\.\/shared|shared\/design|shared\/reference/.test(comment)) problems.push(`${path}: cites a file outside the repository: ${comment.trim()}`);
      for (const citation of citations(comment, relative(repositoryRoot, join(repositoryRoot, path)))) {
        const doc = resolve(citation.file);
        if (!doc) {
          problems.push(`${citation.where}: cites ${citation.file}, which is not in docs/ (or not once)`);
          continue;
        }
        if (!doc.endsWith('.md') || !documents().includes(doc)) continue;
        const markdown = readDoc(doc);
        for (const section of citation.sections) if (!hasSection(markdown, section)) problems.push(`${citation.where}: cites ${citation.file} §${section}, which ${doc} has no section for`);
        if (citation.named && !headings(markdown).some((h) => h.toLowerCase().startsWith(citation.named!.toLowerCase()))) {
          problems.push(`${citation.where}: cites ${citation.file}, "${citation.named}", which ${doc} has no heading for`);
        }
      }
    }
  }
  return problems;
}

describe('citations of documents in the code', () => {
  it('find the code and its citations', () => {
    const all = codeFolders.flatMap(codeFiles).flatMap((path) => comments(readFileSync(join(repositoryRoot, path), 'utf8'), path).flatMap((c) => citations(c, path)));
    expect(all.length).toBeGreaterThan(50);
    expect(all.some((c) => c.sections.length > 0)).toBe(true);
    expect(all.some((c) => c.named !== undefined)).toBe(true);
  });

  it('name documents and sections that exist', () => {
    expect(citationProblems()).toEqual([]);
  });
});
