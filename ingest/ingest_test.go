package ingest

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// The samples are the dwca and abcd packages' copies of ../shared/data (see
// their testdata/SOURCES.md). Record counts: the core rows of each archive,
// counted independently in dwca/archive_test.go, and the units of each ABCD
// document (grep -c '<abcd:Unit>' and the like, checked in abcd's tests).
var dwcaSamples = []struct {
	file    string
	records int64 // -1: not occurrence data; 0: none has an occurrence key
}{
	{"dissco-dwca-kew-gbif-media.zip", 19},
	{"dissco-dwca-lux-associated-media.zip", 20},
	{"dwca-io-archive-occ.zip", 1534},
	{"dwca-io-archive-tax.zip", -1},
	{"dwca-io-nullCoreID.zip", -1},
	{"gbif-validator-Archive.zip", 19},
	{"pydwca-dwca-2extensions.zip", -1},
	{"pydwca-dwca-simple-csv-eml.zip", 3},
	{"pydwca-dwca-simple-test-archive-enclosed.zip", 0}, // 2 rows, no occurrenceID, no triplet
	{"pydwca-dwca-utf8-eol-test.zip", 1},
}

func openStore(t *testing.T) *parquet.Store {
	t.Helper()
	s, err := parquet.Open(t.TempDir(), parquet.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func load(t *testing.T, s *parquet.Store, src string, opts Options) (Result, error) {
	t.Helper()
	ctx := context.Background()
	source, err := Open(ctx, src, OpenOptions{})
	if err != nil {
		return Result{}, err
	}
	defer source.Close()
	return Load(ctx, s, source, opts)
}

func count(t *testing.T, s *parquet.Store, js string) int64 {
	t.Helper()
	ctx := context.Background()
	var pred *occurrence.Predicate
	if js != "" {
		var err error
		if pred, err = occurrence.ParsePredicateJSON([]byte(js), occurrence.DefaultLimits()); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := occurrence.Count(ctx, s, snap, pred, occurrence.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestIngestDwCASamples(t *testing.T) {
	s := openStore(t)
	var total int64
	for _, sm := range dwcaSamples {
		res, err := load(t, s, filepath.Join("..", "dwca", "testdata", sm.file), Options{})
		if sm.records < 0 {
			if !errors.Is(err, dwca.ErrNotOccurrenceData) || !strings.Contains(err.Error(), "Taxon") {
				t.Errorf("%s: got %v, want a not-occurrence-data error naming the Taxon core", sm.file, err)
			}
			continue
		}
		if sm.records == 0 {
			// GBIF cannot give these rows an id either: broken rows saying
			// why, and no dataset.
			if !errors.Is(err, ErrNoRecords) || res.BrokenRows != 2 || len(res.Problems) != 2 ||
				!strings.HasSuffix(res.Problems[0], ": "+occurrence.ErrNoOccurrenceKey.Error()) {
				t.Errorf("%s: %v, %d broken rows %q; want ErrNoRecords and 2 rows without an occurrence key", sm.file, err, res.BrokenRows, res.Problems)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", sm.file, err)
		}
		if res.Records != sm.records || res.BrokenRows != 0 {
			t.Errorf("%s: %d records, %d broken; want %d, 0", sm.file, res.Records, res.BrokenRows, sm.records)
		}
		total += sm.records
	}
	if n := count(t, s, ""); n != total {
		t.Fatalf("table holds %d records, ingested %d", n, total)
	}
	// The same archive ingested again replaces its dataset, with the same ids.
	before := ids(t, s)
	if _, err := load(t, s, filepath.Join("..", "dwca", "testdata", "dwca-io-archive-occ.zip"), Options{}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, ""); n != total {
		t.Fatalf("re-ingest: table holds %d, want %d", n, total)
	}
	after := ids(t, s)
	if len(before) != len(after) {
		t.Fatalf("ids %d before, %d after re-ingest", len(before), len(after))
	}
	for id := range before {
		if !after[id] {
			t.Fatalf("gbifID %d not stable across re-ingest", id)
		}
		if id < 1 || id > occurrence.MaxID {
			t.Fatalf("gbifID %d outside 1..2^53-1", id)
		}
	}
	// The table minted them: one per record, counted from 1.
	for id := int64(1); id <= total; id++ {
		if !after[id] {
			t.Fatalf("the %d records' ids lack %d: want 1..%d", total, id, total)
		}
	}
}

func ids(t *testing.T, s *parquet.Store) map[int64]bool {
	ctx := context.Background()
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]bool{}
	_, err = occurrence.Scan(ctx, s, snap, occurrence.ScanRequest{Columns: []string{occurrence.ColGBIFID}}, occurrence.ScanOptions{}, func(b arrow.RecordBatch) error {
		col := b.Column(0).(*array.Int64)
		for i := 0; i < col.Len(); i++ {
			if out[col.Value(i)] {
				return errors.New("duplicate gbifID")
			}
			out[col.Value(i)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestIngestABCDSamples(t *testing.T) {
	s := openStore(t)
	want := map[string]int64{
		"dissco-biocase-206-with-media.xml":                         100,
		"dissco-biocase-biologia.xml":                               100,
		"gbif-crawler-complete_results.xml":                         322,
		"gbif-pipelines-7ef15372-1387-11e2-bb2e-00145eb45e9a.abcda": 20,
		"cdmlib-MultipleIdentificationsPreferredFlag.xml":           1,
	}
	for file, n := range want {
		res, err := load(t, s, filepath.Join("..", "abcd", "testdata", file), Options{})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if res.Records != n {
			t.Errorf("%s: %d records, want %d", file, res.Records, n)
		}
	}
	// Biologia's records all have coordinates (datum "4326") in Sardinia; no
	// other sample has coordinates there.
	if n := count(t, s, `{"type":"within","geometry":"POLYGON((7.5 38.5,10.5 38.5,10.5 41.5,7.5 41.5,7.5 38.5))"}`); n != 100 {
		t.Errorf("%d records in Sardinia, want the 100 of biologia", n)
	}
}

// TestBrokenArchiveLeavesTableUntouched ingests an archive, then a corrupt
// replacement of the same dataset: the error names the file and the first
// version stays whole.
func TestBrokenArchiveLeavesTableUntouched(t *testing.T) {
	s := openStore(t)
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	meta := `<?xml version="1.0"?><archive xmlns="http://rs.tdwg.org/dwc/text/"><core encoding="UTF-8" fieldsTerminatedBy="\t" linesTerminatedBy="\n" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Occurrence"><files><location>occurrence.txt</location></files><id index="0"/><field index="0" term="http://rs.tdwg.org/dwc/terms/occurrenceID"/><field index="1" term="http://rs.tdwg.org/dwc/terms/country"/><field index="2" term="http://rs.tdwg.org/dwc/terms/eventDate"/></core></archive>`
	write("meta.xml", meta)
	write("occurrence.txt", "id\tcountry\teventDate\no1\tDenmark\t2001-05-03\no2\tSweden\tnot a date\n")
	if _, err := load(t, s, dir, Options{DatasetKey: "ds"}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `{"type":"equals","key":"COUNTRY","value":"DK"}`); n != 1 {
		t.Fatalf("country derived from name: %d DK records", n)
	}
	if n := count(t, s, `{"type":"equals","key":"ISSUE","value":"RECORDED_DATE_INVALID"}`); n != 1 {
		t.Fatalf("%d records flagged RECORDED_DATE_INVALID, want 1", n)
	}
	// Now the data file is gone: the archive is broken.
	os.Remove(filepath.Join(dir, "occurrence.txt"))
	_, err := load(t, s, dir, Options{DatasetKey: "ds"})
	if err == nil || !strings.Contains(err.Error(), "occurrence.txt") {
		t.Fatalf("broken archive: %v, want an error naming occurrence.txt", err)
	}
	if n := count(t, s, ""); n != 2 {
		t.Fatalf("after a failed ingest the table holds %d records, want the previous 2", n)
	}
}

// memSource yields n generated records; memWriter keeps the occurrenceID of
// each appended record.
type memSource struct{ i, n int }

func (s *memSource) Dataset() occurrence.DatasetInfo { return occurrence.DatasetInfo{Key: "mem"} }
func (s *memSource) EML() (io.ReadCloser, error)     { return nil, occurrence.ErrNoEML }
func (s *memSource) Broken() (int64, []string)       { return 0, nil }
func (s *memSource) Close() error                    { return nil }
func (s *memSource) Next(ctx context.Context) (occurrence.RawRecord, error) {
	if s.i == s.n {
		return occurrence.RawRecord{}, io.EOF
	}
	s.i++
	return occurrence.RawRecord{Core: occurrence.Terms{occurrence.NSDwC + "occurrenceID": "o" + strconv.Itoa(s.i)}}, nil
}

type memWriter struct {
	ids       []string
	gbifIDs   []int64
	taxonKeys []int64
}

func (w *memWriter) Append(_ context.Context, r *occurrence.Record) error {
	w.ids = append(w.ids, r.Get(occurrence.ColumnIndex(occurrence.ColOccurrenceID)).S)
	w.gbifIDs = append(w.gbifIDs, r.Get(occurrence.ColumnIndex(occurrence.ColGBIFID)).I)
	w.taxonKeys = append(w.taxonKeys, r.Get(cTaxonKey).I)
	return nil
}
func (w *memWriter) SetEML(context.Context, io.Reader) error { return nil }
func (w *memWriter) Commit(context.Context, occurrence.LoadStats) (string, error) {
	return "s1", nil
}
func (w *memWriter) Abort(context.Context) {}

// memLoader hands out its one writer and mints ids from a map, recording
// the size of each MintIDs call.
type memLoader struct {
	w     *memWriter
	ids   map[string]int64
	calls *[]int
}

func newMemLoader() memLoader {
	return memLoader{w: &memWriter{}, ids: map[string]int64{}, calls: new([]int)}
}

func (l memLoader) BeginDataset(context.Context, occurrence.DatasetInfo) (occurrence.DatasetWriter, error) {
	return l.w, nil
}
func (l memLoader) DeleteDataset(context.Context, string) error { return nil }

// Dataset finds nothing: every load is a new dataset.
func (l memLoader) Dataset(_ context.Context, key string) (occurrence.DatasetInfo, error) {
	return occurrence.DatasetInfo{}, occurrence.ErrNoDataset
}
func (l memLoader) MintIDs(_ context.Context, ds string, keys []string, ids []int64) error {
	*l.calls = append(*l.calls, len(keys))
	for i, k := range keys {
		id, ok := l.ids[ds+"\x00"+k]
		if !ok {
			id = int64(len(l.ids) + 1)
			l.ids[ds+"\x00"+k] = id
		}
		ids[i] = id
	}
	return nil
}

// TestPipelineOrder runs many chunks through parallel interpretation (chunks
// and their records are reused) and expects every record once, in source order.
func TestPipelineOrder(t *testing.T) {
	const n = 20*chunkSize + 7
	l := newMemLoader()
	w := l.w
	res, err := Load(context.Background(), l, &memSource{n: n}, Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != n || len(w.ids) != n {
		t.Fatalf("%d records, %d appended, want %d", res.Records, len(w.ids), n)
	}
	for i, id := range w.ids {
		if want := "o" + strconv.Itoa(i+1); id != want {
			t.Fatalf("record %d is %s, want %s", i, id, want)
		}
	}
	// The ids were minted a chunk at a time, in source order.
	for i, id := range w.gbifIDs {
		if id != int64(i+1) {
			t.Fatalf("record %d has gbifID %d, want %d (minted in source order)", i, id, i+1)
		}
	}
	if calls := *l.calls; len(calls) != n/chunkSize+1 || slices.Max(calls) != chunkSize {
		t.Fatalf("MintIDs calls of %v keys, want one per chunk of %d", calls, chunkSize)
	}
}

// panicWriter is a fault-injecting writer: its Append panics at record at.
type panicWriter struct {
	memWriter
	at int
}

func (w *panicWriter) Append(ctx context.Context, r *occurrence.Record) error {
	if len(w.ids) == w.at {
		panic("injected writer fault")
	}
	return w.memWriter.Append(ctx, r)
}

type panicLoader struct {
	memLoader
	w *panicWriter
}

func (l panicLoader) BeginDataset(context.Context, occurrence.DatasetInfo) (occurrence.DatasetWriter, error) {
	return l.w, nil
}

// TestPipelineWriterPanic: a panic in the table writer's Append reaches the
// caller (and crashes a command) instead of leaving the pipeline's
// goroutines waiting on each other for ever.
func TestPipelineWriterPanic(t *testing.T) {
	l := panicLoader{memLoader: newMemLoader(), w: &panicWriter{at: 10}}
	got := make(chan any, 1)
	go func() {
		defer func() { got <- recover() }()
		Load(context.Background(), l, &memSource{n: 100 * chunkSize}, Options{Workers: 2})
	}()
	select {
	case p := <-got:
		if p != "injected writer fault" {
			t.Fatalf("recovered %v, want the writer's panic", p)
		}
	case <-time.After(time.Minute):
		t.Fatal("Load did not return after its writer panicked: the pipeline is deadlocked")
	}
}
