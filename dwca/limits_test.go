package dwca

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/internal/hostile"
)

// The hostile inputs of these tests are generated (internal/hostile); the
// memory they cost the real command is asserted by cmd/downloader's
// hostile-input suite.

const bombMetaHead = `<archive xmlns="http://rs.tdwg.org/dwc/text/"><!--`

const bombMetaTail = `--><core fieldsTerminatedBy="\t" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Occurrence">
<files><location>occurrence.txt</location></files><id index="0"/>
<field index="0" term="http://rs.tdwg.org/dwc/terms/occurrenceID"/>
<field index="1" term="http://rs.tdwg.org/dwc/terms/scientificName"/></core></archive>`

const smallData = "occurrenceID\tscientificName\no1\tAbies alba\no2\tPicea abies\n"

// checkTooLarge asserts err is a size cap naming where and the limit.
func checkTooLarge(t *testing.T, err error, where string, limit int64) {
	t.Helper()
	var te *TooLargeError
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &te) {
		t.Fatalf("error %v, want a *TooLargeError", err)
	}
	if te.Name != where || te.Limit != limit || !strings.Contains(err.Error(), fmt.Sprintf("(%d bytes)", limit)) {
		t.Errorf("error %q names %q and %d, want %q and %d", err, te.Name, te.Limit, where, limit)
	}
}

// A meta.xml whose comment inflates past the cap (under the ratio check) is
// refused, zipped or in a folder, and so is one declaring a size over it.
func TestMetaBomb(t *testing.T) {
	dir := t.TempDir()
	meta := hostile.Entry{Name: "meta.xml", Head: []byte(bombMetaHead), Filler: 40 << 20, Tail: []byte(bombMetaTail)}
	data := hostile.Entry{Name: "occurrence.txt", Head: []byte(smallData)}
	zipPath := filepath.Join(dir, "bomb.zip")
	if err := hostile.WriteZip(zipPath, meta, data); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), zipPath)
	checkTooLarge(t, err, zipPath+"!meta.xml", DefaultMaxMetaBytes)
	if !strings.Contains(err.Error(), "declared size") {
		t.Errorf("the declared size is over the cap, the error should say so: %v", err)
	}
	// the headers lie (1 KiB): stopped at the declared size
	meta.Declared = 1 << 10
	hostile.WriteZip(zipPath, meta, data)
	if _, err := Open(context.Background(), zipPath); !errors.Is(err, ErrSizeMismatch) || !strings.Contains(err.Error(), "bomb.zip!meta.xml inflates past the 1024 bytes") {
		t.Errorf("lying meta.xml: %v", err)
	}
	// honest headers, a smaller cap than the entry: stopped as it streams
	meta.Declared = 0
	meta.Filler = 3 << 20
	hostile.WriteZip(zipPath, meta, data)
	_, err = Options{Limits: Limits{MetaBytes: 1 << 20}}.Open(context.Background(), zipPath)
	checkTooLarge(t, err, zipPath+"!meta.xml", 1<<20)
	// a folder
	folder := filepath.Join(dir, "folder")
	os.Mkdir(folder, 0o755)
	hostile.WriteFile(filepath.Join(folder, "meta.xml"), meta)
	os.WriteFile(filepath.Join(folder, "occurrence.txt"), []byte(smallData), 0o644)
	_, err = Options{Limits: Limits{MetaBytes: 1 << 20}}.Open(context.Background(), folder)
	checkTooLarge(t, err, filepath.Join(folder, "meta.xml"), 1<<20)
	// under the cap the same archive opens
	a, err := Options{Limits: Limits{MetaBytes: 4 << 20}}.Open(context.Background(), folder)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := allRecords(t, a)
	a.Close()
	if len(recs) != 2 {
		t.Errorf("%d records under the cap, want 2", len(recs))
	}
}

