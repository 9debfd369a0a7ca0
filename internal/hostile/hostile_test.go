package hostile

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The bombs are real zips: archive/zip inflates them to the content they
// describe, and the deflated data is about 99 times smaller.
func TestWriteZip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.zip")
	entries := []Entry{
		{Name: "meta.xml", Head: []byte("<archive><!--"), Filler: 5<<20 + 17, Tail: []byte("--></archive>\n")},
		{Name: "eml.xml", Head: []byte("\u00e9\xff"), Filler: 300, Fill: 'y'},
		{Name: "small.txt", Head: []byte("a\tb\n")},
	}
	if err := WriteZip(p, entries...); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(p)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for i, e := range entries {
		f := zr.File[i]
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		var want bytes.Buffer
		e.write(&want)
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: inflated %d bytes, want %d (content differs)", e.Name, len(got), want.Len())
		}
		if e.Filler > 1<<20 {
			if ratio := f.UncompressedSize64 / f.CompressedSize64; ratio < 90 || ratio >= 200 {
				t.Errorf("%s: ratio %d, want about 99", e.Name, ratio)
			}
		}
	}
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "m"), entries[0]); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "m")); err != nil || st.Size() != entries[0].Size() {
		t.Errorf("WriteFile: %v, %v", st, err)
	}
}

// An entry declaring fewer bytes than it holds: archive/zip stops at the
// declared size.
func TestWriteZipLyingSize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.zip")
	if err := WriteZip(p, Entry{Name: "meta.xml", Filler: 1 << 20, Declared: 100}); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(p)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if zr.File[0].UncompressedSize64 != 100 {
		t.Fatalf("declared %d", zr.File[0].UncompressedSize64)
	}
	rc, _ := zr.File[0].Open()
	n, err := io.Copy(io.Discard, rc)
	if !errors.Is(err, zip.ErrFormat) {
		t.Errorf("read %d bytes, %v; want zip.ErrFormat", n, err)
	}
}
