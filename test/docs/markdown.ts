// Reading the repository's Markdown documents for the tests that keep them true: their fenced
// blocks, headings and GitHub's anchors for them.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

export const readDoc = (path: string) => readFileSync(join(repositoryRoot, path), 'utf8');

/** README.md and every *.md under docs/ (and wsdl/), as paths from the root. */
export function documents(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(join(repositoryRoot, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? under(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
    );
  return ['README.md', ...under('docs'), ...under('wsdl')].map((p) => relative(repositoryRoot, join(repositoryRoot, p)));
}

export interface FencedBlock {
  /** The info string after the opening fence, e.g. `sh` or `http`. */
  lang: string;
  text: string;
  /** 1-based line of the opening fence. */
  line: number;
}

export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    blocks.push({ lang: open[1]!, text: body.join('\n'), line: start + 1 });
  }
  return blocks;
}

/** Markdown outside fenced blocks (links and headings inside code are not links and headings), lines kept where they were. */
export function outsideCode(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```[ \t]*$/gm, (block) => block.replace(/[^\n]/g, ''));
}

export function headings(markdown: string): string[] {
  return [...outsideCode(markdown).matchAll(/^#{1,6} +(.+?)\s*$/gm)].map((m) => m[1]!);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a document offers, numbered as GitHub numbers repeated headings (`-1`, `-2`). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const all = new Set<string>();
  for (const heading of headings(markdown)) {
    const base = anchor(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    all.add(n === 0 ? base : `${base}-${n}`);
  }
  return all;
}