// EML over the cap fails to read with the cap in the error.
func TestEMLBomb(t *testing.T) {
	dir := t.TempDir()
	zipPath := filepath.Join(dir, "eml.zip")
	eml := hostile.Entry{Name: "eml.xml", Head: []byte("<eml:eml><dataset><title>T</title><!--"), Filler: 3 << 20, Tail: []byte("--></dataset></eml:eml>")}
	if err := hostile.WriteZip(zipPath, eml, hostile.Entry{Name: "occurrence.txt", Head: []byte(smallData)}); err != nil {
		t.Fatal(err)
	}
	a, err := Options{Limits: Limits{EMLBytes: 1 << 20}}.Open(context.Background(), zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rc, err := a.EML()
	if err == nil {
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
	}
	checkTooLarge(t, err, zipPath+"!eml.xml", 1<<20)
}

// One line longer than the row cap is a broken row that says the cap; the
// rows after it are read, and the line is never held whole.
func TestHugeLine(t *testing.T) {
	dir := t.TempDir()
	zipPath := filepath.Join(dir, "line.zip")
	data := hostile.Entry{Name: "occurrence.txt", Head: []byte("occurrenceID\tscientificName\no1\tAbies alba\no2\t"), Filler: 20 << 20, Tail: []byte("\no3\tPicea abies\n")}
	if err := hostile.WriteZip(zipPath, data); err != nil {
		t.Fatal(err)
	}
	a, err := Options{Limits: Limits{RowBytes: 1 << 20}}.Open(context.Background(), zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	recs, sr := allRecords(t, a)
	b := sr.Broken()
	if len(recs) != 2 || b.Count != 1 || b.Rows[0].Line != 3 {
		t.Fatalf("%d records, broken %+v; want o1 and o3, line 3 broken", len(recs), b)
	}
	err = b.Rows[0]
	if !errors.Is(err, ErrRowTooLong) || !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "occurrence.txt line 3: row too long: longer than the row limit of 1 MiB (1048576 bytes)") {
		t.Errorf("broken row: %v", err)
	}
	// a header line over the cap fails the file, naming it and the cap
	data.Head = []byte("occurrenceID\t")
	data.Tail = []byte("\n")
	hostile.WriteZip(zipPath, data)
	a2, err := Options{Limits: Limits{RowBytes: 1 << 20}}.Open(context.Background(), zipPath)
	if err == nil {
		_, err = a2.Records(context.Background())
		a2.Close()
	}
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "1 MiB") || !strings.Contains(err.Error(), "occurrence.txt") {
		t.Errorf("header over the cap: %v", err)
	}
}

