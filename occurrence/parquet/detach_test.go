package parquet

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// plainLocalities decodes the PLAIN-encoded "locality" column of the page
// decoder test (nullable long strings) from its first row group.
func plainLocalities(t *testing.T) (open func() *flatColumn, want []any) {
	t.Helper()
	cases := flatCases()
	batch, vals := flatBatch(cases, 6000, 3)
	t.Cleanup(batch.Release)
	var buf bytes.Buffer
	props := pq.NewWriterProperties(pq.WithDictionaryDefault(false), pq.WithDataPageSize(4096))
	w, err := pqarrow.NewFileWriter(batch.Schema(), &buf, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(batch); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := bytes.NewReader(buf.Bytes())
	foot, err := readFooter(data, data.Size())
	if err != nil {
		t.Fatal(err)
	}
	const k = 1 // locality
	if cases[k].name != "locality" {
		t.Fatalf("case %d is %s", k, cases[k].name)
	}
	open = func() *flatColumn {
		pr, err := newChunkPages(data, data.Size(), foot.rowGroups[0].chunks[k], "locality")
		if err != nil {
			t.Fatal(err)
		}
		return newFlatColumn(pr, occurrence.KindString, foot.leaves[k].maxDef, "locality")
	}
	return open, vals[k]
}

// cellsOf reads every row of a (a string column, plain or a dictionary) as
// Go strings of their own, "<null>" for null.
func cellsOf(a arrow.Array) []string {
	out := make([]string, a.Len())
	for i := range out {
		switch {
		case a.IsNull(i):
			out[i] = "<null>"
		default:
			if d, ok := a.(*array.Dictionary); ok {
				out[i] = string([]byte(d.Dictionary().(*array.String).Value(d.GetValueIndex(i))))
			} else {
				out[i] = string([]byte(a.(*array.String).Value(i)))
			}
		}
	}
	return out
}

// TestTakeDetachesPlainStrings takes most rows of a plain string batch with
// its decoder as owner: the column handed out keeps the decoder's buffers,
// and its values must survive the decoder's following batches (which
// reuse the buffers of a batch not detached: the control).
func TestTakeDetachesPlainStrings(t *testing.T) {
	open, want := plainLocalities(t)
	const n = 1000
	sc := &splitScan{req: occurrence.ScanRequest{Dictionaries: true}, cols: []string{"locality"}}
	for _, detach := range []bool{true, false} {
		c := open()
		a, err := c.next(n)
		if err != nil {
			t.Fatal(err)
		}
		s, ok := a.(*array.String)
		if !ok {
			t.Fatalf("first batch is %s, want plain strings", a.DataType())
		}
		if !c.ownsStrings(s) {
			t.Fatal("the decoder does not own its own batch")
		}
		pos := make([]int32, 0, n)
		for i := range int32(n) {
			if i%7 != 3 {
				pos = append(pos, i)
			}
		}
		var owner *flatColumn
		if detach {
			owner = c
		}
		raw := s.ValueBytes() // the decoder's bytes of the batch
		snapshot := bytes.Clone(raw)
		got := sc.take(0, a, pos, owner)
		before := cellsOf(got)
		for j, i := range pos {
			w := "<null>"
			if v := want[i]; v != nil {
				w = v.(string)
			}
			if before[j] != w {
				t.Fatalf("row %d: %q, want %q", i, before[j], w)
			}
		}
		d := got.(*array.Dictionary).Dictionary().(*array.String)
		shared := sameStart(d.ValueBytes(), s.ValueBytes())
		if shared != detach {
			t.Fatalf("detach %v: dictionary shares the decoder's bytes: %v", detach, shared)
		}
		if detach && c.ownsStrings(s) {
			t.Fatal("the decoder still owns the detached batch")
		}
		for range 4 {
			if _, err := c.next(n); err != nil {
				t.Fatal(err)
			}
		}
		if after := cellsOf(got); !equalStrings(after, before) {
			t.Fatalf("detach %v: the taken column changed after the decoder went on", detach)
		}
		// The control: the bytes of a batch left to the decoder are
		// overwritten by the next ones.
		if changed := !bytes.Equal(raw, snapshot); changed == detach {
			t.Fatalf("detach %v: the batch's bytes changed: %v", detach, changed)
		}
		got.Release()
		c.close()
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
