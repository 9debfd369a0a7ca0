package hbase

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
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
	ref := occurrence.NewBuilder()
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

// The layout records are written with is the schema's: a schema change must
// add an encoding version (codec_layouts.go) instead of changing one.
func TestCodecLayoutIsCurrent(t *testing.T) {
	cols := occurrence.Columns()
	if len(current.cols) != len(cols) {
		t.Fatalf("layout %d has %d columns, the schema %d: add a layout version for the new schema", codecVersion, len(current.cols), len(cols))
	}
	for i, c := range cols {
		if current.cols[i].name != c.Name || current.cols[i].kind != c.Kind {
			t.Fatalf("column %d: layout %s %v, schema %s %v: add a layout version for the new schema",
				i, current.cols[i].name, current.cols[i].kind, c.Name, c.Kind)
		}
	}
	// Every frozen layout decodes into the schema's Arrow types.
	for v, l := range layouts {
		for _, lc := range l.cols {
			if c, _, ok := occurrence.ColumnByName(lc.name); ok && !arrow.TypeEqual(c.Kind.ArrowType(), lc.kind.ArrowType()) {
				t.Errorf("layout %d column %s is %v, the schema's %v: decoding would need a conversion", v, lc.name, lc.kind, c.Kind)
			}
		}
	}
}

// encodeLayout encodes r in an older version's layout, by column name.
func encodeLayout(version byte, r *occurrence.Record) []byte {
	l := layouts[version]
	dst := append([]byte{version}, make([]byte, l.bitmapLen)...)
	for i, c := range l.cols {
		ci := occurrence.ColumnIndex(c.name)
		if ci < 0 || !r.Get(ci).Valid {
			continue
		}
		v := r.Get(ci)
		dst[1+i/8] |= 1 << (i % 8)
		switch c.kind {
		case occurrence.KindInt32, occurrence.KindInt64, occurrence.KindTimestamp:
			dst = binary.AppendVarint(dst, v.I)
		case occurrence.KindFloat64:
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v.F))
		case occurrence.KindBool:
			dst = append(dst, map[bool]byte{false: 0, true: 1}[v.B])
		default:
			dst = binary.AppendUvarint(dst, uint64(len(v.S)))
			dst = append(dst, v.S...)
		}
	}
	return dst
}

// A record written by version 2 (before GBIF's full columns) decodes under
// today's schema: its columns with their values, the newer columns null.
func TestCodecDecodesVersion2(t *testing.T) {
	g := occurrencetest.NewGenerator(3, 50)
	plan := g.Datasets(40, 1)
	rec := occurrence.NewRecord()
	b := occurrence.NewBuilder()
	defer b.Release()
	var encoded [][]byte
	for j := 0; j < plan[0].Records; j++ {
		g.Fill(rec, &plan[0], j)
		rec.SetString(occurrence.ColumnIndex("habitat"), "meadow") // a column version 2 lacks
		b.Append(rec)
		encoded = append(encoded, encodeLayout(2, rec))
	}
	want := b.NewBatch()
	defer want.Release()
	dec := newBatchDecoder(allNames)
	defer dec.rb.Release()
	got, err := dec.decode(encoded, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	v2 := map[string]bool{}
	for _, c := range v2Columns {
		v2[c.name] = true
	}
	for ci, c := range occurrence.Columns() {
		col := got.Column(ci)
		if !v2[c.Name] {
			if col.NullN() != col.Len() {
				t.Fatalf("column %s, not in version 2, decoded %d values", c.Name, col.Len()-col.NullN())
			}
			continue
		}
		if !array.Equal(col, want.Column(ci)) {
			t.Fatalf("column %s differs after a version 2 decode", c.Name)
		}
	}
	if got.Column(occurrence.ColumnIndex(occurrence.ColGBIFID)).NullN() != 0 {
		t.Fatal("gbifIDs lost")
	}
}
