package download

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// TestDWCATransientJSON exports generated wide records (whose verbatim and
// multimedia JSON columns are PLAIN pages, most rows matching: the scan
// copies them into recycled memory, ScanRequest.Transient) as a DWCA
// through WriteScan, with that memory overwritten as each batch is
// released, and through a scan that copies every string into fresh memory:
// the archives' entries must be byte-identical. A DWCA that read a JSON
// value after Write returned, or a scan that gave its memory back before
// the batch was released, writes corrupted rows here.
func TestDWCATransientJSON(t *testing.T) {
	defer parquet.SetRecyclePoison(parquet.SetRecyclePoison(true))
	ctx := context.Background()
	dir := t.TempDir()
	s, err := parquet.Open(dir, parquet.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	occurrencetest.Load(t, s, 6_000, 3)
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pred, err := occurrence.ParsePredicateJSON([]byte(`{"type":"equals","key":"HAS_COORDINATE","value":"true"}`), occurrence.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	spec := ExportSpec{Format: FormatDWCA, Predicate: pred, Created: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)}
	var archives [2]map[string]string
	for k := range archives {
		var buf bytes.Buffer
		x, err := NewExport(ctx, &buf, spec, ExportOptions{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			if len(x.transientColumns()) == 0 {
				t.Fatal("DWCA names no transient column")
			}
			if _, _, err := x.WriteScan(ctx, s, snap, occurrence.ScanOptions{Workers: 2}, nil); err != nil {
				t.Fatal(err)
			}
		} else {
			req := occurrence.ScanRequest{Predicate: pred, Columns: x.Columns()}
			if _, err := occurrence.Scan(ctx, s, snap, req, occurrence.ScanOptions{Workers: 2}, func(b arrow.RecordBatch) error {
				return x.Write(ctx, b)
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := x.Close(ctx); err != nil {
				t.Fatal(err)
			}
		}
		_, archives[k] = entries(t, buf.Bytes())
	}
	if len(archives[1]["verbatim.txt"]) < 1<<20 {
		t.Fatalf("verbatim.txt of %d bytes: the table is not what the test needs", len(archives[1]["verbatim.txt"]))
	}
	sameEntries(t, archives[0], archives[1])
}
