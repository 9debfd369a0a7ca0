package parquet

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// TestConformanceReadAt runs the scan contract suite with the files read by
// ReadAt into read windows, as on platforms without mmap or for a file that
// cannot be mapped.
func TestConformanceReadAt(t *testing.T) {
	defer func(m bool) { mapFiles = m }(mapFiles)
	mapFiles = false
	occurrencetest.Run(t, func(t *testing.T) occurrence.Backend {
		return openTest(t, Config{RowGroupRows: 1000, FileRowGroups: 3})
	})
}

// TestScanReadsMappedFiles checks that a scan on a Unix system reads its
// files mapped (the window reads are the fallback), and closing the store
// unmaps them.
func TestScanReadsMappedFiles(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no mmap on " + runtime.GOOS)
	}
	ctx := context.Background()
	s := openTest(t, Config{RowGroupRows: 500})
	occurrencetest.Load(t, s, 2000, 2)
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	_, err = occurrence.Scan(ctx, s, snap, occurrence.ScanRequest{Columns: []string{occurrence.ColLocality}}, occurrence.ScanOptions{},
		func(b arrow.RecordBatch) error { rows += int(b.NumRows()); return nil })
	if err != nil || rows != 2000 {
		t.Fatalf("scanned %d rows, %v", rows, err)
	}
	s.mu.Lock()
	var opened []*openFile
	for _, slot := range s.files {
		if slot.o != nil {
			opened = append(opened, slot.o)
		}
	}
	s.mu.Unlock()
	if len(opened) == 0 {
		t.Fatal("the scan left no open file")
	}
	for _, o := range opened {
		if o.mapped == nil || int64(len(o.mapped)) != o.size {
			t.Fatalf("file of %d bytes mapped as %d", o.size, len(o.mapped))
		}
		if _, ok := o.reader().(mappedFile); !ok {
			t.Fatalf("reader is %T, not the mapping", o.reader())
		}
	}
	if err := opened[0].close(); err != nil {
		t.Fatal(err)
	}
	if opened[0].mapped != nil {
		t.Fatal("close left the mapping")
	}
}

// TestMappedFileReads checks the mapping's reads against a file's: ReadAt
// as bytes.Reader's, slices only within the file.
func TestMappedFileReads(t *testing.T) {
	data := []byte("0123456789abcdef")
	m, r := mappedFile(data), bytes.NewReader(data)
	for _, c := range []struct {
		off int64
		n   int
	}{{0, 4}, {12, 4}, {14, 4}, {16, 1}, {17, 1}, {0, 16}, {3, 0}} {
		got, want := make([]byte, c.n), make([]byte, c.n)
		gn, gerr := m.ReadAt(got, c.off)
		wn, werr := r.ReadAt(want, c.off)
		if gn != wn || !bytes.Equal(got, want) || (gerr == nil) != (werr == nil) || (gerr != nil && !errors.Is(gerr, io.EOF)) {
			t.Errorf("ReadAt(%d, %d) = %d %q %v, want %d %q %v", c.off, c.n, gn, got[:gn], gerr, wn, want[:wn], werr)
		}
	}
	for _, c := range []struct {
		off int64
		n   int
		ok  bool
	}{{0, 16, true}, {15, 1, true}, {16, 0, true}, {16, 1, false}, {-1, 1, false}, {2, -1, false}, {1, 1 << 62, false}, {1 << 62, 1, false}} {
		b, ok := m.slice(c.off, c.n)
		if ok != c.ok {
			t.Errorf("slice(%d, %d) ok %v, want %v", c.off, c.n, ok, c.ok)
			continue
		}
		if ok && (!bytes.Equal(b, data[c.off:c.off+int64(c.n)]) || cap(b) != c.n) {
			t.Errorf("slice(%d, %d) = %q cap %d", c.off, c.n, b, cap(b))
		}
	}
}
