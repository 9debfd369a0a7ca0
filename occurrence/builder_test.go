package occurrence

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestBuilderNullRuns: nulls are appended as runs, before a column's next
// value and at NewBatch; every row of two batches reads back what was set,
// including a column null in every row and one whose last rows are null.
func TestBuilderNullRuns(t *testing.T) {
	loc, year, never := ColumnIndex(ColLocality), ColumnIndex(ColYear), ColumnIndex("waterBody")
	b := NewBuilder(nil)
	defer b.Release()
	set := func(n int) *Record {
		r := NewRecord()
		if n%3 == 0 {
			r.SetString(loc, "place")
		}
		if n < 5 {
			r.SetInt(year, int64(1900+n))
		}
		return r
	}
	for batch := range 2 {
		rows := 7 + batch
		for n := range rows {
			b.Append(set(n))
		}
		got := b.NewBatch()
		if int(got.NumRows()) != rows {
			t.Fatalf("batch %d: %d rows, want %d", batch, got.NumRows(), rows)
		}
		for c := range got.NumCols() {
			if got.Column(int(c)).Len() != rows {
				t.Fatalf("batch %d column %d: length %d, want %d", batch, c, got.Column(int(c)).Len(), rows)
			}
		}
		l := got.Column(loc).(*array.String)
		y := got.Column(year).(*array.Int32)
		for n := range rows {
			if want := n%3 == 0; l.IsValid(n) != want || (want && l.Value(n) != "place") {
				t.Errorf("batch %d row %d: locality valid=%v %q", batch, n, l.IsValid(n), l.Value(n))
			}
			if want := n < 5; y.IsValid(n) != want || (want && y.Value(n) != int32(1900+n)) {
				t.Errorf("batch %d row %d: year valid=%v %d", batch, n, y.IsValid(n), y.Value(n))
			}
		}
		if w := got.Column(never); w.NullN() != rows {
			t.Errorf("batch %d: waterBody has %d nulls of %d rows", batch, w.NullN(), rows)
		}
		got.Release()
	}
}
