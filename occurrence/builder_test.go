package occurrence

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestBuilderNullRuns: nulls are appended as runs, before a column's next
// value and at NewBatch; every row of two batches reads back what was set,
// including a column null in every row and one whose last rows are null.
func TestBuilderNullRuns(t *testing.T) {
	loc, year, never := ColumnIndex(ColLocality), ColumnIndex(ColYear), ColumnIndex("waterBody")
	b := NewBuilder()
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

// TestBuilderMatchesArrowBuilders: batches of random records (columns
// always set, sometimes set, never set; every kind) equal the same records
// appended through Arrow's own builders, batch after batch as the builder
// reuses what it learnt of the last one, and the buffers of the batches
// recycled (every other batch, as the table writer does once it wrote
// them).
func TestBuilderMatchesArrowBuilders(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	b := NewBuilder()
	defer b.Release()
	for batch, rows := range []int{50, 1, 77, 9, 0, 64} {
		ref := array.NewRecordBuilder(memory.DefaultAllocator, Schema())
		for row := range rows {
			r := NewRecord()
			for c, col := range columns {
				switch {
				case c%7 == 6, c%7 == 5 && rng.IntN(4) > 0, c%7 == 4 && batch%2 == 1:
					continue
				}
				switch col.Kind {
				case KindString:
					r.SetString(c, fmt.Sprintf("%d-%d-%s", batch, row, col.Name[:rng.IntN(len(col.Name))]))
				case KindFloat64:
					r.SetFloat(c, rng.NormFloat64())
				case KindBool:
					r.SetBool(c, rng.IntN(2) == 0)
				case KindTimestamp:
					r.SetInt(c, rng.Int64N(1<<42))
				case KindInt32:
					r.SetInt(c, int64(rng.Int32()-1<<30))
				default:
					r.SetInt(c, rng.Int64()-1<<62)
				}
			}
			b.Append(r)
			appendArrow(ref, r)
		}
		got := b.NewBatch()
		want := ref.NewRecordBatch()
		ref.Release()
		if !array.RecordEqual(got, want) {
			for c := range columns {
				if !array.Equal(got.Column(c), want.Column(c)) {
					t.Fatalf("batch %d column %s: %v, want %v", batch, columns[c].Name, got.Column(c), want.Column(c))
				}
			}
			t.Fatalf("batch %d differs", batch)
		}
		for c := range columns {
			if g, w := got.Column(c).NullN(), want.Column(c).NullN(); g != w {
				t.Fatalf("batch %d column %s: %d nulls, want %d", batch, columns[c].Name, g, w)
			}
			if batch%2 == 0 {
				b.Recycle(c, got.Column(c))
			}
		}
		got.Release()
		want.Release()
	}
}

// appendArrow appends r through Arrow's builders, one value at a time.
func appendArrow(rb *array.RecordBuilder, r *Record) {
	for i, c := range columns {
		v, fb := r.vals[i], rb.Field(i)
		if !v.Valid {
			fb.AppendNull()
			continue
		}
		switch c.Kind {
		case KindInt32:
			fb.(*array.Int32Builder).Append(int32(v.I))
		case KindInt64:
			fb.(*array.Int64Builder).Append(v.I)
		case KindFloat64:
			fb.(*array.Float64Builder).Append(v.F)
		case KindBool:
			fb.(*array.BooleanBuilder).Append(v.B)
		case KindTimestamp:
			fb.(*array.TimestampBuilder).Append(arrow.Timestamp(v.I))
		default:
			fb.(*array.StringBuilder).Append(v.S)
		}
	}
}

// TestBuilderRecycle: a batch's buffers handed back back the next batch of
// the same shape (its text lands in the same memory) and that batch reads
// its own values; a column null throughout is never handed back, since it
// may sit on the shared zero buffer.
func TestBuilderRecycle(t *testing.T) {
	loc, never := ColumnIndex(ColLocality), ColumnIndex("waterBody")
	b := NewBuilder()
	fill := func(tag string) arrow.RecordBatch {
		for i := range 100 {
			r := NewRecord()
			r.SetString(loc, fmt.Sprintf("%s-%03d", tag, i))
			b.Append(r)
		}
		return b.NewBatch()
	}
	first := fill("a")
	second := fill("b") // reserves from the first's sizes
	textOf := func(batch arrow.RecordBatch) *byte {
		return unsafe.SliceData(batch.Column(loc).Data().Buffers()[2].Bytes())
	}
	mem := textOf(second)
	for c := range columns {
		b.Recycle(c, second.Column(c))
	}
	third := fill("c")
	if textOf(third) != mem {
		t.Error("the third batch's text is not in the recycled buffer")
	}
	if textOf(third) == textOf(first) {
		t.Error("the third batch took the first batch's buffer, which was never handed back")
	}
	l := third.Column(loc).(*array.String)
	for i := range 100 {
		if want := fmt.Sprintf("c-%03d", i); l.Value(i) != want {
			t.Fatalf("row %d: %q, want %q", i, l.Value(i), want)
		}
	}
	if got := first.Column(loc).(*array.String).Value(7); got != "a-007" {
		t.Errorf("the first batch changed: %q", got)
	}
	if z := third.Column(never); z.NullN() != 100 {
		t.Errorf("waterBody: %d nulls of 100", z.NullN())
	}
	if b.cols[never].spare != nil {
		t.Error("an all-null column was recycled")
	}
}
