package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// flatCase is one column of the page decoder test: its kind and values
// (nil for null).
type flatCase struct {
	name     string
	kind     occurrence.Kind
	required bool
	value    func(r *rand.Rand, i int) any
}

func flatCases() []flatCase {
	nullable := func(p float64, f func(r *rand.Rand, i int) any) func(r *rand.Rand, i int) any {
		return func(r *rand.Rand, i int) any {
			if r.Float64() < p {
				return nil
			}
			return f(r, i)
		}
	}
	return []flatCase{
		{"country", occurrence.KindString, false, nullable(0.1, func(r *rand.Rand, i int) any {
			return []string{"NL", "DK", "SE", "KE", "BR"}[min(r.IntN(8), 4)]
		})},
		// Long distinct strings overflow the dictionary page limit: pages
		// fall back to PLAIN within a column chunk.
		{"locality", occurrence.KindString, false, nullable(0.2, func(r *rand.Rand, i int) any {
			return fmt.Sprintf("locality %d %s", i, strings.Repeat("x", r.IntN(40)))
		})},
		{"empty", occurrence.KindString, false, func(*rand.Rand, int) any { return nil }},
		{"year", occurrence.KindInt32, false, nullable(0.15, func(r *rand.Rand, i int) any { return int32(1900 + r.IntN(125)) })},
		{"month", occurrence.KindInt32, true, func(r *rand.Rand, i int) any { return int32(1 + r.IntN(12)) }},
		{"key", occurrence.KindInt64, false, nullable(0.05, func(r *rand.Rand, i int) any { return int64(i)*7919 + int64(r.IntN(3)) })},
		{"start", occurrence.KindTimestamp, false, nullable(0.3, func(r *rand.Rand, i int) any { return int64(r.IntN(1000)) * 86400000 })},
		{"lat", occurrence.KindFloat64, false, nullable(0.15, func(r *rand.Rand, i int) any { return r.Float64()*180 - 90 })},
		{"has", occurrence.KindBool, false, nullable(0.1, func(r *rand.Rand, i int) any { return r.IntN(3) > 0 })},
		{"flag", occurrence.KindBool, true, func(r *rand.Rand, i int) any { return r.IntN(2) == 0 }},
	}
}

// flatBatch builds n rows of the cases and the values it holds.
func flatBatch(cases []flatCase, n int, seed uint64) (arrow.RecordBatch, [][]any) {
	r := rand.New(rand.NewPCG(seed, 1))
	fields := make([]arrow.Field, len(cases))
	arrs := make([]arrow.Array, len(cases))
	want := make([][]any, len(cases))
	for k, c := range cases {
		fields[k] = arrow.Field{Name: c.name, Type: c.kind.ArrowType(), Nullable: !c.required}
		b := array.NewBuilder(memory.DefaultAllocator, c.kind.ArrowType())
		for i := 0; i < n; i++ {
			v := c.value(r, i)
			want[k] = append(want[k], v)
			switch x := v.(type) {
			case nil:
				b.AppendNull()
			case string:
				b.(*array.StringBuilder).Append(x)
			case int32:
				b.(*array.Int32Builder).Append(x)
			case int64:
				if tb, ok := b.(*array.TimestampBuilder); ok {
					tb.Append(arrow.Timestamp(x))
				} else {
					b.(*array.Int64Builder).Append(x)
				}
			case float64:
				b.(*array.Float64Builder).Append(x)
			case bool:
				b.(*array.BooleanBuilder).Append(x)
			}
		}
		arrs[k] = b.NewArray()
		b.Release()
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n)), want
}

// valueAt reads row i of a decoded array as the test's plain value.
func valueAt(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch x := a.(type) {
	case *array.Dictionary:
		return valueAt(x.Dictionary(), x.GetValueIndex(i))
	case *array.String:
		return x.Value(i)
	case *array.Int32:
		return x.Value(i)
	case *array.Int64:
		return x.Value(i)
	case *array.Timestamp:
		return int64(x.Value(i))
	case *array.Float64:
		return x.Value(i)
	case *array.Boolean:
		return x.Value(i)
	}
	panic(fmt.Sprintf("unexpected array %T", a))
}

