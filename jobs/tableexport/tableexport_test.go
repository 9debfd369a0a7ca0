package tableexport

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/ingest"
	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// What a job's request carries beyond the predicate reaches the archive:
// the requested extension's rows, the portal and DOI in the citation, the
// checklist asked for in the metadata.
func TestExportRequestReachesTheArchive(t *testing.T) {
	ctx := context.Background()
	store, err := parquet.Open(t.TempDir(), parquet.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// Kew's sample: 19 specimens with image rows (gbif:Multimedia).
	src, err := ingest.Open(ctx, "../../dwca/testdata/dissco-dwca-kew-gbif-media.zip", ingest.OpenOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Load(ctx, store, src, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	src.Close()
	e := New(store, Config{TempDir: t.TempDir()}, nil)
	var buf bytes.Buffer
	created := time.Date(2026, 5, 7, 10, 0, 0, 0, time.UTC)
	res, err := e.Export(ctx, jobs.ExportRequest{Key: "0000001-260507100000000", Format: "DWCA", Predicate: json.RawMessage("null"),
		Created: created, ChecklistKey: "7ddf754f-d193-4cc9-b351-99906754a03b",
		VerbatimExtensions: []string{"http://rs.gbif.org/terms/1.0/Multimedia"}, DOI: "10.80000/dl.abc123",
		Portal: download.Portal{Name: "Portal.example", Short: "PE"}}, &buf, func(jobs.Progress) {})
	if err != nil || res.Records != 19 {
		t.Fatalf("export: %+v %v", res, err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	text := func(name string) string {
		rc, err := zr.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		b, _ := io.ReadAll(rc)
		return string(b)
	}
	if media := strings.Count(text("verbatim/multimedia.txt"), "\n"); media != 1+19 {
		t.Errorf("verbatim/multimedia.txt has %d lines, want a header and Kew's 19 image rows", media)
	}
	wantCit := "Portal.example (7 May 2026) PE Occurrence Download https://doi.org/10.80000/dl.abc123"
	if cit := text("citations.txt"); !strings.Contains(cit, "\n"+wantCit+"\n") {
		t.Errorf("citations.txt:\n%s\nwant the line %q", cit, wantCit)
	}
	if eml := text("metadata.xml"); !strings.Contains(eml, "checklist 7ddf754f-d193-4cc9-b351-99906754a03b was asked for") ||
		!strings.Contains(eml, "<title xml:lang=\"eng\">PE Occurrence Download 10.80000/dl.abc123</title>") {
		t.Errorf("metadata.xml does not name the checklist asked for or the portal's title:\n%s", eml)
	}
}
