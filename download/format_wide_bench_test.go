package download

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/klauspost/compress/flate"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// wideFields are bench/export-wide.sh's 43 SIMPLE_CSV fields (issue 13):
// interpreted and pass-through columns of wide records.
var wideFields = strings.Split("gbifID,datasetKey,occurrenceID,catalogNumber,institutionCode,collectionCode,"+
	"basisOfRecord,occurrenceStatus,kingdom,phylum,class,order,family,genus,species,scientificName,taxonRank,"+
	"taxonKey,countryCode,stateProvince,county,municipality,locality,continent,decimalLatitude,decimalLongitude,"+
	"coordinateUncertaintyInMeters,eventDate,year,month,day,recordedBy,identifiedBy,habitat,samplingProtocol,"+
	"occurrenceRemarks,sex,lifeStage,eventID,recordNumber,license,issue,lastInterpreted", ",")

// wideRecords is the size of the wide benchmarks' generated table.
const wideRecords = 60_000

// wideTable is the scanned batches of the wide table, with the columns a
// DWCA reads (a superset of wideFields').
type wideTable struct {
	batches []arrow.RecordBatch
	err     error
}

// wideBatches generates wideRecords records as bench/gen does (the
// generator's wide records, 20 datasets) into a Parquet table and scans
// them back as the export does: every column occurrence.txt, verbatim.txt
// and multimedia.txt read, dictionary-encoded where the table's pages are,
// with the 85%-selective predicate hasCoordinate=true.
var wideBatches = sync.OnceValue(func() wideTable {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "wide-bench-")
	if err != nil {
		return wideTable{err: err}
	}
	defer os.RemoveAll(dir)
	s, snap, err := wideStore(ctx, dir)
	if err != nil {
		return wideTable{err: err}
	}
	defer s.Close()
	d := &dwcaWriter{occ: newTableWriter(occurrenceFields())}
	var out wideTable
	out.err = scanWide(ctx, s, snap, d.columns(), func(b arrow.RecordBatch) error {
		b.Retain()
		out.batches = append(out.batches, b)
		return nil
	})
	return out
})

// wideStore generates wideRecords records as bench/gen does (the
// generator's wide records, 20 datasets) into a Parquet table in dir.
func wideStore(ctx context.Context, dir string) (*parquet.Store, occurrence.Snapshot, error) {
	s, err := parquet.Open(dir, parquet.Config{}, nil)
	if err != nil {
		return nil, occurrence.Snapshot{}, err
	}
	g := occurrencetest.NewGenerator(1, 5_000)
	rec := occurrence.NewRecord()
	for _, ds := range g.Datasets(wideRecords, 20) {
		w, err := s.BeginDataset(ctx, ds.Info)
		if err != nil {
			s.Close()
			return nil, occurrence.Snapshot{}, err
		}
		for j := 0; j < ds.Records; j++ {
			g.Fill(rec, &ds, j)
			if err := w.Append(ctx, rec); err != nil {
				s.Close()
				return nil, occurrence.Snapshot{}, err
			}
		}
		if _, err := w.Commit(ctx, occurrence.LoadStats{Terms: occurrencetest.Terms()}); err != nil {
			s.Close()
			return nil, occurrence.Snapshot{}, err
		}
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		s.Close()
		return nil, occurrence.Snapshot{}, err
	}
	return s, snap, nil
}

// scanWide scans cols of the wide table as the export does: dictionary
// columns handed out as they are, the 85%-selective predicate
// hasCoordinate=true, 2 workers.
func scanWide(ctx context.Context, s *parquet.Store, snap occurrence.Snapshot, cols []string, fn func(arrow.RecordBatch) error) error {
	pred, err := occurrence.ParsePredicateJSON([]byte(`{"type":"equals","key":"HAS_COORDINATE","value":"true"}`), occurrence.DefaultLimits())
	if err != nil {
		return err
	}
	req := occurrence.ScanRequest{Predicate: pred, Columns: cols, Dictionaries: true}
	_, err = occurrence.Scan(ctx, s, snap, req, occurrence.ScanOptions{Workers: 2}, fn)
	return err
}

