package hbase

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// TestRecordRoundTrip: every column of generated records survives the
// single-cell encoding, compared with the Arrow builder's own batch.
func TestRecordRoundTrip(t *testing.T) {
	g := occurrencetest.NewGenerator(5, 50)
	plan := g.Datasets(400, 2)
	rec := occurrence.NewRecord()
	ref := occurrence.NewBuilder(nil)
	defer ref.Release()
	var encoded [][]byte
	for i := range plan {
		for j := 0; j < plan[i].Records; j++ {
			g.Fill(rec, &plan[i], j)
			ref.Append(rec)
			encoded = append(encoded, encodeRecord(nil, rec))
		}
	}
	want := ref.NewBatch()
	defer want.Release()
	all := newBatchDecoder(allNames)
	defer all.rb.Release()
	got, err := all.decode(encoded, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	for ci := range occurrence.Columns() {
		if !array.Equal(got.Column(ci), want.Column(ci)) {
			t.Fatalf("column %s differs after encode/decode", occurrence.ColumnAt(ci).Name)
		}
	}
	// A subset in another order.
	names := []string{occurrence.ColYear, occurrence.ColGBIFID, occurrence.ColLocality}
	subDec := newBatchDecoder(names)
	defer subDec.rb.Release()
	sub, err := subDec.decode(encoded, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Release()
	for i, n := range names {
		_, ci, _ := occurrence.ColumnByName(n)
		if !array.Equal(sub.Column(i), want.Column(ci)) {
			t.Fatalf("column %s differs in a subset decode", n)
		}
	}
	// The decoder is reused batch after batch: a corrupt record fails its
	// batch without leaving rows behind, and a selection keeps only its rows.
	for _, bad := range [][]byte{{codecVersion}, encoded[1][:len(encoded[1])-1]} {
		if _, err := all.decode([][]byte{encoded[0], bad}, nil); !errors.Is(err, ErrCorruptRecord) {
			t.Fatalf("corrupt record: %v", err)
		}
	}
	after, err := all.decode(encoded, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer after.Release()
	for ci := range occurrence.Columns() {
		if !array.Equal(after.Column(ci), want.Column(ci)) {
			t.Fatalf("column %s differs after a failed batch", occurrence.ColumnAt(ci).Name)
		}
	}
	half := len(encoded) / 2
	sel := make([]bool, len(encoded))
	for i := range half {
		sel[i] = true
	}
	again, err := subDec.decode(encoded, sel)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Release()
	for i, n := range names {
		_, ci, _ := occurrence.ColumnByName(n)
		w := array.NewSlice(want.Column(ci), 0, int64(half))
		same := array.Equal(again.Column(i), w)
		w.Release()
		if !same {
			t.Fatalf("column %s differs in a selected decode with a reused decoder", n)
		}
	}
}

func FuzzDecodeRecord(f *testing.F) {
	g := occurrencetest.NewGenerator(9, 20)
	plan := g.Datasets(20, 1)
	rec := occurrence.NewRecord()
	for j := 0; j < plan[0].Records; j += 5 {
		g.Fill(rec, &plan[0], j)
		f.Add(encodeRecord(nil, rec))
	}
	f.Add([]byte{codecVersion})
	f.Fuzz(func(t *testing.T, data []byte) {
		rb := array.NewRecordBuilder(memory.DefaultAllocator, occurrence.Schema())
		defer rb.Release()
		sink := newColumnSink(rb.Fields(), allNames)
		if err := sink.decodeInto(data); err != nil {
			return
		}
		b := rb.NewRecordBatch()
		defer b.Release()
		if b.NumRows() != 1 {
			t.Fatalf("decoded %d rows from one record", b.NumRows())
		}
	})
}