// TestFlatColumnDecodesWhatArrowWrote writes columns of every flat kind with
// nulls, required columns, small pages, dictionary fallback to PLAIN, data
// pages v1 and v2, with and without compression, then reads every row group
// back in uneven batches and compares each value.
func TestFlatColumnDecodesWhatArrowWrote(t *testing.T) {
	cases := flatCases()
	const n = 12000
	batch, want := flatBatch(cases, n, 7)
	defer batch.Release()
	variants := []struct {
		name  string
		props []pq.WriterProperty
	}{
		{"v1-snappy", []pq.WriterProperty{pq.WithCompression(compress.Codecs.Snappy)}},
		{"v2-snappy", []pq.WriterProperty{pq.WithCompression(compress.Codecs.Snappy), pq.WithDataPageVersion(pq.DataPageV2)}},
		{"v1-plain", []pq.WriterProperty{pq.WithDictionaryDefault(false)}},
		{"v2-uncompressed", []pq.WriterProperty{pq.WithDataPageVersion(pq.DataPageV2)}},
		// With the page index, seeks read the page the offset index names;
		// without it they pass over page headers.
		{"v1-snappy-index", []pq.WriterProperty{pq.WithCompression(compress.Codecs.Snappy), pq.WithPageIndexEnabled(true)}},
		{"v2-zstd-index", []pq.WriterProperty{pq.WithCompression(compress.Codecs.Zstd), pq.WithDataPageVersion(pq.DataPageV2), pq.WithPageIndexEnabled(true)}},
		{"v1-gzip-index", []pq.WriterProperty{pq.WithCompression(compress.Codecs.Gzip), pq.WithPageIndexEnabled(true)}},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			props := append([]pq.WriterProperty{
				pq.WithDataPageSize(2048),
				pq.WithDictionaryPageSizeLimit(8 << 10),
				pq.WithMaxRowGroupLength(5000),
			}, v.props...)
			var buf bytes.Buffer
			w, err := pqarrow.NewFileWriter(batch.Schema(), &buf, pq.NewWriterProperties(props...), pqarrow.DefaultWriterProps())
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
			// Seeks take the offset index exactly in the -index variants.
			for rg, g := range foot.rowGroups {
				for k, c := range g.chunks {
					if (c.oiLen > 0) != strings.HasSuffix(v.name, "-index") {
						t.Fatalf("row group %d column %d: offset index of %d bytes in variant %s", rg, k, c.oiLen, v.name)
					}
				}
			}
			open := func(rg, k int) *flatColumn {
				pr, err := newChunkPages(-1, data, data.Size(), foot.rowGroups[rg].chunks[k], cases[k].name)
				if err != nil {
					t.Fatal(err)
				}
				return newFlatColumn(-1, pr, cases[k].kind, foot.leaves[k].maxDef, cases[k].name)
			}
			sizes := []int{8192, 1, 1000, 3333, 64}
			sawPlain, sawDict := false, false
			base := 0
			for rg := range foot.rowGroups {
				rows := int(foot.rowGroups[rg].rows)
				for k, c := range cases {
					col := open(rg, k)
					for pos, s := 0, 0; pos < rows; s++ {
						m := min(sizes[s%len(sizes)], rows-pos)
						a, err := col.next(m)
						if err != nil {
							t.Fatalf("%s row group %d at %d: %v", c.name, rg, pos, err)
						}
						if a.Len() != m {
							t.Fatalf("%s: %d rows, want %d", c.name, a.Len(), m)
						}
						if _, ok := a.(*array.Dictionary); ok {
							sawDict = true
						} else if c.kind == occurrence.KindString {
							sawPlain = true
						}
						for i := 0; i < m; i++ {
							if got, exp := valueAt(a, i), want[k][base+pos+i]; got != exp {
								t.Fatalf("%s row %d: %v, want %v", c.name, base+pos+i, got, exp)
							}
						}
						a.Release()
						pos += m
					}
					col.close()
				}
				// seekRead seeks column k to pos and checks the m rows from there.
				seekRead := func(col *flatColumn, k, pos, m int) {
					if err := col.seek(int64(pos)); err != nil {
						t.Fatalf("%s row group %d: seek %d: %v", cases[k].name, rg, pos, err)
					}
					a, err := col.next(m)
					if err != nil {
						t.Fatalf("%s row group %d at %d: %v", cases[k].name, rg, pos, err)
					}
					for i := 0; i < m; i++ {
						if got, exp := valueAt(a, i), want[k][base+pos+i]; got != exp {
							t.Fatalf("%s row %d after a seek to %d: %v, want %v", cases[k].name, base+pos+i, pos, got, exp)
						}
					}
					a.Release()
				}
				// Seeking: forward jumps within and across pages, then short reads.
				for k := range cases {
					col := open(rg, k)
					r := rand.New(rand.NewPCG(uint64(rg), uint64(k)))
					for pos := r.IntN(50); pos < rows; pos += r.IntN(700) {
						m := min(1+r.IntN(100), rows-pos)
						seekRead(col, k, pos, m)
						pos += m
					}
					col.close()
				}
				// Seeking anywhere, backwards too, between short reads.
				for k := range cases {
					col := open(rg, k)
					r := rand.New(rand.NewPCG(uint64(rg)+9, uint64(k)))
					for range 40 {
						pos := r.IntN(rows)
						seekRead(col, k, pos, min(1+r.IntN(300), rows-pos))
					}
					col.close()
				}
				base += rows
			}
			if base != n {
				t.Fatalf("read %d rows of %d", base, n)
			}
			if v.name != "v1-plain" && (!sawPlain || !sawDict) {
				t.Fatalf("want both dictionary and plain string batches (dict %v, plain %v)", sawDict, sawPlain)
			}
		})
	}
}

