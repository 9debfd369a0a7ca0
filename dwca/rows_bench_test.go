package dwca

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// benchData generates a comma-separated, quoted occurrence file of n rows
// (some values quoted, with separators and doubled quotes inside).
func benchData(n int) []byte {
	var b bytes.Buffer
	b.WriteString("occurrenceID,scientificName,country,decimalLatitude,decimalLongitude,eventDate,locality,remarks\n")
	for i := range n {
		fmt.Fprintf(&b, "urn:occ:%d,Puma concolor (Linnaeus 1771),DK,%d.%04d,%d.%04d,2019-05-%02d,\"Near the river, 3 km N of \"\"Ämål\"\"\",%s\n",
			i, i%90, i%10000, i%180, i%9999, i%28+1, strings.Repeat("remark ", i%12))
	}
	return b.Bytes()
}

func benchSpec() FileSpec {
	s := newFileSpec()
	s.Files, s.IgnoreHeaderLines = []string{"occ.csv"}, 1
	for i, t := range []string{"occurrenceID", "scientificName", "country", "decimalLatitude",
		"decimalLongitude", "eventDate", "locality", "occurrenceRemarks"} {
		s.Fields = append(s.Fields, Field{Index: i, Term: "http://rs.tdwg.org/dwc/terms/" + t})
	}
	return s
}

// BenchmarkRowReader reads a quoted CSV file through RowReader; compare with
// BenchmarkPeerEncodingCSV, the standard library reader over the same bytes.
func BenchmarkRowReader(b *testing.B) {
	data := benchData(50000)
	spec := benchSpec()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rr := newRowReader(context.Background(), memFiles{"occ.csv": data}, &spec)
		n := 0
		for {
			_, err := rr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 50000 {
			b.Fatalf("%d rows", n)
		}
	}
}

// BenchmarkPeerEncodingCSV is the peer of BenchmarkRowReader: encoding/csv
// with ReuseRecord over the same bytes.
func BenchmarkPeerEncodingCSV(b *testing.B) {
	data := benchData(50000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := csv.NewReader(bytes.NewReader(data))
		r.ReuseRecord = true
		r.FieldsPerRecord = -1
		n := 0
		for {
			_, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 50001 {
			b.Fatalf("%d rows", n)
		}
	}
}

// BenchmarkPeerCSVWriter is the peer of BenchmarkWriteRow: encoding/csv
// writing the same row tab-separated (it quotes instead of cleaning).
func BenchmarkPeerCSVWriter(b *testing.B) {
	row := benchRow()
	w := csv.NewWriter(io.Discard)
	w.Comma = '\t'
	b.SetBytes(rowBytes(row))
	b.ReportAllocs()
	for b.Loop() {
		w.Write(row)
	}
	w.Flush()
}

// TestRowReaderMemoryFlat reads files of 20k and 200k rows and checks that
// the live heap after reading does not grow with the file: the reader holds
// one row at a time.
func TestRowReaderMemoryFlat(t *testing.T) {
	spec := benchSpec()
	peak := func(rows int) uint64 {
		data := benchData(rows)
		rr := newRowReader(context.Background(), memFiles{"occ.csv": data}, &spec)
		var max uint64
		var ms runtime.MemStats
		for i := 0; ; i++ {
			if _, err := rr.Next(); err == io.EOF {
				break
			}
			if i%20000 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				if live := ms.HeapAlloc - uint64(len(data)); ms.HeapAlloc > uint64(len(data)) && live > max {
					max = live
				}
			}
		}
		runtime.KeepAlive(data)
		return max
	}
	small, large := peak(20000), peak(200000)
	if large > small+4<<20 {
		t.Errorf("heap beyond the input grows with the file: %d KiB for 20k rows, %d KiB for 200k rows", small>>10, large>>10)
	}
}
