package pzip

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/readers"
)

func TestSpools(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	occ, verb, media := sample(rng, 900_000), sample(rng, 700_000), sample(rng, 50_000)
	dir := t.TempDir()
	path := filepath.Join(dir, "a.zip")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := NewWriter(out, Options{Workers: 2, ChunkSize: 64 << 10})
	mod := time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC)
	w, _ := zw.CreateHeader(&FileHeader{Name: "occurrence.txt", Modified: mod})
	var tmpV, tmpM bytes.Buffer
	sv, _ := zw.NewSpool(&tmpV, false)
	sm, _ := zw.NewSpool(&tmpM, true)
	// Interleave writes the way a download writes three files row by row.
	for i := 0; i < 1000; i++ {
		w.Write(occ[i*900 : (i+1)*900])
		sv.Write(verb[i*700 : (i+1)*700])
		sm.Write(media[i*50 : (i+1)*50])
	}
	if err := zw.CreateSpooled(&FileHeader{Name: "verbatim.txt"}, sv, &tmpV); !errors.Is(err, ErrSpool) {
		t.Fatalf("unclosed spool accepted: %v", err)
	}
	if err := sv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sm.Close(); err != nil {
		t.Fatal(err)
	}
	if sv.CompressedSize() != int64(tmpV.Len()) || sv.Size() != int64(len(verb)) {
		t.Fatalf("spool sizes %d/%d, wrote %d/%d", sv.CompressedSize(), sv.Size(), tmpV.Len(), len(verb))
	}
	if err := zw.CreateSpooled(&FileHeader{Name: "verbatim.txt", Modified: mod}, sv, &tmpV); err != nil {
		t.Fatal(err)
	}
	if err := zw.CreateSpooled(&FileHeader{Name: "multimedia.txt", Modified: mod}, sm, &tmpM); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	data, _ := os.ReadFile(path)
	checkArchive(t, data, []testEntry{
		{name: "occurrence.txt", data: occ},
		{name: "verbatim.txt", data: verb},
		{name: "multimedia.txt", data: media, stored: true},
	})
	if n := readers.Verify(t, path, time.Minute); n != 3 {
		t.Fatalf("python saw %d entries", n)
	}
}

// TestTempSpool spools an entry into its own temporary file while another
// entry is open, adds it, reads the archive back and removes the file.
func TestTempSpool(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	entries := []testEntry{{name: "core.txt", data: sample(rng, 100_000)}, {name: "ext.txt", data: sample(rng, 300_000)}}
	var buf bytes.Buffer
	zw, err := NewWriter(&buf, Options{ChunkSize: 32 << 10})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f, err := os.CreateTemp(dir, "ext-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	ts, err := zw.NewTempSpool(f)
	if err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC)
	core, err := zw.CreateHeader(&FileHeader{Name: "core.txt", Modified: mod})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := core.Write(entries[0].data); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Write(entries[1].data); err != nil {
		t.Fatal(err)
	}
	if err := ts.Add(zw, &FileHeader{Name: "ext.txt", Modified: mod}); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	checkArchive(t, buf.Bytes(), entries)
	ts.Remove()
	ts.Remove()
	if _, err := f.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("the spool's file after Remove: %v, want closed", err)
	}
}