// fakePages yields pages built from bytes: the input of the fuzz test.
type fakePages struct {
	dict  *page
	pages []*page
	i     int
}

func (f *fakePages) next() (*page, error) {
	if f.i >= len(f.pages) {
		return nil, io.EOF
	}
	f.i++
	return f.pages[f.i-1], nil
}
func (f *fakePages) seek(int64) (*page, error)  { return nil, errCorrupt }
func (f *fakePages) dictionary() (*page, error) { return f.dict, nil }
func (f *fakePages) close()                     {}

// FuzzFlatColumn feeds arbitrary dictionary and data page bytes to the page
// decoder: it must return rows or an error, never panic or read out of bounds.
func FuzzFlatColumn(f *testing.F) {
	le := func(n int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(n)) }
	dict := append(append(le(2), "NL"...), append(le(2), "DK"...)...)
	levels := []byte{8 << 1, 1} // RLE run: 8 values of 1
	body := append(append(le(len(levels)), levels...), 1, 8<<1, 1)
	f.Add(uint8(0), dict, body, uint8(8), int32(8), uint8(8))
	f.Add(uint8(3), le(7), append(append(le(len(levels)), levels...), 0, 0, 0, 0), uint8(0), int32(8), uint8(3))
	f.Add(uint8(5), []byte{}, append(le(2), 3, 0x55, 0xff), uint8(0), int32(8), uint8(4))
	f.Fuzz(func(t *testing.T, kindByte uint8, dictData, pageBytes []byte, enc uint8, nvals int32, rows uint8) {
		kinds := []occurrence.Kind{occurrence.KindString, occurrence.KindInt32, occurrence.KindInt64,
			occurrence.KindFloat64, occurrence.KindTimestamp, occurrence.KindBool}
		kind := kinds[int(kindByte)%len(kinds)]
		encs := []pq.Encoding{pq.Encodings.Plain, pq.Encodings.RLEDict, pq.Encodings.RLE, pq.Encodings.PlainDict}
		var pages []*page
		dictData = append([]byte(nil), dictData...) // decoded in place
		if len(dictData) > 0 {
			pages = append(pages, &page{pageHeader: pageHeader{typ: pageDict, numValues: int32(len(dictData) / 4), encoding: pq.Encodings.Plain}, data: dictData})
		}
		pages = append(pages, &page{pageHeader: pageHeader{typ: pageData, numValues: nvals % 4096,
			encoding: encs[int(enc)%len(encs)], defEncoding: pq.Encodings.RLE}, data: pageBytes})
		col := newFlatColumn(-1, &fakePages{pages: pages}, kind, int16(kindByte>>7), "fuzz")
		defer col.close()
		want := int(rows%64) + 1
		a, err := col.next(want)
		if err != nil {
			if !errors.Is(err, errCorrupt) && !errors.Is(err, errRLE) {
				t.Fatalf("error of no known kind: %v", err)
			}
			return
		}
		if a.Len() != want {
			t.Fatalf("%d rows, want %d", a.Len(), want)
		}
		for i := 0; i < a.Len(); i++ {
			valueAt(a, i)
		}
	})
}

// FuzzRLE decodes arbitrary hybrid RLE/bit-packed data: values must fit the
// bit width, errors must be errRLE.
func FuzzRLE(f *testing.F) {
	f.Add([]byte{8 << 1, 3}, uint8(2), uint8(8))
	f.Add([]byte{1<<1 | 1, 0x88, 0xc6, 0xfa}, uint8(3), uint8(8))
	f.Fuzz(func(t *testing.T, data []byte, width, n uint8) {
		var d rleDecoder
		if err := d.reset(data, int(width%40)); err != nil {
			if !errors.Is(err, errRLE) {
				t.Fatal(err)
			}
			return
		}
		out := make([]uint32, int(n))
		if err := d.read(out); err != nil {
			if !errors.Is(err, errRLE) {
				t.Fatal(err)
			}
			return
		}
		if w := width % 40; w < 32 {
			for _, v := range out {
				if v>>w != 0 {
					t.Fatalf("value %d wider than %d bits", v, w)
				}
			}
		}
		// Skipping half leaves the second half to read.
		half := len(out) / 2
		if err := d.reset(data, int(width%40)); err != nil {
			t.Fatal(err)
		}
		rest := make([]uint32, len(out)-half)
		if err := d.skip(half); err != nil {
			t.Fatalf("skip %d after reading %d: %v", half, len(out), err)
		}
		if err := d.read(rest); err != nil {
			t.Fatalf("read after skip: %v", err)
		}
		if !slices.Equal(rest, out[half:]) {
			t.Fatalf("after skip %d: %v, want %v", half, rest, out[half:])
		}
	})
}

