// Which `ossn` a bench runs: this checkout's, or another checkout's (`--base <dir>`), so a bench can
// measure the version a change started from beside it, on the same data in the same run.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `bin/ossn.mjs` of `checkout` (a directory holding ossn with its dependencies installed), else of this one. */
export function ossnEntry(checkout?: string): string {
  if (checkout === undefined) return fileURLToPath(new URL('../../bin/ossn.mjs', import.meta.url));
  const entry = resolve(checkout, 'bin/ossn.mjs');
  if (!existsSync(entry)) throw new Error(`--base ${checkout}: no bin/ossn.mjs there (give a checkout of ossn, e.g. git worktree add ../base <commit>)`);
  if (!existsSync(resolve(checkout, 'node_modules/tsx'))) throw new Error(`--base ${checkout}: its dependencies are not installed (run npm ci there)`);
  return entry;
}
