package parquet

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// TestTransientColumns scans with transient columns, their copies'
// memory poisoned when a batch is released: values read during the
// callback equal a plain scan's, and strings kept past it (what a consumer
// must not do) change, so that a buffer handed out again too early would
// show here as corrupted rows.
func TestTransientColumns(t *testing.T) {
	defer SetRecyclePoison(SetRecyclePoison(true))
	s := dictStore(t)
	ctx := context.Background()
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{occurrence.ColGBIFID, occurrence.ColVerbatim, occurrence.ColOccurrenceID, occurrence.ColMultimedia,
		occurrence.ColLocality, occurrence.ColDatasetKey}
	transient := []string{occurrence.ColVerbatim, occurrence.ColOccurrenceID, occurrence.ColMultimedia}
	pred := mustPred(t, `{"type":"equals","key":"HAS_COORDINATE","value":"true"}`)
	plain := scanDicts(t, s, pred, cols, false)
	defer plain.release()

	type kept struct{ view, copy string }
	var rows [][]string
	var keep []kept
	recycledBatches := 0
	req := occurrence.ScanRequest{Predicate: pred, Columns: cols, Dictionaries: true, Transient: transient}
	for round := 0; round < 2; round++ { // the second round reuses the first's buffers
		rows, keep = rows[:0], keep[:0]
		_, err = occurrence.Scan(ctx, s, snap, req, occurrence.ScanOptions{Workers: 2}, func(b arrow.RecordBatch) error {
			for i := 0; i < int(b.NumRows()); i++ {
				row := make([]string, b.NumCols())
				for c := range row {
					row[c] = cellOf(b.Column(c), i)
				}
				rows = append(rows, row)
			}
			for c, name := range cols {
				d, ok := b.Column(c).(*array.Dictionary)
				if !ok || name != occurrence.ColVerbatim {
					continue
				}
				dict := d.Dictionary().(*array.String)
				if dict.Data().Buffers()[2] == nil || dict.Data().Buffers()[2].Len() == 0 {
					continue
				}
				recycledBatches++
				for i := 0; i < int(b.NumRows()); i++ {
					if v := dict.Value(d.GetValueIndex(i)); v != "" {
						keep = append(keep, kept{view: v, copy: strings.Clone(v)})
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sameRows(t, "transient scan", rows, plain.rows, cols)
	}
	if recycledBatches == 0 {
		t.Fatal("no batch carried the verbatim column as a dictionary over a copy: nothing recycled")
	}
	changed := 0
	for _, k := range keep {
		if k.view != k.copy {
			changed++
		}
	}
	if changed == 0 {
		t.Fatalf("none of %d verbatim strings kept past their batch changed: the copies were not recycled", len(keep))
	}
	t.Logf("%d rows, %d verbatim batches over recycled copies, %d of %d kept strings overwritten", len(rows), recycledBatches, changed, len(keep))
}

// A transient column's copy survives as long as someone holds its batch:
// a consumer that retains a batch reads it intact after the scan.
func TestTransientRetained(t *testing.T) {
	defer SetRecyclePoison(SetRecyclePoison(true))
	s := dictStore(t)
	cols := []string{occurrence.ColGBIFID, occurrence.ColVerbatim, occurrence.ColOccurrenceID}
	pred := mustPred(t, `{"type":"equals","key":"HAS_COORDINATE","value":"true"}`)
	plain := scanDicts(t, s, pred, cols, false)
	defer plain.release()
	ctx := context.Background()
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var held []arrow.RecordBatch
	req := occurrence.ScanRequest{Predicate: pred, Columns: cols, Dictionaries: true, Transient: cols[1:]}
	if _, err := occurrence.Scan(ctx, s, snap, req, occurrence.ScanOptions{Workers: 2}, func(b arrow.RecordBatch) error {
		b.Retain()
		held = append(held, b)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// Another transient scan allocates from the same recycler meanwhile.
	if _, err := occurrence.Scan(ctx, s, snap, req, occurrence.ScanOptions{Workers: 2}, func(arrow.RecordBatch) error { return nil }); err != nil {
		t.Fatal(err)
	}
	got := &dictScan{batches: held}
	defer got.release()
	sameRows(t, "retained transient batches", got.cells(), plain.rows, cols)
}

func TestRecycler(t *testing.T) {
	var r recycler
	for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 1000, 1 << 20, 1<<20 + 1} {
		b := r.Allocate(n)
		if len(b) != n || cap(b) < n {
			t.Fatalf("Allocate(%d): len %d cap %d", n, len(b), cap(b))
		}
		for i := range b {
			b[i] = 1
		}
		r.Free(b)
		// What comes back for a size is at least that large.
		if c := r.Allocate(n); len(c) != n || cap(c) < n {
			t.Fatalf("Allocate(%d) after Free: len %d cap %d", n, len(c), cap(c))
		}
	}
	b := r.Reallocate(100, r.Allocate(10))
	if len(b) != 100 {
		t.Fatalf("Reallocate: len %d", len(b))
	}
}

func TestFreeLists(t *testing.T) {
	f := newFreeLists[flatBuffers](3, 2)
	a, b, c := f.get(1), f.get(1), f.get(1)
	if a == b || b == c {
		t.Fatal("get handed out one buffer twice")
	}
	f.put(1, a)
	f.put(1, b)
	f.put(1, c) // over max: dropped
	if got := f.get(2); got == a || got == b || got == c {
		t.Fatal("column 2 got column 1's buffers")
	}
	got := []*flatBuffers{f.get(1), f.get(1), f.get(1)}
	if got[0] != b || got[1] != a || got[2] == c {
		t.Fatalf("column 1's list: %p %p %p, want %p %p and a new one (not %p)", got[0], got[1], got[2], b, a, c)
	}
}

// nullArray's arrays are n nulls of the type asked for, over shared zero
// bytes, which a scan of a table with many null columns leaves zero.
func TestNullArrays(t *testing.T) {
	for _, k := range []occurrence.Kind{occurrence.KindString, occurrence.KindInt32, occurrence.KindInt64,
		occurrence.KindFloat64, occurrence.KindBool, occurrence.KindTimestamp} {
		for _, n := range []int{1, 7, 8, 9, 1024, occurrence.DefaultBatchSize} {
			a := nullArray(k.ArrowType(), n)
			if a == nil || a.Len() != n || a.NullN() != n || !arrow.TypeEqual(a.DataType(), k.ArrowType()) {
				t.Fatalf("nullArray(%s, %d) = %v", k.ArrowType(), n, a)
			}
			for i := 0; i < n; i += 97 {
				if a.IsValid(i) {
					t.Fatalf("nullArray(%s, %d): row %d valid", k.ArrowType(), n, i)
				}
			}
			if s, ok := a.(*array.String); ok && s.Value(n-1) != "" {
				t.Fatalf("null string %q", s.Value(n-1))
			}
		}
	}
	s := dictStore(t)
	pred := mustPred(t, `{"type":"equals","key":"HAS_COORDINATE","value":"true"}`)
	plain := scanDicts(t, s, pred, allNames, false)
	plain.release()
	dict := scanDicts(t, s, pred, allNames, true)
	dict.release()
	z := nullArray(arrow.PrimitiveTypes.Int64, occurrence.DefaultBatchSize).Data().Buffers()[1].Bytes()
	for i, b := range z {
		if b != 0 {
			t.Fatalf("the shared zero bytes' [%d] = %#x after scans", i, b)
		}
	}
}
