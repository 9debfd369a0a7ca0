package parquet

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestTakeSelectedStrings takes rows of plain, sliced and dictionary-encoded
// string arrays with nulls and compares them with the source values.
func TestTakeSelectedStrings(t *testing.T) {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	vals := []string{"alpha", "", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}
	for i, v := range vals {
		if i == 3 {
			b.AppendNull()
		} else {
			b.Append(v)
		}
	}
	plain := b.NewStringArray()
	defer plain.Release()
	db := array.NewDictionaryBuilder(memory.DefaultAllocator, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
	for i := 0; i < plain.Len(); i++ {
		if plain.IsNull(i) {
			db.AppendNull()
		} else if err := db.AppendString(plain.Value(i)); err != nil {
			t.Fatal(err)
		}
	}
	dict := db.NewArray()
	defer dict.Release()
	check := func(name string, src arrow.Array, base int, sel []bool) {
		t.Helper()
		m := countTrue(sel)
		got := takeSelected(src, sel, m, false).(*array.String)
		defer got.Release()
		if got.Len() != m {
			t.Fatalf("%s: %d rows, want %d", name, got.Len(), m)
		}
		k := 0
		for i, ok := range sel {
			if !ok {
				continue
			}
			r := base + i
			if plain.IsNull(r) != got.IsNull(k) || (!got.IsNull(k) && got.Value(k) != plain.Value(r)) {
				t.Fatalf("%s row %d: got %q (null %v), want %q (null %v)", name, r, got.Value(k), got.IsNull(k), plain.Value(r), plain.IsNull(r))
			}
			k++
		}
	}
	sel := []bool{true, true, false, true, true, false, true, true}
	check("plain", plain, 0, sel)
	check("dictionary", dict, 0, sel)
	sliced := array.NewSlice(plain, 2, 7)
	defer sliced.Release()
	check("sliced", sliced, 2, []bool{true, true, false, true, true})
	dsliced := array.NewSlice(dict, 2, 7)
	defer dsliced.Release()
	check("sliced dictionary", dsliced, 2, []bool{false, true, true, true, true})
}

func TestCountTrue(t *testing.T) {
	for n := 0; n < 70; n++ {
		sel := make([]bool, n+3)
		want := 0
		for i := range sel {
			sel[i] = (i*7+n)%3 == 0
		}
		for _, b := range sel[3:] {
			if b {
				want++
			}
		}
		if got := countTrue(sel[3:]); got != want {
			t.Fatalf("n=%d: %d, want %d", n, got, want)
		}
	}
}