// BenchmarkWideScan is the scan of a wide SIMPLE_CSV export (the columns
// of BenchmarkWideCSV's 43 fields, read as the export reads them) without
// the rows: page decoding, the predicate and taking the matching rows.
func BenchmarkWideScan(b *testing.B) {
	ctx := context.Background()
	s, snap, err := wideStore(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	cols := fieldColumns(mustFields(wideFields))
	rows := 0
	if err := scanWide(ctx, s, snap, cols, func(r arrow.RecordBatch) error { rows += int(r.NumRows()); return nil }); err != nil {
		b.Fatal(err)
	}
	report := cpuMetric(b)
	for b.Loop() {
		if err := scanWide(ctx, s, snap, cols, func(arrow.RecordBatch) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	report()
	b.ReportMetric(float64(rows), "rows/op")
}

func wideInput(b *testing.B) []arrow.RecordBatch {
	w := wideBatches()
	if w.err != nil {
		b.Fatal(w.err)
	}
	return w.batches
}

// writeWide writes the wide SIMPLE_CSV rows (no zip) to w.
func writeWide(w io.Writer, batches []arrow.RecordBatch, fields []field) error {
	t := newTableWriter(fields)
	t.rw = dwca.NewExclusiveTextWriter(w)
	for _, rec := range batches {
		if err := t.writeBatch(newBatch(rec)); err != nil {
			return err
		}
	}
	return t.rw.Flush()
}

// wideCSV is the uncompressed text of the wide SIMPLE_CSV rows.
func wideCSV(b *testing.B) []byte {
	var buf bytes.Buffer
	if err := writeWide(&buf, wideInput(b), mustFields(wideFields)); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkWideCSV compares, side by side, the SIMPLE_CSV of 43 fields of
// wide records (bench/export-wide.sh's, at a smaller size) with its
// compression floor: "rows" is the row assembly alone (formatting, text
// rules, no compression), "export" the whole format path (rows, parallel
// deflate, zip framing), "floor" klauspost flate level 5 on 2 goroutines
// over the same text. SetBytes is the text in every case, so MB/s compare
// directly, and cpu-ms/op counts both cores.
func BenchmarkWideCSV(b *testing.B) {
	batches := wideInput(b)
	text := wideCSV(b)
	fields := mustFields(wideFields)
	b.Run("rows", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		defer cpuMetric(b)()
		for b.Loop() {
			if err := writeWide(io.Discard, batches, fields); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("export", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		ctx := context.Background()
		defer cpuMetric(b)()
		for b.Loop() {
			x, err := NewExport(ctx, io.Discard, ExportSpec{Format: FormatSimpleCSV, Fields: wideFields}, ExportOptions{})
			if err != nil {
				b.Fatal(err)
			}
			for _, rec := range batches {
				if err := x.Write(ctx, rec); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := x.Close(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("floor", func(b *testing.B) { benchFloor(b, text) })
}

// BenchmarkWideDWCARows is occurrence.txt's 230 columns of the same wide
// records (row assembly alone, as BenchmarkWideCSV/rows) next to their
// compression floor.
func BenchmarkWideDWCARows(b *testing.B) {
	batches := wideInput(b)
	fields := occurrenceFields()
	var buf bytes.Buffer
	if err := writeWide(&buf, batches, fields); err != nil {
		b.Fatal(err)
	}
	text := buf.Bytes()
	b.Run("rows", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		defer cpuMetric(b)()
		for b.Loop() {
			if err := writeWide(io.Discard, batches, fields); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("floor", func(b *testing.B) { benchFloor(b, text) })
}

// benchFloor deflates data at level 5 on 2 goroutines, each its half.
func benchFloor(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	defer cpuMetric(b)()
	for b.Loop() {
		var wg sync.WaitGroup
		half := len(data) / 2
		for _, part := range [][]byte{data[:half], data[half:]} {
			wg.Go(func() {
				fw, _ := flate.NewWriter(io.Discard, 5)
				fw.Write(part)
				fw.Close()
			})
		}
		wg.Wait()
	}
}
