package zipsafe

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"
)

func TestCapReader(t *testing.T) {
	for _, c := range []struct {
		size, limit int64
		fail        bool
	}{{10, 10, false}, {11, 10, true}, {0, 0, false}, {5 << 20, 0, false}, {5 << 20, 1 << 20, true}} {
		r := Cap(bytes.NewReader(make([]byte, c.size)), c.limit, "x.zip!meta.xml", "meta.xml")
		n, err := io.Copy(io.Discard, r)
		if c.fail != (err != nil) {
			t.Errorf("%d bytes, cap %d: %v", c.size, c.limit, err)
			continue
		}
		if !c.fail {
			if n != c.size || r.N() != c.size {
				t.Errorf("%d bytes, cap %d: read %d (N %d)", c.size, c.limit, n, r.N())
			}
			continue
		}
		var te *TooLargeError
		if !errors.Is(err, ErrTooLarge) || !errors.As(err, &te) || te.Limit != c.limit || te.Name != "x.zip!meta.xml" {
			t.Errorf("%d bytes, cap %d: error %v", c.size, c.limit, err)
		}
		if n > c.limit || r.N() > c.limit+1 {
			t.Errorf("%d bytes, cap %d: handed out %d bytes, read %d", c.size, c.limit, n, r.N())
		}
		// the error sticks
		if _, err2 := r.Read(make([]byte, 10)); !errors.Is(err2, ErrTooLarge) {
			t.Errorf("second read: %v", err2)
		}
	}
	err := (&TooLargeError{Name: "eml.xml", What: "EML document", Limit: 8 << 20}).Error()
	if want := "eml.xml: EML document larger than the limit of 8 MiB (8388608 bytes)"; err != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 40: "1 TiB", 3 << 30: "3 GiB", 16 << 20: "16 MiB", 64 << 10: "64 KiB", 1500: "1500 bytes", 3<<20 + 1: "3.0 MiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// lyingZip holds one entry whose headers declare `declared` bytes while its
// deflated data inflates to `real` bytes (CRC of the real data).
func lyingZip(t *testing.T, real, declared int) *zip.Reader {
	t.Helper()
	data := bytes.Repeat([]byte("a"), real)
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	fw.Write(data)
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "meta.xml", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(data),
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: uint64(declared)})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(comp.Bytes())
	zw.Close()
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return zr
}

func TestOpenEntry(t *testing.T) {
	// declares 1000 bytes, inflates to 1 MiB: stopped right after the 1000
	zr := lyingZip(t, 1<<20, 1000)
	rc, err := OpenEntry(zr.File[0], 1<<30, "a.zip!meta.xml", "meta.xml")
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, rc)
	rc.Close()
	if !errors.Is(err, ErrSizeMismatch) || !strings.Contains(err.Error(), "a.zip!meta.xml inflates past the 1000 bytes its header declares") || n > 1000 {
		t.Errorf("lying entry: %d bytes, %v", n, err)
	}
	// declares more than the cap: refused before reading
	zr = lyingZip(t, 100, 2<<20)
	if _, err := OpenEntry(zr.File[0], 1<<20, "a.zip!meta.xml", "meta.xml"); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "declared size") {
		t.Errorf("declared over the cap: %v", err)
	}
	// an honest entry over the cap fails as it streams
	zr = lyingZip(t, 3<<20, 3<<20)
	rc, err = OpenEntry(zr.File[0], 0, "a.zip!meta.xml", "meta.xml")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := io.Copy(io.Discard, rc); err != nil || n != 3<<20 {
		t.Errorf("uncapped: %d bytes, %v", n, err)
	}
	rc, _ = OpenEntry(zr.File[0], 0, "a.zip!meta.xml", "meta.xml")
	capped := Cap(rc, 1<<20, "a.zip!meta.xml", "meta.xml")
	if _, err := io.Copy(io.Discard, capped); !errors.Is(err, ErrTooLarge) {
		t.Errorf("capped: %v", err)
	}
	capped.Close()
}

// FuzzOpenEntry reads every entry of arbitrary zips under a cap: no panic,
// never more than the cap handed out, and no entry refused that declares
// no more than the cap.
func FuzzOpenEntry(f *testing.F) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("meta.xml")
	w.Write(bytes.Repeat([]byte("<x/>"), 100))
	zw.Close()
	f.Add(buf.Bytes(), int64(64))
	f.Add(buf.Bytes(), int64(1000))
	f.Fuzz(func(t *testing.T, data []byte, limit int64) {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		limit = limit%4096 + 1
		if limit < 1 {
			limit += 4096
		}
		for _, zf := range zr.File {
			rc, err := OpenEntry(zf, limit, "f.zip!"+zf.Name, "entry")
			if err != nil {
				if errors.Is(err, ErrTooLarge) && zf.UncompressedSize64 <= uint64(limit) {
					t.Fatalf("refused an entry declaring %d bytes under a cap of %d", zf.UncompressedSize64, limit)
				}
				continue
			}
			n, _ := io.Copy(io.Discard, io.LimitReader(rc, 1<<20))
			rc.Close()
			if n > limit {
				t.Fatalf("read %d bytes under a cap of %d", n, limit)
			}
		}
	})
}
