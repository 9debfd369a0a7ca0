package parquet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// TestRowGroupsWrittenByColumnAsWhole: a window written a gathered column
// at a time, the payload columns in pieces of 1,024 rows, gives the bytes
// pqarrow.FileWriter.Write gives for the whole gathered row groups (what
// the writer did before it bounded its copies to one column, then to a
// piece of one), and every row group gets its statistics.
func TestRowGroupsWrittenByColumnAsWhole(t *testing.T) {
	const perBatch, batches, rowGroup = 1500, 3, 2500
	s := openTest(t, Config{RowGroupRows: rowGroup})
	dw, err := s.BeginDataset(context.Background(), occurrence.DatasetInfo{Key: "d"})
	if err != nil {
		t.Fatal(err)
	}
	defer dw.Abort(context.Background())
	w := dw.(*DatasetWriter)
	w.pieceRows = 1024
	g := occurrencetest.NewGenerator(7, 300)
	plan := g.Datasets(perBatch*batches, 1)
	rec := occurrence.NewRecord()
	b := occurrence.NewBuilder()
	defer b.Release()
	for i := range perBatch * batches {
		g.Fill(rec, &plan[0], i)
		b.Append(rec)
		if b.Len() == perBatch {
			w.window = append(w.window, newWindowBatch(b.NewBatch()))
		}
	}
	refs := clusterOrder(w.window, clusterColumns)

	// the whole gathered row groups, written the way the writer did before
	var want bytes.Buffer
	fw, err := pqarrow.NewFileWriter(occurrence.Schema(), &want, writerProps(s.cfg.DataPageBytes, plainTextColumns(w.window, s.cfg.RowGroupRows, true)), pqarrow.NewArrowWriterProperties())
	if err != nil {
		t.Fatal(err)
	}
	for rest := refs; len(rest) > 0; {
		n := min(len(rest), rowGroup)
		batch := gatherBatch(w.window, rest[:n])
		if err := fw.Write(batch); err != nil {
			t.Fatal(err)
		}
		batch.Release()
		rest = rest[n:]
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}

	if err := w.writeWindow(w.window, clusterColumns, s.cfg.RowGroupRows, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.closeFile(); err != nil {
		t.Fatal(err)
	}
	if len(w.files) != 1 || len(w.files[0].RowGroups) != 2 || w.records != perBatch*batches {
		t.Fatalf("files %+v, %d records", w.files, w.records)
	}
	got, err := os.ReadFile(filepath.Join(s.dir, w.files[0].Path))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("column-wise file differs from the whole-batch one: %d and %d bytes", len(got), len(want.Bytes()))
	}
	for i, rg := range w.files[0].RowGroups {
		var st map[string]colStats
		if err := json.Unmarshal(rg.Stats, &st); err != nil {
			t.Fatal(err)
		}
		_, country := st[occurrence.ColCountryCode]
		_, verbatim := st[occurrence.ColVerbatim]
		if !country || verbatim {
			t.Errorf("row group %d: statistics %s", i, rg.Stats)
		}
	}
}

// gatherBatch gathers every column of refs into one batch.
func gatherBatch(window []windowBatch, refs []rowRef) arrow.RecordBatch {
	schema := occurrence.Schema()
	cols := make([]arrow.Array, schema.NumFields())
	for c := range cols {
		cols[c] = gatherArray(window, c, refs)
		defer cols[c].Release()
	}
	return array.NewRecordBatch(schema, cols, int64(len(refs)))
}

// TestPlainTextColumns: a file writes without a dictionary the text
// columns its first window leaves empty and those whose first row group's
// distinct values outgrow a dictionary page; a repetitive column and the
// non-text ones keep theirs.
func TestPlainTextColumns(t *testing.T) {
	b := occurrence.NewBuilder()
	id, country := occurrence.ColumnIndex(occurrence.ColOccurrenceID), occurrence.ColumnIndex(occurrence.ColCountryCode)
	year := occurrence.ColumnIndex(occurrence.ColYear)
	const rows = 4000
	var window []windowBatch
	for range 2 {
		for i := range rows / 2 {
			r := occurrence.NewRecord()
			r.SetString(id, fmt.Sprintf("urn:catalog:example:%012d", len(window)*rows+i))
			r.SetString(country, []string{"DK", "SE", "NO"}[i%3])
			r.SetInt(year, int64(1900+i%100))
			b.Append(r)
		}
		window = append(window, newWindowBatch(b.NewBatch()))
	}
	plain := map[string]bool{}
	for _, name := range plainTextColumns(window, rows, true) {
		plain[name] = true
	}
	if !plain[occurrence.ColOccurrenceID] || plain[occurrence.ColCountryCode] || plain[occurrence.ColYear] {
		t.Errorf("occurrenceID plain %v (want true), countryCode %v, year %v (want false)",
			plain[occurrence.ColOccurrenceID], plain[occurrence.ColCountryCode], plain[occurrence.ColYear])
	}
	if !plain[occurrence.ColLocality] {
		t.Error("locality, empty in every row, keeps its dictionary")
	}
	if p := plainTextColumns(window, 100, true); plain[occurrence.ColOccurrenceID] && slices.Contains(p, occurrence.ColOccurrenceID) {
		t.Error("100 identifiers of 33 bytes do not outgrow a 32 KiB dictionary page, yet occurrenceID is plain")
	}
}
