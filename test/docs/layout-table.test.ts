// The layout table of docs/development.md is the map of the tree: every folder that holds product
// code has a row, and every folder a row names is there. A folder moved, added or removed fails
// here until the table says so; the rows are the only thing to update.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outsideCode, readDoc, repositoryRoot } from './markdown.js';

/** Where the product's code is: what the image ships and runs (Dockerfile). */
const PRODUCT_ROOTS = ['bin', 'contracts', 'projections', 'services'];

const isProductModule = (name: string) => /\.(ts|mjs)$/.test(name) && !name.endsWith('.test.ts');

/** Folders (`services/query/soap/`) directly holding a module of the product other than a test. */
export function productFolders(root = repositoryRoot): string[] {
  const folders: string[] = [];
  const walk = (dir: string) => {
    const entries = readdirSync(join(root, dir), { withFileTypes: true });
    if (entries.some((entry) => entry.isFile() && isProductModule(entry.name))) folders.push(`${dir}/`);
    for (const entry of entries) if (entry.isDirectory() && entry.name !== 'node_modules') walk(`${dir}/${entry.name}`);
  };
  for (const dir of PRODUCT_ROOTS) if (existsSync(join(root, dir))) walk(dir);
  return folders.sort();
}

interface Row {
  /** The folder of the first column, `services/query/`. */
  folder: string;
  /** The whole row: a folder named in backticks in it is described by it too. */
  text: string;
}

/** The rows of the table under "## Layout" whose first column is a folder in backticks. */
export function layoutRows(markdown: string): Row[] {
  const section = /^## Layout\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(outsideCode(markdown))?.[1] ?? '';
  return [...section.matchAll(/^\| `([^`]+\/)` \|(.*)\|\s*$/gm)].map((m) => ({ folder: m[1]!, text: m[0] }));
}

/** A folder with no row of its own, and not named in its parent's row. */
export function foldersWithoutRow(folders: string[], rows: Row[]): string[] {
  const described = (folder: string) =>
    rows.some((row) => row.folder === folder || (folder.startsWith(row.folder) && row.text.includes(`\`${folder}\``)));
  return folders.filter((folder) => !described(folder));
}

/** A row whose folder is not in the tree. */
export function rowsWithoutFolder(rows: Row[], root = repositoryRoot): string[] {
  return rows.map((row) => row.folder).filter((folder) => !existsSync(join(root, folder)));
}

describe('the layout table of docs/development.md', () => {
  const rows = layoutRows(readDoc('docs/development.md'));

  it('is read: its rows and the product folders are found', () => {
    // A reader that finds nothing would pass the tests below whatever the table says.
    expect(rows.map((row) => row.folder)).toEqual(expect.arrayContaining(['services/ossn/', 'services/query/', 'contracts/', 'bin/']));
    expect(productFolders()).toEqual(expect.arrayContaining(['bin/', 'services/query/', 'contracts/errors/']));
  });

  it('has a row for every folder holding product code (or names it in its parent folder\'s row)', () => {
    expect(foldersWithoutRow(productFolders(), rows)).toEqual([]);
  });

  it('names no folder that is not in the tree', () => {
    expect(rowsWithoutFolder(rows)).toEqual([]);
  });

  it('tells a folder missing from the table, one named only by another row, and a row for a folder that is gone', () => {
    const table = `## Layout\n\n| folder | what is there |\n| --- | --- |\n| \`services/query/\` | the service, and \`services/query/soap/\` |\n| \`services/gone/\` | moved away |\n| \`docs/\` | the documents, and \`services/ossn/\` |\n\n## Next\n| \`bench/\` | not the table |\n`;
    const parsed = layoutRows(table);
    expect(parsed.map((row) => row.folder)).toEqual(['services/query/', 'services/gone/', 'docs/']);
    expect(foldersWithoutRow(['services/query/', 'services/query/soap/', 'services/ossn/', 'services/new/'], parsed)).toEqual(['services/ossn/', 'services/new/']);
    expect(rowsWithoutFolder(parsed)).toEqual(['services/gone/']);
  });
});
