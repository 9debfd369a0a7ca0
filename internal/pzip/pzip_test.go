package pzip

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"github.com/biodiversity-downloads/downloader/internal/readers"
)

// sample builds n bytes of text that compresses like occurrence rows.
func sample(rng *rand.Rand, n int) []byte {
	words := []string{"Puma concolor", "DK", "Aarhus", "HUMAN_OBSERVATION", "2021-06-01", "55.1234", "\t", "\n", "æøå", "𝔊"}
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		fmt.Fprintf(&b, "%d", rng.IntN(100000))
	}
	return b.Bytes()[:n]
}

type testEntry struct {
	name   string
	data   []byte
	stored bool
}

func writeArchive(t testing.TB, w io.Writer, opts Options, entries []testEntry, writeSize int) {
	t.Helper()
	zw, err := NewWriter(w, opts)
	if err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC)
	for _, e := range entries {
		ew, err := zw.CreateHeader(&FileHeader{Name: e.name, Stored: e.stored, Modified: mod})
		if err != nil {
			t.Fatal(err)
		}
		for p := e.data; len(p) > 0; {
			k := min(len(p), writeSize)
			if _, err := ew.Write(p[:k]); err != nil {
				t.Fatal(err)
			}
			p = p[k:]
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

func checkArchive(t testing.TB, data []byte, entries []testEntry) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != len(entries) {
		t.Fatalf("%d entries, want %d", len(zr.File), len(entries))
	}
	for i, f := range zr.File {
		if f.Name != entries[i].name {
			t.Fatalf("entry %d named %q, want %q", i, f.Name, entries[i].name)
		}
		wantMethod := zip.Deflate
		if entries[i].stored {
			wantMethod = zip.Store
		}
		if f.Method != wantMethod {
			t.Errorf("%s: method %d, want %d", f.Name, f.Method, wantMethod)
		}
		if len(entries[i].data) > 10_000 && !entries[i].stored && f.CompressedSize64*2 > f.UncompressedSize64 {
			t.Errorf("%s: %d bytes compressed to %d", f.Name, f.UncompressedSize64, f.CompressedSize64)
		}
		if f.Modified.Unix() != time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC).Unix() {
			t.Errorf("%s: modified %v", f.Name, f.Modified)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc) // archive/zip checks the CRC at EOF
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if !bytes.Equal(got, entries[i].data) {
			t.Fatalf("%s: %d bytes read back differ from the %d written", f.Name, len(got), len(entries[i].data))
		}
	}
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	entries := []testEntry{
		{name: "empty.txt"},
		{name: "small.txt", data: []byte("gbifID\tscientificName\n1\tPuma concolor\n")},
		{name: "dataset/ærø 𝔊.xml", data: sample(rng, 10_000)},
		{name: "exact.txt", data: sample(rng, 3*minChunkSize)},
		{name: "big.txt", data: sample(rng, 5_000_000)},
		{name: "stored.bin", data: sample(rng, 70_000), stored: true},
		{name: "last.txt", data: sample(rng, minChunkSize+1)},
	}
	for _, workers := range []int{1, 2, 4} {
		for _, ws := range []int{1 << 20, 1000} {
			t.Run(fmt.Sprintf("workers=%d/write=%d", workers, ws), func(t *testing.T) {
				var b bytes.Buffer
				writeArchive(t, &b, Options{Workers: workers, ChunkSize: minChunkSize, Level: 1 + workers}, entries, ws)
				checkArchive(t, b.Bytes(), entries)
			})
		}
	}
}

