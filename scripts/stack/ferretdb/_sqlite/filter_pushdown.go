// This file is copied into FerretDB 1.24.2's SQLite backend (package sqlite) by the local stack's
// build (scripts/stack/ferretdb-patches.ts); the leading underscore of its folder keeps the go
// tool from building it as part of our own module.

package sqlite

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// FerretDB's handlers apply the whole filter in Go to every document a query returns, so a WHERE
// clause pushed down to SQLite only has to select a superset of the matching documents. The
// conditions below are written the way FerretDB spells its indexes (`_ferretdb_sjson->'field'`,
// the JSON text of the field), so that SQLite reads them through those indexes. Whatever they
// cannot express exactly as a superset they leave out.

const (
	// maxPushedArgs keeps a statement under SQLite's limit of variables (32,766).
	maxPushedArgs = 10000

	// Dates are stored as milliseconds since the epoch; as JSON text, those of 13 digits
	// (2001-09-09 to 2286-11-20) sort as they compare, so only ranges within them can be read
	// through an index.
	minTextOrderedMillis = 1_000_000_000_000
	maxTextOrderedMillis = 9_999_999_999_999
)

// pushableField is a top-level field whose name can be written into the SQL as it is.
var pushableField = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// pushdownWhereClause returns a WHERE clause (empty if none) that selects a superset of the
// documents filter matches.
func pushdownWhereClause(filter *types.Document) (string, []any) {
	if filter == nil {
		return "", nil
	}

	keys, values := filter.Keys(), filter.Values()
	seen := make(map[string]int, len(keys))
	for _, key := range keys {
		seen[key]++
	}

	var conds []string
	var args []any
	for i, key := range keys {
		// A field named twice is left alone: types.Document.Get panics on a duplicated key.
		if seen[key] != 1 {
			continue
		}

		var cond string
		var condArgs []any
		switch {
		case key == "_id":
			cond, condArgs = idCondition(values[i])
		case pushableField.MatchString(key):
			cond, condArgs = fieldCondition(key, values[i])
		}

		if cond == "" || len(args)+len(condArgs) > maxPushedArgs {
			continue
		}
		conds = append(conds, cond)
		args = append(args, condArgs...)
	}

	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// idCondition narrows by one id, or an $in of ids (_id is never an array).
func idCondition(v any) (string, []any) {
	id := func(v any) (any, bool) {
		switch v.(type) {
		case string, types.ObjectID:
			return string(must.NotFail(sjson.MarshalSingleValue(v))), true
		}
		return nil, false
	}

	if arg, ok := id(v); ok {
		return metadata.IDColumn + ` = ?`, []any{arg}
	}

	ops, ok := v.(*types.Document)
	if !ok || ops.Len() != 1 {
		return "", nil
	}
	in, _ := ops.Get("$in")
	args, ok := arrayArgs(in, id)
	if !ok {
		return "", nil
	}
	return fmt.Sprintf(`%s IN (?%s)`, metadata.IDColumn, strings.Repeat(", ?", len(args)-1)), args
}

// fieldCondition pushes down equality with a string, boolean or date, $eq, $in of those, and
// date ranges ($gt, $gte, $lt, $lte) on one top-level field. Other operators are left to Go.
func fieldCondition(field string, v any) (string, []any) {
	path := fmt.Sprintf(`%s->'%s'`, metadata.DefaultColumn, field)

	// Like MongoDB's, FerretDB's `{f: x}` also matches an array holding x; each condition
	// therefore also admits every array value (JSON text starting with "[") for Go to check.
	anArray := fmt.Sprintf(`(%[1]s >= '[' AND %[1]s < '\')`, path)

	if text, ok := scalarText(v); ok {
		return fmt.Sprintf(`(%s = ? OR %s)`, path, anArray), []any{text}
	}

	ops, ok := v.(*types.Document)
	if !ok || ops.Len() == 0 {
		return "", nil
	}

	var conds []string
	var args []any
	r := dateRange{path: path, number: fmt.Sprintf(`%s->>'%s'`, metadata.DefaultColumn, field), anArray: anArray}
	for i, op := range ops.Keys() {
		operand := ops.Values()[i]
		switch op {
		case "$eq":
			if text, ok := scalarText(operand); ok {
				conds = append(conds, fmt.Sprintf(`(%s = ? OR %s)`, path, anArray))
				args = append(args, text)
			}
		case "$in":
			if texts, ok := arrayArgs(operand, scalarText); ok {
				conds = append(conds, fmt.Sprintf(`(%s IN (?%s) OR %s)`, path, strings.Repeat(", ?", len(texts)-1), anArray))
				args = append(args, texts...)
			}
		case "$gt", "$gte", "$lt", "$lte":
			if t, ok := operand.(time.Time); ok {
				r.bounds = append(r.bounds, bound{op: op, millis: t.UnixMilli()})
			}
		case "$elemMatch":
			if cond, condArgs := elementRange(path, anArray, operand); cond != "" {
				conds = append(conds, cond)
				args = append(args, condArgs...)
			}
		default:
			if !strings.HasPrefix(op, "$") {
				return "", nil // an embedded document to compare with, not operators
			}
			// other operators: left to Go
		}
	}

	if cond, condArgs := r.condition(); cond != "" {
		conds = append(conds, cond)
		args = append(args, condArgs...)
	}

	if len(conds) == 0 {
		return "", nil
	}
	return strings.Join(conds, " AND "), args
}

// scalarText is the JSON text SQLite's `->` gives for a string, boolean or date stored as v.
// A string is pushed down only if its JSON text is the string itself in quotes: one spelling.
func scalarText(v any) (any, bool) {
	switch v := v.(type) {
	case string:
		text := string(must.NotFail(sjson.MarshalSingleValue(v)))
		if text != `"`+v+`"` {
			return nil, false
		}
		return text, true
	case bool, time.Time:
		return string(must.NotFail(sjson.MarshalSingleValue(v))), true
	}
	return nil, false
}

// arrayArgs converts every element of an $in array, or reports that one cannot be.
func arrayArgs(v any, convert func(any) (any, bool)) ([]any, bool) {
	arr, ok := v.(*types.Array)
	if !ok || arr.Len() == 0 || arr.Len() > maxPushedArgs {
		return nil, false
	}
	args := make([]any, 0, arr.Len())
	for i := 0; i < arr.Len(); i++ {
		arg, ok := convert(must.NotFail(arr.Get(i)))
		if !ok {
			return nil, false
		}
		args = append(args, arg)
	}
	return args, true
}

type bound struct {
	op     string
	millis int64
}

// sqlOp is the bound's comparison operator in SQL.
func (b bound) sqlOp() string {
	return map[string]string{"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}[b.op]
}

func (b bound) lower() bool { return b.op == "$gt" || b.op == "$gte" }

// dateRange is the date bounds of one field.
type dateRange struct {
	// path is the field as JSON text (as indexed), number as an SQL value (a date: an integer).
	path    string
	number  string
	anArray string
	bounds  []bound
}

// condition matches a date within every bound, or an array with, for each bound, an element
// within it (MongoDB's rule for arrays: not necessarily the same element). Array elements are
// compared as numbers by json_each, inside SQLite; the field itself as JSON text through the
// index when every bound is a 13-digit millisecond value and the range is closed on both sides,
// otherwise as a number (SQLite's `->>`), without the index.
func (r dateRange) condition() (string, []any) {
	if len(r.bounds) == 0 {
		return "", nil
	}

	textOrdered := true
	var hasLower, hasUpper bool
	for _, b := range r.bounds {
		textOrdered = textOrdered && b.millis >= minTextOrderedMillis && b.millis <= maxTextOrderedMillis
		hasLower = hasLower || b.lower()
		hasUpper = hasUpper || !b.lower()
	}
	textOrdered = textOrdered && hasLower && hasUpper

	var scalar, elements []string
	var scalarArgs, elementArgs []any
	if !textOrdered {
		// Only a number can be a date here: `->>` gives arrays and strings as text, which SQLite
		// would rank above every number.
		scalar = append(scalar, fmt.Sprintf(`typeof(%s) = 'integer'`, r.number))
	}
	for _, b := range r.bounds {
		if textOrdered {
			scalar = append(scalar, fmt.Sprintf(`%s %s ?`, r.path, b.sqlOp()))
			scalarArgs = append(scalarArgs, strconv.FormatInt(b.millis, 10))
		} else {
			scalar = append(scalar, fmt.Sprintf(`%s %s ?`, r.number, b.sqlOp()))
			scalarArgs = append(scalarArgs, b.millis)
		}
		elements = append(elements, fmt.Sprintf(`EXISTS (SELECT 1 FROM json_each(%s) WHERE value %s ?)`, r.path, b.sqlOp()))
		elementArgs = append(elementArgs, b.millis)
	}

	cond := fmt.Sprintf(`((%s) OR (%s AND %s))`, strings.Join(scalar, " AND "), r.anArray, strings.Join(elements, " AND "))
	args := append(scalarArgs, elementArgs...)
	if textOrdered {
		// Both alternatives lie in one range of JSON text, from the lowest bound's digits to the
		// end of the arrays: stated on its own, SQLite reads it from the index as one range.
		var lowest int64 = maxTextOrderedMillis
		for _, b := range r.bounds {
			if b.lower() {
				lowest = min(lowest, b.millis)
			}
		}
		cond = fmt.Sprintf(`%[1]s >= ? AND %[1]s < '\' AND %[2]s`, r.path, cond)
		args = append([]any{strconv.FormatInt(lowest, 10)}, args...)
	}
	return cond, args
}

// elementRange pushes down an $elemMatch of date bounds only: an array with, for each bound, an
// element within it. MongoDB wants one element within all of them; FerretDB 1.24 as released
// matches any elements, and the pushdown must not answer less than it.
func elementRange(path, anArray string, v any) (string, []any) {
	ops, ok := v.(*types.Document)
	if !ok || ops.Len() == 0 {
		return "", nil
	}
	var within []string
	var args []any
	for i, op := range ops.Keys() {
		t, ok := ops.Values()[i].(time.Time)
		if !ok || (op != "$gt" && op != "$gte" && op != "$lt" && op != "$lte") {
			return "", nil // anything else: all of it is left to Go
		}
		within = append(within, fmt.Sprintf(`EXISTS (SELECT 1 FROM json_each(%s) WHERE value %s ?)`, path, bound{op: op}.sqlOp()))
		args = append(args, t.UnixMilli())
	}
	return fmt.Sprintf(`(%s AND %s)`, anArray, strings.Join(within, " AND ")), args
}

// analyzeWhenGrown gathers the statistics of table's indexes (SQLite's ANALYZE, on a sample)
// when it has none or the table has at least doubled since: without them SQLite does not read
// a filter that also admits arrays through the compound index that serves it.
func analyzeWhenGrown(ctx context.Context, tx *fsql.Tx, table string) error {
	var rows int64
	if err := tx.QueryRowContext(ctx, fmt.Sprintf(`SELECT coalesce(max(rowid), 0) FROM %q`, table)).Scan(&rows); err != nil {
		return lazyerrors.Error(err)
	}

	var statTables int
	q := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'`
	if err := tx.QueryRowContext(ctx, q).Scan(&statTables); err != nil {
		return lazyerrors.Error(err)
	}

	if statTables == 1 {
		// The first number of an index's statistics is the table's rows when they were gathered.
		var analyzed int64
		q = `SELECT coalesce(max(CAST(stat AS INTEGER)), 0) FROM sqlite_stat1 WHERE tbl = ?`
		if err := tx.QueryRowContext(ctx, q, table).Scan(&analyzed); err != nil {
			return lazyerrors.Error(err)
		}
		if analyzed > 0 && rows < 2*analyzed {
			return nil
		}
	}

	return analyze(ctx, tx, table)
}

// analyze samples table's indexes for SQLite's query planner.
func analyze(ctx context.Context, tx *fsql.Tx, table string) error {
	// A sample of the rows keeps this quick on large tables; the planner needs proportions only.
	if _, err := tx.ExecContext(ctx, `PRAGMA analysis_limit = 1000`); err != nil {
		return lazyerrors.Error(err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`ANALYZE %q`, table)); err != nil {
		return lazyerrors.Error(err)
	}
	return nil
}
