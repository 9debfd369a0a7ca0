package download

import (
	"context"
	"maps"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// TestCellForDictionary formats dictionary columns of every index type,
// sliced and with nulls, as their values.
func TestCellForDictionary(t *testing.T) {
	mem := memory.NewGoAllocator()
	vals := []string{"a", "", "c", "a", "dd", "", "c"}
	for _, it := range []arrow.DataType{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Uint8,
		arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Int32,
		arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Uint64} {
		b := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: it, ValueType: arrow.BinaryTypes.String})
		sb := b.(*array.BinaryDictionaryBuilder)
		for _, v := range vals {
			if v == "" {
				sb.AppendNull()
			} else if err := sb.AppendString(v); err != nil {
				t.Fatal(err)
			}
		}
		whole := sb.NewArray()
		sb.Release()
		sliced := array.NewSlice(whole, 2, int64(len(vals)))
		for _, c := range []struct {
			a    arrow.Array
			want []string
		}{{whole, vals}, {sliced, vals[2:]}} {
			fn, err := cellFor(c.a)
			if err != nil {
				t.Fatalf("%s: %v", it, err)
			}
			for i, want := range c.want {
				if got := string(fn(nil, i)); got != want {
					t.Errorf("%s index, row %d of %d: %q, want %q", it, i, len(c.want), got, want)
				}
				if got := str(c.a, i); got != want {
					t.Errorf("%s index, str row %d of %d: %q, want %q", it, i, len(c.want), got, want)
				}
			}
		}
		sliced.Release()
		whole.Release()
	}
}

// TestCleanFromNoAllocs: a formatted cell with non-ASCII text that needs no
// cleaning is checked in place (dwca.CleanFrom), not copied into a string.
func TestCleanFromNoAllocs(t *testing.T) {
	v := "Københavns Universitet, Zoologisk Museum – Østervold"
	fn := func(dst []byte, _ int) []byte { return append(dst, v...) }
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(1000, func() {
		buf = append(buf[:0], "row\t"...)
		buf = dwca.CleanFrom(fn(buf, 0), 4)
	}); n != 0 {
		t.Errorf("cell allocates %v times per non-ASCII value", n)
	}
	if string(buf) != "row\t"+v {
		t.Errorf("cell %q", buf)
	}
}

// TestSpeciesListGroups counts rows by every column of the list (taxonKey,
// names and classification, as GBIF's query groups), across batches.
func TestSpeciesListGroups(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: occurrence.ColTaxonKey, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: occurrence.ColScientificName, Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: occurrence.ColKingdom, Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	type row struct {
		key           int64 // 0: null
		name, kingdom string
	}
	batches := [][]row{
		{{1, "Puma concolor", "Animalia"}, {0, "Bufo bufo", "Animalia"}, {1, "Puma concolor L.", "Animalia"}},
		{{0, "Bufo bufo", "Animalia"}, {0, "Bufo bufo", "Plantae"}, {2, "Bufo bufo", "Animalia"}, {0, "Bufo bufo", "Animalia"}},
	}
	fw, err := newSpeciesList(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := fw.(*speciesList)
	for _, rows := range batches {
		rb := array.NewRecordBuilder(mem, schema)
		for _, r := range rows {
			if r.key == 0 {
				rb.Field(0).AppendNull()
			} else {
				rb.Field(0).(*array.Int64Builder).Append(r.key)
			}
			rb.Field(1).(*array.StringBuilder).Append(r.name)
			rb.Field(2).(*array.StringBuilder).Append(r.kingdom)
		}
		rec := rb.NewRecordBatch()
		rb.Release()
		if err := s.write(newBatch(rec)); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	got := map[string]int64{}
	for _, tr := range s.taxa {
		got[tr.values[0]+"|"+tr.values[1]+"|"+tr.values[7]] = tr.count
	}
	// grouped as GBIF's query groups: by every column of the list
	want := map[string]int64{"1|Puma concolor|Animalia": 1, "1|Puma concolor L.|Animalia": 1, "|Bufo bufo|Animalia": 3,
		"|Bufo bufo|Plantae": 1, "2|Bufo bufo|Animalia": 1}
	if !maps.Equal(got, want) {
		t.Errorf("taxa %v, want %v", got, want)
	}
}
