package download

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/dwca"
)

// TestRowsOfBatchNullFields: fields null in a whole batch (absent, or
// present with only nulls) are left out of the row walk (rowPlan.steps)
// and written as their separators, wherever they are: first, in a run in
// the middle, last, alone between others, or every field. Each row has
// one separator fewer than fields.
func TestRowsOfBatchNullFields(t *testing.T) {
	names := []string{"occurrenceID", "catalogNumber", "locality", "habitat", "sex", "lifeStage"}
	fields := mustFields(names)
	const rows = 3
	column := func(vals []string) arrow.Array {
		b := array.NewStringBuilder(memory.DefaultAllocator)
		defer b.Release()
		for _, v := range vals {
			if v == "" {
				b.AppendNull()
			} else {
				b.Append(v)
			}
		}
		return b.NewArray()
	}
	for mask := 0; mask < 1<<len(names); mask++ { // bit k set: field k null in the batch
		for _, absent := range []bool{false, true} {
			byName := map[string]arrow.Array{}
			var want strings.Builder
			for i := range rows {
				cells := make([]string, len(names))
				for k := range names {
					if mask&(1<<k) == 0 {
						cells[k] = names[k][:2] + string(rune('0'+i))
					}
				}
				want.WriteString(strings.Join(cells, "\t") + "\n")
			}
			for k, name := range names {
				vals := make([]string, rows)
				if mask&(1<<k) == 0 {
					for i := range vals {
						vals[i] = name[:2] + string(rune('0'+i))
					}
				} else if absent {
					continue
				}
				byName[name] = column(vals)
			}
			var buf bytes.Buffer
			tw := newTableWriter(fields)
			tw.rw = dwca.NewExclusiveTextWriter(&buf)
			if err := tw.writeBatch(&batch{n: rows, byName: byName}); err != nil {
				t.Fatal(err)
			}
			if err := tw.rw.Flush(); err != nil {
				t.Fatal(err)
			}
			for _, a := range byName {
				a.Release()
			}
			if got := buf.String(); got != want.String() {
				t.Fatalf("null fields %06b (absent %v):\n%q\nwant\n%q", mask, absent, got, want.String())
			}
		}
	}
}
