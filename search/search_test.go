package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

const testRecords = 9000

// shared is a Parquet table of generated records with small row groups
// (many splits), loaded once for the tests of this package.
var shared struct {
	once sync.Once
	dir  string
	s    *parquet.Store
}

func table(t testing.TB) *parquet.Store {
	t.Helper()
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "search-test-")
		if err != nil {
			t.Fatal(err)
		}
		shared.dir = dir
		s, err := parquet.Open(dir, parquet.Config{RowGroupRows: 600, FileRowGroups: 3}, nil)
		if err != nil {
			t.Fatal(err)
		}
		occurrencetest.Load(t, s, testRecords, 7)
		shared.s = s
	})
	if shared.s == nil {
		t.Fatal("the test table could not be loaded")
	}
	return shared.s
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.s != nil {
		shared.s.Close()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// orderedIDs is the independent answer: the gbifIDs a plain parallel scan
// returns for pred, in table order.
func orderedIDs(t testing.TB, tbl occurrence.Table, pred *occurrence.Predicate) []int64 {
	t.Helper()
	ctx := context.Background()
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	req := occurrence.ScanRequest{Predicate: pred, Columns: []string{occurrence.ColGBIFID}}
	_, err = occurrence.Scan(ctx, tbl, snap, req, occurrence.ScanOptions{}, func(b arrow.RecordBatch) error {
		c := b.Column(0).(*array.Int64)
		for i := 0; i < c.Len(); i++ {
			ids = append(ids, c.Value(i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func mustRequest(t testing.TB, s *Service, query string) Request {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.ParseRequest(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return r
}

// keys returns the "key" of each result.
func keys(t testing.TB, res []json.RawMessage) []int64 {
	t.Helper()
	out := make([]int64, len(res))
	for i, r := range res {
		var v struct{ Key int64 }
		if err := json.Unmarshal(r, &v); err != nil {
			t.Fatalf("result %d is not JSON: %v\n%s", i, err, r)
		}
		out[i] = v.Key
	}
	return out
}

// TestPagesAreTheOrderedScan: every page of a search is the slice of a
// plain ordered scan's matches, the count its length, for broad, selective
// and no predicates and offsets from the first page to the last record.
func TestPagesAreTheOrderedScan(t *testing.T) {
	tbl := table(t)
	for _, cache := range []int{-1, 0} {
		s := New(tbl, Config{Cache: cache}, nil)
		for _, query := range []string{"", "country=NL", "year=1990,2010&hasCoordinate=true", "catalogNumber=C-0000042",
			"basisOfRecord=PRESERVED_SPECIMEN&basisOfRecord=FOSSIL_SPECIMEN", "country=ZZ"} {
			base := mustRequest(t, s, query)
			want := orderedIDs(t, tbl, base.Predicate)
			n := len(want)
			for _, pg := range [][2]int{{0, 20}, {0, 300}, {20, 20}, {n / 2, 7}, {max(n-3, 0), 20}, {n, 20}, {n + 50, 5}, {3, 0}} {
				r := base
				r.Offset, r.Limit = pg[0], pg[1]
				res, err := s.Search(context.Background(), r)
				if err != nil {
					t.Fatalf("%q %v: %v", query, pg, err)
				}
				exp := want[min(r.Offset, n):]
				exp = exp[:min(r.Limit, len(exp))]
				if got := keys(t, res.Results); !slices.Equal(got, exp) {
					t.Fatalf("%q offset %d limit %d: keys %v, want %v", query, r.Offset, r.Limit, head(got), head(exp))
				}
				if res.Count != int64(n) || res.EndOfRecords != (r.Offset+r.Limit >= n) || res.Offset != r.Offset || res.Limit != r.Limit {
					t.Fatalf("%q %v: count %d endOfRecords %v, want %d of %d", query, pg, res.Count, res.EndOfRecords, n, testRecords)
				}
			}
			if query == "" && n != testRecords || query == "country=NL" && (n == 0 || n == testRecords) {
				t.Fatalf("%q matches %d records: the test data does not exercise it", query, n)
			}
		}
	}
}

func head(ids []int64) []int64 { return ids[:min(len(ids), 5)] }

// TestCountsAreShared: concurrent counts of one predicate run one
// counting; the result is cached; a counting nobody waits for any more is
// cancelled and forgotten.
func TestCountsAreShared(t *testing.T) {
	tbl := &countingTable{Table: table(t)}
	s := New(tbl, Config{}, nil)
	pred := mustRequest(t, s, "year=1950,1990").Predicate
	want := int64(len(orderedIDs(t, tbl.Table, pred)))
	tbl.scans.Store(0)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := s.Count(context.Background(), pred)
			if err == nil && n != want {
				err = fmt.Errorf("count %d, want %d", n, want)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	snap, _ := tbl.Snapshot(context.Background())
	if n := tbl.scans.Load(); n > int64(2*len(snap.Splits)) {
		t.Fatalf("8 concurrent counts scanned %d splits of %d: not shared", n, len(snap.Splits))
	}
	before := tbl.scans.Load()
	if n, err := s.Count(context.Background(), pred); err != nil || n != want || tbl.scans.Load() != before {
		t.Fatalf("cached count %d, %v, %d more scans", n, err, tbl.scans.Load()-before)
	}
	// A lone waiter that leaves cancels its counting.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Count(ctx, mustRequest(t, s, "year=1900,1949").Predicate); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled count: %v", err)
	}
	s.mu.Lock()
	left := len(s.inflight)
	s.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d countings left running", left)
	}
}

// countingTable counts split scans.
type countingTable struct {
	occurrence.Table
	scans atomic.Int64
}

func (c *countingTable) ScanSplit(ctx context.Context, split occurrence.Split, req occurrence.ScanRequest, emit func(arrow.RecordBatch) error) (occurrence.ScanStats, error) {
	c.scans.Add(1)
	return c.Table.ScanSplit(ctx, split, req, emit)
}

// TestGet reads records by gbifID as GBIF's occurrence JSON and their
// verbatim form; unknown ids are ErrNotFound.
func TestGet(t *testing.T) {
	tbl := table(t)
	s := New(tbl, Config{}, nil)
	ids := orderedIDs(t, tbl, nil)
	ctx := context.Background()
	for _, id := range []int64{ids[0], ids[len(ids)/2], ids[len(ids)-1]} {
		js, err := s.Record(ctx, id, Interpreted)
		if err != nil {
			t.Fatal(err)
		}
		var rec map[string]any
		if err := json.Unmarshal(js, &rec); err != nil {
			t.Fatal(err)
		}
		if rec["key"] != float64(id) || rec["gbifID"] != strconv.FormatInt(id, 10) {
			t.Fatalf("get %d: key %v gbifID %v", id, rec["key"], rec["gbifID"])
		}
		vjs, err := s.Record(ctx, id, Verbatim)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(vjs, &v); err != nil {
			t.Fatal(err)
		}
		if v["key"] != float64(id) || v[occurrence.NSGBIF+"gbifID"] != strconv.FormatInt(id, 10) ||
			v[occurrence.NSDwC+"occurrenceID"] != rec["occurrenceID"] || v["datasetKey"] != rec["datasetKey"] {
			t.Fatalf("verbatim of %d: %s\nrecord: %s", id, vjs, js)
		}
	}
	missing := slices.Max(ids) + 1
	if _, err := s.Record(ctx, missing, Interpreted); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get of unknown id %d: %v", missing, err)
	}
	if _, err := s.Record(ctx, missing, Verbatim); !errors.Is(err, ErrNotFound) {
		t.Fatalf("verbatim of unknown id %d: %v", missing, err)
	}
}