// TestRLEKnownRuns decodes runs written by hand from the format's definition.
func TestRLEKnownRuns(t *testing.T) {
	// An RLE run of five 3s, then a bit-packed group of 0..7 at width 3
	// (the example of the Parquet encoding documentation).
	data := []byte{5 << 1, 3, 1<<1 | 1, 0x88, 0xc6, 0xfa}
	var d rleDecoder
	if err := d.reset(data, 3); err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, 13)
	if err := d.read(out); err != nil {
		t.Fatal(err)
	}
	want := []uint32{3, 3, 3, 3, 3, 0, 1, 2, 3, 4, 5, 6, 7}
	for i := range want {
		if out[i] != want[i] {
			t.Fatalf("value %d: %d, want %d (all: %v)", i, out[i], want[i], out)
		}
	}
	if err := d.read(out[:1]); !errors.Is(err, errRLE) {
		t.Fatalf("read past the end: %v, want errRLE", err)
	}
	// Skipping into either kind of run leaves the same values to read.
	for k := 0; k <= len(want); k++ {
		if err := d.reset(data, 3); err != nil {
			t.Fatal(err)
		}
		if err := d.skip(k); err != nil {
			t.Fatalf("skip %d: %v", k, err)
		}
		rest := make([]uint32, len(want)-k)
		if err := d.read(rest); err != nil {
			t.Fatalf("read after skip %d: %v", k, err)
		}
		if !slices.Equal(rest, want[k:]) {
			t.Fatalf("after skip %d: %v, want %v", k, rest, want[k:])
		}
	}
}

// TestDictionaryKeepsNoSpareCapacity: a fixed-width dictionary's value
// buffer ends at its last value, whatever the page buffer holds after it.
// Arrow reinterprets a buffer's whole capacity as values; an empty
// dictionary (an all-null chunk) in the last bytes of a page buffer made an
// int64 pointer reach past the allocation, and the race detector's pointer
// checks abort the process on that.
func TestDictionaryKeepsNoSpareCapacity(t *testing.T) {
	for _, c := range []struct {
		kind  occurrence.Kind
		width int
	}{{occurrence.KindInt32, 4}, {occurrence.KindInt64, 8}} {
		for _, n := range []int{0, 1, 3} {
			buf := make([]byte, 64)
			start := len(buf) - n*c.width - 3 // 3 bytes of something else follow
			col := &flatColumn{kind: c.kind, width: c.width}
			p := &page{pageHeader: pageHeader{numValues: int32(n)}, data: buf[start:]}
			if err := col.loadDict(p); err != nil {
				t.Fatal(err)
			}
			if col.dictArr.Len() != n {
				t.Fatalf("%v: dictionary of %d values has %d", c.kind, n, col.dictArr.Len())
			}
			if b := col.dictArr.Data().Buffers()[1].Bytes(); len(b) != n*c.width || cap(b) != len(b) {
				t.Fatalf("%v, %d values: value buffer of %d bytes, capacity %d", c.kind, n, len(b), cap(b))
			}
		}
	}
}

// TestRLEBitPackedWidths decodes bit-packed runs of every width, of data
// lengths that end in all positions of a word, read in pieces of several
// sizes (so that reads start and end both in the body of the data and in
// its last eight bytes), against the values taken bit by bit.
func TestRLEBitPackedWidths(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for width := 1; width <= 32; width++ {
		for groups := 1; groups <= 5; groups++ {
			body := make([]byte, groups*width)
			for i := range body {
				body[i] = byte(rng.Uint32())
			}
			data := append(binary.AppendUvarint(nil, uint64(groups)<<1|1), body...)
			n := groups * 8
			want := make([]uint32, n)
			for i := range want {
				for b := 0; b < width; b++ {
					at := i*width + b
					want[i] |= uint32(body[at/8]>>(at%8)&1) << b
				}
			}
			for _, piece := range []int{1, 3, 8, n} {
				var d rleDecoder
				if err := d.reset(data, width); err != nil {
					t.Fatal(err)
				}
				got := make([]uint32, n)
				for at := 0; at < n; at += piece {
					if err := d.read(got[at:min(at+piece, n)]); err != nil {
						t.Fatalf("width %d, %d groups, pieces of %d: %v", width, groups, piece, err)
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("width %d, %d groups, pieces of %d: %v, want %v", width, groups, piece, got, want)
				}
			}
		}
	}
}
