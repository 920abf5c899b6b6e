import { chmodSync, copyFileSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StackError } from './errors.js';

/**
 * Fixes to FerretDB 1.24.2's SQLite backend, applied to a copy of its module that our build uses
 * instead of the downloaded one. Without them every lookup by _id scans the whole table, so
 * writes slow down with the collection's size, which MongoDB's do not; the local stack is meant
 * to behave like the production database, only smaller.
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
      'the _id of a filter narrows the query only when the filter has no other field, and `$in` never: ' +
      'now any filter with an _id equality or an `$in` of ids narrows it (the handlers still apply the whole filter)',
    edits: [
      {
        before: `	q := prepareSelectClause(meta.TableName, params.Comment, meta.Capped(), params.OnlyRecordIDs)

${upstreamIdRule('')}`,
        after: `	q := prepareSelectClause(meta.TableName, params.Comment, meta.Capped(), params.OnlyRecordIDs)

	whereClause, args := idWhereClause(params.Filter)
`,
      },
      {
        // Explain has its own copy of the old rule; it must report what Query now does.
        before: `	var filterPushdown bool
${upstreamIdRule('\t\t\tfilterPushdown = true\n')}`,
        after: `	whereClause, args := idWhereClause(params.Filter)
	filterPushdown := whereClause != ""
`,
      },
      {
        before: `// Explain implements backends.Collection interface.`,
        after: `// idWhereClause narrows a query to the ids its filter's _id field allows: one id, or an $in of
// at most maxNarrowedIDs ids (SQLite limits the variables of a statement). A filter naming _id
// twice is left alone: types.Document.Get panics on a duplicated key.
func idWhereClause(filter *types.Document) (string, []any) {
	const maxNarrowedIDs = 10000

	var v any
	found := 0
	for i, key := range filter.Keys() {
		if key == "_id" {
			v = filter.Values()[i]
			found++
		}
	}
	if found != 1 {
		return "", nil
	}

	switch v := v.(type) {
	case string, types.ObjectID:
		return fmt.Sprintf(\` WHERE %s = ?\`, metadata.IDColumn), []any{string(must.NotFail(sjson.MarshalSingleValue(v)))}
	case *types.Document:
		if v.Len() != 1 {
			return "", nil
		}
		in, _ := v.Get("$in")
		ids, ok := in.(*types.Array)
		if !ok || ids.Len() == 0 || ids.Len() > maxNarrowedIDs {
			return "", nil
		}
		args := make([]any, 0, ids.Len())
		for i := 0; i < ids.Len(); i++ {
			switch id := must.NotFail(ids.Get(i)); id.(type) {
			case string, types.ObjectID:
				args = append(args, string(must.NotFail(sjson.MarshalSingleValue(id))))
			default:
				return "", nil
			}
		}
		return fmt.Sprintf(\` WHERE %s IN (?%s)\`, metadata.IDColumn, strings.Repeat(", ?", len(args)-1)), args
	}
	return "", nil
}

// Explain implements backends.Collection interface.`,
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
