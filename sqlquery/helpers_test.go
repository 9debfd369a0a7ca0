package sqlquery

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// testRows is a small table: each row maps column names to values (nil
// is NULL).
type testRows []map[string]any

// batchOf builds a batch of the named columns from rows.
func batchOf(t testing.TB, cols []string, rows testRows) arrow.RecordBatch {
	t.Helper()
	schema := occurrence.SchemaOf(cols)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, row := range rows {
		for j, col := range cols {
			v, ok := row[col]
			fb := b.Field(j)
			if !ok || v == nil {
				fb.AppendNull()
				continue
			}
			switch fb := fb.(type) {
			case *array.StringBuilder:
				fb.Append(v.(string))
			case *array.Int32Builder:
				fb.Append(int32(v.(int)))
			case *array.Int64Builder:
				fb.Append(int64(v.(int)))
			case *array.Float64Builder:
				fb.Append(v.(float64))
			case *array.BooleanBuilder:
				fb.Append(v.(bool))
			case *array.TimestampBuilder:
				fb.Append(arrow.Timestamp(v.(int)))
			default:
				t.Fatalf("column %s: builder %T", col, fb)
			}
		}
	}
	return b.NewRecordBatch()
}

// run parses sql and runs it over rows, returning the header and the
// result as text rows ("a|b|c"; NULL as \N).
func run(t testing.TB, sql string, rows testRows) ([]string, []string) {
	t.Helper()
	q, err := Parse(sql, Options{})
	if err != nil {
		t.Fatalf("Parse(%q): %v", sql, err)
	}
	out, err := runQuery(t, q, rows, 0)
	if err != nil {
		t.Fatalf("run %q: %v", sql, err)
	}
	return q.Header(), out
}

func runQuery(t testing.TB, q *Query, rows testRows, memory int64) ([]string, error) {
	t.Helper()
	var out []string
	emit := func(vs []Value) error {
		parts := make([]string, len(vs))
		for i, v := range vs {
			parts[i] = show(v)
		}
		out = append(out, strings.Join(parts, "|"))
		return nil
	}
	r := q.NewRun(memory)
	// Two batches, to cross a batch boundary.
	half := len(rows) / 2
	for _, part := range []testRows{rows[:half], rows[half:]} {
		b := batchOf(t, q.Columns(), part)
		_, err := r.Add(b, emit)
		b.Release()
		if err != nil {
			return nil, err
		}
	}
	return out, r.Finish(emit)
}

func show(v Value) string {
	switch v.Kind {
	case Null:
		return `\N`
	case Float:
		return strconv.FormatFloat(v.Float, 'g', -1, 64)
	case Time:
		return fmt.Sprintf("t%d", v.Int)
	}
	return v.text()
}
