package pzip

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/readers"
)

// The zip64 tests write multi-gigabyte streams; they run in the full test
// command and are skipped by `go test -short`.

func TestZip64LargeEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skips the 4.3 GiB entry")
	}
	const size = 4<<30 + 300<<20 + 7 // past 4 GiB and not a chunk multiple
	path := filepath.Join(t.TempDir(), "big.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(path) // the archive lives no longer than the test
	bw := bufio.NewWriterSize(f, 1<<20)
	zw, err := NewWriter(bw, Options{Level: 1})
	if err != nil {
		t.Fatal(err)
	}
	w, err := zw.Create("occurrence.txt")
	if err != nil {
		t.Fatal(err)
	}
	// Rows that vary, so the stream is not trivially one long match.
	var block []byte
	for i := 0; len(block) < 1<<20; i++ {
		block = fmt.Appendf(block, "%d\tPuma concolor\tDK\t%d.%04d\t2021-06-%02d\n", i, i%90, i%10000, i%28+1)
	}
	for left := int64(size); left > 0; {
		k := min(left, int64(len(block)))
		if _, err := w.Write(block[:k]); err != nil {
			t.Fatal(err)
		}
		left -= k
	}
	tail, _ := zw.Create("after.txt")
	io.WriteString(tail, "an entry after the large one\n")
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := zr.File[0].UncompressedSize64; got != size {
		t.Fatalf("archive/zip sees %d bytes, want %d", got, size)
	}
	zr.Close()
	if n := readers.Verify(t, path, 5*time.Minute); n != 2 {
		t.Fatalf("python saw %d entries, want 2", n)
	}
}

func TestZip64ManyEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skips the 70,000-entry archive")
	}
	const n = 70_000
	path := filepath.Join(t.TempDir(), "many.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw, err := NewWriter(f, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		// A few entries announce zip64 in their local header too.
		w, err := zw.CreateHeader(&FileHeader{Name: fmt.Sprintf("d%02d/%06d.txt", i%100, i), Zip64: i%10_000 == 0})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "entry %d\n", i)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != n {
		t.Fatalf("archive/zip sees %d entries, want %d", len(zr.File), n)
	}
	for _, i := range []int{0, 1, 65_535, 65_536, n - 1} {
		rc, err := zr.File[i].Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(b) != fmt.Sprintf("entry %d\n", i) {
			t.Fatalf("entry %d: %q %v", i, b, err)
		}
	}
	if got := readers.Verify(t, path, 5*time.Minute); got != n {
		t.Fatalf("python saw %d entries, want %d", got, n)
	}
}

// TestZip64HeaderFields checks the encoding of sizes and offsets past 4 GiB
// in the headers of a spooled (known-size) entry, which the streaming tests
// above only reach with unknown sizes.
func TestZip64HeaderFields(t *testing.T) {
	le := func(b []byte) uint64 {
		var v uint64
		for i := len(b) - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return v
	}
	e := &entry{name: "verbatim.txt", method: Deflate, known: true, zip64Local: true, crc: 0xdeadbeef,
		size: 5 << 30, compressed: 4<<30 + 5, offset: 6 << 30, modified: time.Unix(1700000000, 0)}
	lh := e.localHeader()
	if le(lh[14:18]) != 0xdeadbeef || le(lh[18:22]) != max32 || le(lh[22:26]) != max32 || le(lh[4:6]) != versionZip64 {
		t.Fatalf("local header fields % x", lh[:30])
	}
	extra := lh[30+len(e.name):]
	if le(extra[0:2]) != extraZip64 || le(extra[2:4]) != 16 || le(extra[4:12]) != 5<<30 || le(extra[12:20]) != 4<<30+5 {
		t.Fatalf("local zip64 extra % x", extra[:20])
	}
	ch := e.centralHeader()
	if le(ch[20:24]) != max32 || le(ch[24:28]) != max32 || le(ch[42:46]) != max32 {
		t.Fatalf("central header fields % x", ch[:46])
	}
	extra = ch[46+len(e.name):]
	if le(extra[2:4]) != 24 || le(extra[4:12]) != 5<<30 || le(extra[12:20]) != 4<<30+5 || le(extra[20:28]) != 6<<30 {
		t.Fatalf("central zip64 extra % x", extra[:28])
	}
	end := endRecords(3, 7<<30, 100)
	if le(end[0:4]) != sigEnd64 || le(end[48:56]) != 7<<30 || le(end[56:60]) != sigEnd64Locate || le(end[64:72]) != 7<<30+100 {
		t.Fatalf("zip64 end records % x", end)
	}
}
