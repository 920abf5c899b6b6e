import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StackError } from './errors.js';

/**
 * Fixes to FerretDB 1.24.2's SQLite backend, applied to a copy of its module that our build uses
 * instead of the downloaded one. Without them every lookup but one by _id alone scans the whole
 * table, so writes and queries slow down with the collection's size, which MongoDB's do not; the
 * local stack is meant to behave like the production database, only smaller.
 */

/** This file: a change to the patches rebuilds the binary. */
export const ferretdbPatchesFile = fileURLToPath(import.meta.url);

interface SourcePatch {
  /** Path inside the FerretDB module. */
  file: string;
  why: string;
  /** Each `before` must occur exactly once in the file. */
  edits: { before: string; after: string }[];
}

/**
 * FerretDB's rule for narrowing a query by _id, which Query and Explain each carry a copy of;
 * Explain's also notes that it pushed the filter down.
 */
const upstreamIdRule = (explainLine: string) => `	var whereClause string
	var args []any

	// that logic should exist in one place
	// TODO https://github.com/FerretDB/FerretDB/issues/3235
	if params.Filter.Len() == 1 {
		v, _ := params.Filter.Get("_id")
		switch v.(type) {
		case string, types.ObjectID:
${explainLine}			whereClause = fmt.Sprintf(\` WHERE %s = ?\`, metadata.IDColumn)
			args = []any{string(must.NotFail(sjson.MarshalSingleValue(v)))}
		}
	}
`;

/** Go files of ours added to FerretDB's SQLite backend (package sqlite), from scripts/stack/ferretdb. */
export const ferretdbAddedFiles: { from: string; to: string }[] = [
  { from: '_sqlite/filter_pushdown.go', to: 'internal/backends/sqlite/filter_pushdown.go' },
];

export const ferretdbPatches: SourcePatch[] = [
  {
    file: 'internal/backends/sqlite/metadata/metadata.go',
    why:
      "the _id index is created on `_ferretdb_sjson->'_id'`, but queries ask for `->'$._id'`, " +
      'an expression SQLite does not match to that index: the same value, spelled the way the index is',
    edits: [{ before: `IDColumn = DefaultColumn + "->'$._id'"`, after: `IDColumn = DefaultColumn + "->'_id'"` }],
  },
  {
    file: 'internal/backends/sqlite/collection.go',
    why:
      'only a filter of nothing but an _id is pushed down to SQLite, so every other lookup reads the whole table: ' +
      'now equality, $in and date ranges on top-level fields are (filter_pushdown.go), in Query and in Explain alike ' +
      '(the handlers still apply the whole filter), and SQLite gets index statistics as tables grow',
    edits: [
      {
        before: `	q := prepareSelectClause(meta.TableName, params.Comment, meta.Capped(), params.OnlyRecordIDs)

${upstreamIdRule('')}`,
        after: `	q := prepareSelectClause(meta.TableName, params.Comment, meta.Capped(), params.OnlyRecordIDs)

	whereClause, args := pushdownWhereClause(params.Filter)
`,
      },
      {
        // Explain has its own copy of the old rule; it must report what Query now does.
        before: `	var filterPushdown bool
${upstreamIdRule('\t\t\tfilterPushdown = true\n')}`,
        after: `	whereClause, args := pushdownWhereClause(params.Filter)
	filterPushdown := whereClause != ""
`,
      },
      {
        // InsertAll's transaction, once its documents are in.
        before: `		return nil
	})
	if err != nil {
		return nil, err
	}

	return new(backends.InsertAllResult), nil`,
        after: `		return analyzeWhenGrown(ctx, tx, meta.TableName)
	})
	if err != nil {
		return nil, err
	}

	return new(backends.InsertAllResult), nil`,
      },
      {
        // A new index on a table that already has rows gets its statistics at once.
        before: `	return new(backends.CreateIndexesResult), nil`,
        after: `	if db, meta := c.r.DatabaseGetExisting(ctx, c.dbName), c.r.CollectionGet(ctx, c.dbName, c.name); db != nil && meta != nil {
		if err = db.InTransaction(ctx, func(tx *fsql.Tx) error { return analyze(ctx, tx, meta.TableName) }); err != nil {
			return nil, lazyerrors.Error(err)
		}
	}

	return new(backends.CreateIndexesResult), nil`,
      },
    ],
  },
];

function makeWritable(dir: string): void {
  if (!existsSync(dir)) return;
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    chmodSync(resolve(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644);
  }
}

/**
 * Copies the FerretDB module to `dir`/src, patches it there, and writes a go.mod (our module's,
 * with a `replace` to the copy) for `go build -modfile`. Go refuses overlays of files in the
 * module cache, and the cache itself must stay as downloaded. Returns the go.mod's path.
 */
export function preparePatchedFerretdb(moduleRoot: string, ourModuleDir: string, dir: string): string {
  const sources = resolve(dir, 'src');
  makeWritable(sources); // an earlier copy keeps the module cache's read-only modes
  rmSync(sources, { recursive: true, force: true });
  cpSync(moduleRoot, sources, { recursive: true });
  makeWritable(sources);
  for (const { from, to } of ferretdbAddedFiles) copyFileSync(resolve(ourModuleDir, from), resolve(sources, to));
  for (const patch of ferretdbPatches) {
    const file = resolve(sources, patch.file);
    let text = readFileSync(file, 'utf8');
    for (const { before, after } of patch.edits) {
      const count = text.split(before).length - 1;
      if (count !== 1) {
        throw new StackError(`ferretdb: cannot patch ${patch.file} (${patch.why}): the text to replace occurs ${count} times, not once`);
      }
      text = text.replace(before, () => after);
    }
    writeFileSync(file, text);
  }
  const goMod = resolve(dir, 'go.mod');
  const replace = `\nreplace github.com/FerretDB/FerretDB => ${JSON.stringify(sources)}\n`;
  writeFileSync(goMod, readFileSync(resolve(ourModuleDir, 'go.mod'), 'utf8') + replace);
  copyFileSync(resolve(ourModuleDir, 'go.sum'), resolve(dir, 'go.sum'));
  return goMod;
}

/** Writes a go.mod and go.sum (our module's, unchanged) for `go build -modfile` of FerretDB as released. */
export function prepareUpstreamFerretdb(ourModuleDir: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const goMod = resolve(dir, 'go.mod');
  copyFileSync(resolve(ourModuleDir, 'go.mod'), goMod);
  copyFileSync(resolve(ourModuleDir, 'go.sum'), resolve(dir, 'go.sum'));
  return goMod;
}
