package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestWritebackWritesEverything writes past several writeback steps in
// uneven pieces and reads the file back.
func TestWritebackWritesEverything(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 20<<20+12345)
	for i := range data {
		data[i] = byte(r.IntN(256))
	}
	w := newWriteback(f)
	for p := data; len(p) > 0; {
		k := min(len(p), 1+r.IntN(3<<20))
		if n, err := w.Write(p[:k]); err != nil || n != k {
			t.Fatalf("wrote %d of %d: %v", n, k, err)
		}
		p = p[k:]
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, differing from the %d written", len(got), len(data))
	}
}