func TestDefaultsAndWritten(t *testing.T) {
	var b bytes.Buffer
	zw, err := NewWriter(&b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := zw.Create("a.txt")
	io.WriteString(w, "abc")
	if zw.Written() == 0 {
		t.Error("Written is 0 after a header")
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if zw.Written() != int64(b.Len()) {
		t.Errorf("Written %d, buffer %d", zw.Written(), b.Len())
	}
	if _, err := zw.Create("b.txt"); !errors.Is(err, ErrClosed) {
		t.Errorf("Create after Close: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	if _, err := NewWriter(io.Discard, Options{Level: 12}); err == nil {
		t.Error("level 12 accepted")
	}
	zw, _ := NewWriter(io.Discard, Options{})
	defer zw.Close()
	for _, name := range []string{"", "/abs", `a\b`, "../x", "a/../../b", "\xff"} {
		if _, err := zw.Create(name); !errors.Is(err, ErrName) {
			t.Errorf("name %q: %v", name, err)
		}
	}
	w1, _ := zw.Create("one")
	if _, err := zw.Create("one"); !errors.Is(err, ErrName) {
		t.Errorf("duplicate accepted: %v", err)
	}
	if _, err := w1.Write([]byte("x")); !errors.Is(err, ErrEntryOpen) {
		t.Errorf("write to a finished entry: %v", err)
	}
}

// failWriter fails after limit bytes: a fault a real sink cannot be made to
// produce on demand.
type failWriter struct{ limit int }

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.limit {
		n := f.limit
		f.limit = 0
		return n, errors.New("disk full")
	}
	f.limit -= len(p)
	return len(p), nil
}

func TestWriteErrorIsSticky(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	zw, _ := NewWriter(&failWriter{limit: 100_000}, Options{Workers: 2, ChunkSize: minChunkSize})
	w, _ := zw.Create("big.txt")
	data := sample(rng, 2_000_000)
	var err error
	for p := data; len(p) > 0 && err == nil; p = p[min(len(p), 8192):] {
		_, err = w.Write(p[:min(len(p), 8192)])
	}
	if err2 := zw.Close(); err == nil && err2 == nil {
		t.Fatal("no error from a failing writer")
	}
	if _, err := zw.Create("more"); err == nil {
		t.Fatal("Create after a write error succeeded")
	}
}

func TestThirdPartyReaders(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	entries := []testEntry{
		{name: "empty.txt"},
		{name: "occurrence.txt", data: sample(rng, 3_000_000)},
		{name: "dataset/ærø.xml", data: sample(rng, 2000)},
		{name: "stored.bin", data: sample(rng, 5000), stored: true},
	}
	path := filepath.Join(t.TempDir(), "a.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	writeArchive(t, f, Options{Workers: 2, ChunkSize: 64 << 10}, entries, 4096)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if n := readers.Verify(t, path, time.Minute); n != len(entries) {
		t.Fatalf("python saw %d entries, want %d", n, len(entries))
	}
}

// TestAvailableBuffer writes entries through AvailableBuffer (bytes built in
// the chunk's free space, taken in place), mixed with plain writes, with
// buffers that outgrow the free space (then copied) and a stored entry
// (no buffer), and reads the archive back.
func TestAvailableBuffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	entries := []testEntry{
		{name: "a.txt", data: sample(rng, 300_000)},
		{name: "b.txt", data: sample(rng, 5_000)},
		{name: "stored.txt", data: sample(rng, 20_000), stored: true},
		{name: "c.txt", data: sample(rng, 200_000)},
	}
	type availableBuffer interface{ AvailableBuffer() []byte }
	var buf bytes.Buffer
	zw, err := NewWriter(&buf, Options{ChunkSize: 16 << 10, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC)
	inPlace, copied := 0, 0
	for _, e := range entries {
		w, err := zw.CreateHeader(&FileHeader{Name: e.name, Stored: e.stored, Modified: mod})
		if err != nil {
			t.Fatal(err)
		}
		ab := w.(availableBuffer)
		for p := e.data; len(p) > 0; {
			k := min(len(p), 1+rng.IntN(9000))
			b := ab.AvailableBuffer()
			if e.stored != (b == nil) {
				t.Fatalf("%s: AvailableBuffer %v for a stored=%v entry", e.name, b != nil, e.stored)
			}
			start := unsafe.SliceData(b[:cap(b)])
			if rng.IntN(5) == 0 {
				b = p[:k] // a plain write now and then
			} else {
				b = append(b, p[:k]...)
			}
			if cap(b) > 0 && unsafe.SliceData(b) == start {
				inPlace++
			} else {
				copied++
			}
			if _, err := w.Write(b); err != nil {
				t.Fatal(err)
			}
			p = p[k:]
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if inPlace == 0 || copied == 0 {
		t.Fatalf("%d writes in place, %d copied: want both", inPlace, copied)
	}
	checkArchive(t, buf.Bytes(), entries)
}
