package dwca

import (
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
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

// TestRowWriterCellNoAllocs: a formatted cell with non-ASCII text that needs
// no cleaning is checked in place, not copied into a string.
func TestRowWriterCellNoAllocs(t *testing.T) {
	rw := newRowWriter(io.Discard)
	v := "Københavns Universitet, Zoologisk Museum – Østervold"
	fn := func(dst []byte, _ int) []byte { return append(dst, v...) }
	if n := testing.AllocsPerRun(1000, func() {
		rw.cell(fn, 0)
		rw.end()
	}); n != 0 {
		t.Errorf("cell allocates %v times per non-ASCII value", n)
	}
}
