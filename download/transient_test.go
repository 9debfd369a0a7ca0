package download

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// TestTransientColumns exports generated wide records (whose verbatim and
// multimedia JSON columns are PLAIN pages, most rows matching: the scan
// copies them into recycled memory, ScanRequest.Transient) in each format
// that names transient columns through WriteScan, with that memory
// overwritten as each batch is released, and through a scan that copies
// every string into fresh memory: the archives' entries must be the same
// (byte for byte; an Avro file, whose sync marker is random, record for
// record). A writer that read a value after Write returned (a DWCA's JSON
// value, a BIONOMIA grouping key kept for its sort), or a scan that gave
// its memory back before the batch was released, writes corrupted rows
// here. SIMPLE_PARQUET's writer orders footer bytes differently from run
// to run, and SQL_TSV_ZIP needs a query: they are left out.
func TestTransientColumns(t *testing.T) {
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
	for _, f := range Formats() {
		if f.SQL || f.Name == FormatSimpleParquet {
			continue
		}
		t.Run(string(f.Name), func(t *testing.T) {
			spec := ExportSpec{Format: f.Name, Predicate: pred, Created: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)}
			var archives [2]map[string]string
			for k := range archives {
				var buf bytes.Buffer
				x, err := NewExport(ctx, &buf, spec, ExportOptions{TempDir: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				if k == 0 {
					if len(x.transientColumns()) == 0 {
						t.Skipf("%s names no transient column", f.Name)
					}
					if _, _, err := x.WriteScan(ctx, s, snap, occurrence.ScanOptions{Workers: 2}, nil); err != nil {
						t.Fatal(err)
					}
				} else {
					req := occurrence.ScanRequest{Predicate: x.scanPredicate(), Columns: x.Columns()}
					if _, err := occurrence.Scan(ctx, s, snap, req, occurrence.ScanOptions{Workers: 2}, func(b arrow.RecordBatch) error {
						return x.Write(ctx, b)
					}); err != nil {
						t.Fatal(err)
					}
					if _, err := x.Close(ctx); err != nil {
						t.Fatal(err)
					}
				}
				archives[k] = comparableEntries(t, buf.Bytes())
			}
			if f.Name == FormatDWCA && len(archives[1]["verbatim.txt"]) < 1<<20 {
				t.Fatalf("verbatim.txt of %d bytes: the table is not what the test needs", len(archives[1]["verbatim.txt"]))
			}
			sameEntries(t, archives[0], archives[1])
		})
	}
}

// comparableEntries are an archive's entries (a file that is not a zip is
// one entry, ""), each Avro container as its schema and records in JSON.
func comparableEntries(t *testing.T, data []byte) map[string]string {
	t.Helper()
	content := map[string]string{"": string(data)}
	if !bytes.HasPrefix(data, []byte("Obj\x01")) {
		_, content = entries(t, data)
	}
	for name, c := range content {
		if strings.HasPrefix(c, "Obj\x01") {
			schema, rows := readAvro(t, []byte(c))
			js, err := json.Marshal([]any{schema, rows})
			if err != nil {
				t.Fatal(err)
			}
			content[name] = string(js)
		}
	}
	return content
}