// A data file over the file cap fails as it streams.
func TestDataFileCap(t *testing.T) {
	dir := t.TempDir()
	zipPath := filepath.Join(dir, "big.zip")
	rows := strings.Repeat("o\tAbies alba\n", 100000)
	meta := hostile.Entry{Name: "meta.xml", Head: []byte(bombMetaHead + bombMetaTail)}
	if err := hostile.WriteZip(zipPath, meta, hostile.Entry{Name: "occurrence.txt", Head: []byte("occurrenceID\tscientificName\n" + rows)}); err != nil {
		t.Fatal(err)
	}
	a, err := Options{Limits: Limits{FileBytes: 1 << 20}}.Open(context.Background(), zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rr, err := a.Rows(context.Background(), a.Meta.Core)
	if err == nil {
		_, err = rr.Next()
	}
	checkTooLarge(t, err, zipPath+"!occurrence.txt", 1<<20)
	// an entry lying about its size is stopped at the declared size
	hostile.WriteZip(zipPath, meta, hostile.Entry{Name: "occurrence.txt", Head: []byte("occurrenceID\tscientificName\n" + rows), Declared: 1000})
	a2, err := Open(context.Background(), zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer a2.Close()
	sr, err := a2.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	n := 0
	for {
		_, err = sr.Next()
		if err != nil {
			break
		}
		n++
	}
	if !errors.Is(err, ErrSizeMismatch) || n > 100 {
		t.Errorf("after %d records: %v", n, err)
	}
}

// starBomb is an archive whose extension rows all share the one id of many
// core rows: a disk join would multiply them.
func starBomb(t *testing.T, coreRows, extRows int) string {
	var core, ext strings.Builder
	core.WriteString("id\tocc\n")
	for i := range coreRows {
		fmt.Fprintf(&core, "x\to%d\n", i)
	}
	ext.WriteString("id\ttype\n")
	for i := range extRows {
		fmt.Fprintf(&ext, "x\tmeasurement number %d of the same core id\n", i)
	}
	return writeDir(t, map[string]string{
		"meta.xml": `<archive><core fieldsTerminatedBy="\t" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Occurrence">
<files><location>occurrence.txt</location></files><id index="0"/><field index="1" term="http://rs.tdwg.org/dwc/terms/occurrenceID"/></core>
<extension fieldsTerminatedBy="\t" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/MeasurementOrFact">
<files><location>mof.txt</location></files><coreid index="0"/><field index="1" term="http://rs.tdwg.org/dwc/terms/measurementType"/></extension></archive>`,
		"occurrence.txt": core.String(),
		"mof.txt":        ext.String(),
	})
}

// The disk join stops writing temporary files at the spill cap.
func TestSpillCap(t *testing.T) {
	dir := starBomb(t, 400, 2000) // 400 x 2000 joined rows: ~50 MB of spill
	tmp := t.TempDir()
	a, err := Options{JoinBudget: 1, TempDir: tmp, Limits: Limits{SpillBytes: 4 << 20}}.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	_, err = a.Records(context.Background())
	checkTooLarge(t, err, dir, 4<<20)
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// the default spill cap, from the data's size, stops it too
	a2, err := Options{JoinBudget: 1, TempDir: tmp}.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a2.Close()
	data, _ := a2.dataBytes()
	if _, err := a2.Records(context.Background()); err != nil {
		t.Fatalf("under the default cap of %d bytes: %v", DefaultSpillFactor*data+1<<30, err)
	}
}

// A core row whose extension rows pass the record cap is a broken row; the
// others are read.
func TestRecordCap(t *testing.T) {
	dir := starBomb(t, 2, 5000)
	// a second core id with one extension row
	f, _ := os.OpenFile(filepath.Join(dir, "occurrence.txt"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("y\tother\n")
	f.Close()
	f, _ = os.OpenFile(filepath.Join(dir, "mof.txt"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("y\tone\n")
	f.Close()
	a, err := Options{JoinBudget: 1, TempDir: t.TempDir(), Limits: Limits{RecordBytes: 64 << 10}}.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	recs, sr := allRecords(t, a)
	b := sr.Broken()
	if len(recs) != 1 || recs[0].Core["http://rs.tdwg.org/dwc/terms/occurrenceID"] != "other" || b.Count != 2 {
		t.Fatalf("%d records, %d broken; want the y record, the two x rows broken", len(recs), b.Count)
	}
	if e := b.Rows[0].Error(); !strings.Contains(e, "occurrence.txt line 2: core id \"x\": extension rows joined to one core row larger than the limit of 64 KiB") || !errors.Is(b.Rows[0], ErrTooLarge) {
		t.Errorf("broken row %q", e)
	}
}

// OpenURL refuses a download over the cap: at once when the server says
// its length, as it streams when it does not.
func TestOpenURLCap(t *testing.T) {
	body := strings.Repeat("occurrenceID,scientificName\n", 100000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked.csv" {
			w.(http.Flusher).Flush() // no Content-Length
		}
		io.WriteString(w, body)
	}))
	defer srv.Close()
	tmp := t.TempDir()
	for _, p := range []string{"/sized.csv", "/chunked.csv"} {
		_, err := Options{TempDir: tmp, Limits: Limits{FileBytes: 1 << 20}}.OpenURL(context.Background(), nil, srv.URL+p)
		checkTooLarge(t, err, srv.URL+p, 1<<20)
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("%s: left %v", p, left)
		}
	}
}
