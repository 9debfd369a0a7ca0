package parquet

import (
	"math/rand/v2"
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
		got := takeSelected(src, sel, m).(*array.String)
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

// TestTakeSelectedFixed takes rows of fixed-width arrays (plain, with
// nulls, sliced) and compares each value and null with the source.
func TestTakeSelectedFixed(t *testing.T) {
	mem := memory.DefaultAllocator
	i32 := array.NewInt32Builder(mem)
	i64 := array.NewInt64Builder(mem)
	f64 := array.NewFloat64Builder(mem)
	ts := array.NewTimestampBuilder(mem, arrow.FixedWidthTypes.Timestamp_ms.(*arrow.TimestampType))
	for i := range 100 {
		if i%7 == 3 {
			i32.AppendNull()
			i64.AppendNull()
			f64.AppendNull()
			ts.AppendNull()
			continue
		}
		i32.Append(int32(i*3 - 50))
		i64.Append(int64(i) << 40)
		f64.Append(float64(i) / 3)
		ts.Append(arrow.Timestamp(int64(i) * 86400000))
	}
	arrays := []arrow.Array{i32.NewArray(), i64.NewArray(), f64.NewArray(), ts.NewArray()}
	dense := array.NewInt64Builder(mem)
	for i := range 100 {
		dense.Append(int64(-i))
	}
	arrays = append(arrays, dense.NewArray())
	// A column null in every row (selectedValidity's shortcut).
	nulls := array.NewInt64Builder(mem)
	nulls.AppendNulls(100)
	arrays = append(arrays, nulls.NewArray())
	for _, full := range arrays {
		for _, src := range []arrow.Array{full, array.NewSlice(full, 13, 90)} {
			sel := make([]bool, src.Len())
			for i := range sel {
				sel[i] = i%3 != 1
			}
			m := countTrue(sel)
			got := takeSelected(src, sel, m)
			if got.Len() != m || !arrow.TypeEqual(got.DataType(), src.DataType()) {
				t.Fatalf("%s: %d rows of %s, want %d of %s", src.DataType(), got.Len(), got.DataType(), m, src.DataType())
			}
			k := 0
			for i, ok := range sel {
				if !ok {
					continue
				}
				if src.IsNull(i) != got.IsNull(k) || (!src.IsNull(i) && src.GetOneForMarshal(i) != got.GetOneForMarshal(k)) {
					t.Fatalf("%s row %d: got %v (null %v), want %v (null %v)", src.DataType(), i, got.GetOneForMarshal(k), got.IsNull(k), src.GetOneForMarshal(i), src.IsNull(i))
				}
				k++
			}
			if got.NullN() != countNulls(src, sel) {
				t.Fatalf("%s: %d nulls, want %d", src.DataType(), got.NullN(), countNulls(src, sel))
			}
			got.Release()
		}
	}
}

func countNulls(a arrow.Array, sel []bool) int {
	n := 0
	for i, ok := range sel {
		if ok && a.IsNull(i) {
			n++
		}
	}
	return n
}

// TestPositions finds the selected rows' positions of selections that
// start, end and run with unselected rows.
func TestPositions(t *testing.T) {
	for n := 0; n < 40; n++ {
		sel := make([]bool, n)
		var want []int32
		for i := range sel {
			if sel[i] = (i*5+n)%7 < 3; sel[i] {
				want = append(want, int32(i))
			}
		}
		got := positions(sel, countTrue(sel))
		if len(got) != len(want) {
			t.Fatalf("n=%d: %v, want %v", n, got, want)
		}
		for j := range got {
			if got[j] != want[j] {
				t.Fatalf("n=%d: %v, want %v", n, got, want)
			}
		}
	}
}

// TestTakeIntegerDictionary takes rows of int32 and int64 dictionary
// columns (as the page decoder hands out predicate columns), with nulls,
// whole and sliced, and compares each value and null with the source's.
func TestTakeIntegerDictionary(t *testing.T) {
	mem := memory.DefaultAllocator
	for _, vt := range []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64} {
		db := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: vt})
		for i := range 60 {
			var err error
			switch b := db.(type) {
			case *array.Int32DictionaryBuilder:
				if i%5 == 2 {
					b.AppendNull()
				} else {
					err = b.Append(int32(i%7 - 3))
				}
			case *array.Int64DictionaryBuilder:
				if i%5 == 2 {
					b.AppendNull()
				} else {
					err = b.Append(int64(i%9) << 35)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		full := db.NewArray().(*array.Dictionary)
		db.Release()
		for _, src := range []arrow.Array{full, array.NewSlice(full, 7, 50)} {
			sel := make([]bool, src.Len())
			for i := range sel {
				sel[i] = i%4 != 1
			}
			m := countTrue(sel)
			got := takeSelected(src, sel, m)
			if got.Len() != m || !arrow.TypeEqual(got.DataType(), vt) {
				t.Fatalf("%s: %d rows of %s, want %d of %s", vt, got.Len(), got.DataType(), m, vt)
			}
			d := src.(*array.Dictionary)
			k := 0
			for i, ok := range sel {
				if !ok {
					continue
				}
				if d.IsNull(i) != got.IsNull(k) {
					t.Fatalf("%s row %d: null %v, want %v", vt, i, got.IsNull(k), d.IsNull(i))
				}
				if !d.IsNull(i) {
					if w, g := d.Dictionary().GetOneForMarshal(d.GetValueIndex(i)), got.GetOneForMarshal(k); w != g {
						t.Fatalf("%s row %d: %v, want %v", vt, i, g, w)
					}
				}
				k++
			}
			if got.NullN() != countNulls(src, sel) {
				t.Fatalf("%s: %d nulls, want %d", vt, got.NullN(), countNulls(src, sel))
			}
			got.Release()
		}
	}
}

// TestSelectedValidityBits: the validity of the rows at pos equals the
// source's bit for each, for sliced sources (bitmap offsets not a multiple
// of eight), every count of positions from 0 to 70 and sparse and dense
// nulls; the null count matches and no bitmap is made without nulls.
func TestSelectedValidityBits(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for round := range 300 {
		n := 1 + r.IntN(300)
		b := array.NewInt64Builder(memory.DefaultAllocator)
		nullRate := []int{2, 10, 1000}[round%3]
		for range n {
			if r.IntN(nullRate) == 0 {
				b.AppendNull()
			} else {
				b.Append(1)
			}
		}
		whole := b.NewArray()
		b.Release()
		off := r.IntN(n)
		a := array.NewSlice(whole, int64(off), int64(n))
		whole.Release()
		var pos []int32
		for i := range a.Len() {
			if r.IntN(4) != 0 && len(pos) < 70 {
				pos = append(pos, int32(i))
			}
		}
		vb, nulls := selectedValidity(a, pos)
		wantNulls := 0
		for j, i := range pos {
			valid := a.IsValid(int(i))
			if !valid {
				wantNulls++
			}
			if vb == nil {
				if !valid {
					t.Fatalf("round %d: no bitmap, but row %d (position %d) is null", round, i, j)
				}
				continue
			}
			if got := vb.Bytes()[j>>3]>>(j&7)&1 == 1; got != valid {
				t.Fatalf("round %d: position %d (row %d): valid %v, want %v", round, j, i, got, valid)
			}
		}
		if nulls != wantNulls {
			t.Fatalf("round %d: %d nulls, want %d", round, nulls, wantNulls)
		}
		a.Release()
	}
}
