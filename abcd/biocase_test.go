package abcd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// pagedProvider serves the real Pontaurus response (322 units) cut into
// pages with BioCASe paging semantics: the <content> attributes are set per
// page, the units are the real ones.
type pagedProvider struct {
	head, foot string
	units      []string
	countFalse bool // report total = start+count+dropped+1 while more remain
	dropEvery  int  // drop every n-th unit of the dataset (recordDropped)
	// Fault injection (a real BioCASe provider cannot be told to fail): the
	// n-th requests fail with 503, a truncated body, or a stall.
	fail503   map[int]bool
	truncate  map[int]bool
	stall     map[int]bool
	mu        sync.Mutex
	requests  int
	starts    []int
	inventory string
	archive   []byte
}

var contentTag = regexp.MustCompile(`<biocase:content [^>]*>`)

func newPagedProvider(t *testing.T) *pagedProvider {
	data, err := os.ReadFile(filepath.Join("testdata", "gbif-crawler-complete_results.xml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "<abcd:Unit>")
	j := strings.LastIndex(s, "</abcd:Units>")
	p := &pagedProvider{head: s[:i], foot: s[j:]}
	for _, u := range strings.SplitAfter(s[i:j], "</abcd:Unit>") {
		if k := strings.Index(u, "<abcd:Unit>"); k >= 0 {
			p.units = append(p.units, u[k:])
		}
	}
	if len(p.units) != 322 {
		t.Fatalf("cut %d units", len(p.units))
	}
	return p
}

var pageAttrs = regexp.MustCompile(`start="(\d+)" limit="(\d+)"`)

func (p *pagedProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.requests++
	n := p.requests
	p.mu.Unlock()
	q := r.URL.Query()
	switch {
	case q.Get("inventory") == "1":
		if p.inventory == "" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, p.inventory)
		return
	case strings.HasSuffix(r.URL.Path, ".zip"):
		w.Write(p.archive)
		return
	}
	m := pageAttrs.FindStringSubmatch(q.Get("request"))
	if m == nil || !strings.Contains(q.Get("request"), "<type>search</type>") {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if p.fail503[n] {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
		return
	}
	if p.stall[n] {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
		return
	}
	start, _ := strconv.Atoi(m[1])
	limit, _ := strconv.Atoi(m[2])
	p.mu.Lock()
	p.starts = append(p.starts, start)
	p.mu.Unlock()
	body := p.page(start, limit)
	if p.truncate[n] {
		body = body[:len(body)/2]
	}
	io.WriteString(w, body)
}

// page builds the response for start/limit: limit units are considered,
// dropped ones are omitted and counted.
func (p *pagedProvider) page(start, limit int) string {
	var b strings.Builder
	count, dropped := 0, 0
	end := min(start+limit, len(p.units))
	for i := start; i < end; i++ {
		if p.dropEvery > 0 && (i+1)%p.dropEvery == 0 {
			dropped++
			continue
		}
		b.WriteString(p.units[i])
		b.WriteString("\n")
		count++
	}
	total := len(p.units)
	if p.countFalse && end < len(p.units) {
		total = start + count + dropped + 1
	}
	head := contentTag.ReplaceAllString(p.head, fmt.Sprintf(`<biocase:content recordCount="%d" recordDropped="%d" recordStart="%d" totalSearchHits="%d">`, count, dropped, start, total))
	return head + b.String() + p.foot
}

func harvester(limit int) *Harvester {
	return &Harvester{Limit: limit, MinInterval: -1, Backoff: time.Millisecond, Client: &http.Client{Timeout: 5 * time.Second}}
}

func harvestAll(t *testing.T, h *Harvester, url string) ([]occurrence.RawRecord, HarvestStats, error) {
	t.Helper()
	var recs []occurrence.RawRecord
	st, err := h.Harvest(context.Background(), url, "Pontaurus", func(r occurrence.RawRecord) error {
		recs = append(recs, r)
		return nil
	})
	return recs, st, err
}

func checkSequence(t *testing.T, p *pagedProvider, recs []occurrence.RawRecord) {
	t.Helper()
	var want []string
	for i, u := range p.units {
		if p.dropEvery > 0 && (i+1)%p.dropEvery == 0 {
			continue
		}
		k := strings.Index(u, "<abcd:UnitID>") + len("<abcd:UnitID>")
		want = append(want, u[k:k+strings.Index(u[k:], "<")])
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, r := range recs {
		if got := r.Core[dwc+"catalogNumber"]; got != want[i] {
			t.Fatalf("record %d is unit %s, want %s (order or duplicates)", i, got, want[i])
		}
	}
}

func TestHarvestExactTotal(t *testing.T) {
	p := newPagedProvider(t)
	srv := httptest.NewServer(p)
	defer srv.Close()
	recs, st, err := harvestAll(t, harvester(100), srv.URL+"/pywrapper.cgi?dsa=pontaurus")
	if err != nil {
		t.Fatal(err)
	}
	checkSequence(t, p, recs)
	if st.Pages != 4 || st.TotalSearchHits != 322 || fmt.Sprint(p.starts) != "[0 100 200 300]" {
		t.Errorf("stats %+v, starts %v", st, p.starts)
	}
	if st.Dataset.Title != "Pontaurus" {
		t.Errorf("dataset %+v", st.Dataset)
	}
}

func TestHarvestCountFalseAndDropped(t *testing.T) {
	p := newPagedProvider(t)
	p.countFalse, p.dropEvery = true, 7
	srv := httptest.NewServer(p)
	defer srv.Close()
	recs, st, err := harvestAll(t, harvester(100), srv.URL+"/pywrapper.cgi?dsa=pontaurus")
	if err != nil {
		t.Fatal(err)
	}
	checkSequence(t, p, recs)
	if st.Dropped != 322/7 || st.Pages != 4 || fmt.Sprint(p.starts) != "[0 100 200 300]" {
		t.Errorf("stats %+v, starts %v", st, p.starts)
	}
}

// Fault injection: the provider answers 503, breaks bodies off halfway and
// stalls past the client timeout; every page is retried and no record is
// lost or duplicated.
func TestHarvestIntermittentProvider(t *testing.T) {
	p := newPagedProvider(t)
	p.fail503 = map[int]bool{1: true, 4: true, 5: true}
	p.truncate = map[int]bool{2: true, 7: true}
	p.stall = map[int]bool{8: true}
	srv := httptest.NewServer(p)
	defer srv.Close()
	h := harvester(100)
	h.Client.Timeout = 300 * time.Millisecond
	recs, st, err := harvestAll(t, h, srv.URL+"/pywrapper.cgi?dsa=pontaurus")
	if err != nil {
		t.Fatal(err)
	}
	checkSequence(t, p, recs)
	if st.Pages != 4 || p.requests != 4+6 {
		t.Errorf("stats %+v after %d requests; want 4 pages from 4 good + 6 failed requests", st, p.requests)
	}
	// Too many failures in a row: the error says so.
	p2 := newPagedProvider(t)
	p2.fail503 = map[int]bool{1: true, 2: true, 3: true}
	srv2 := httptest.NewServer(p2)
	defer srv2.Close()
	h2 := harvester(100)
	h2.Retries = 2
	if _, _, err := harvestAll(t, h2, srv2.URL+"/pywrapper.cgi"); !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "503") {
		t.Errorf("persistent 503: %v", err)
	}
	if p2.requests != 3 {
		t.Errorf("%d requests, want 1 + 2 retries", p2.requests)
	}
}

func TestHarvestEmptyAndErrors(t *testing.T) {
	empty, err := os.ReadFile(filepath.Join("testdata", "protocol", "no_results.xml"))
	if err != nil {
		t.Fatal(err)
	}
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		w.Write(empty)
	}))
	defer srv.Close()
	recs, st, err := harvestAll(t, harvester(1000), srv.URL)
	if err != nil || len(recs) != 0 || st.Pages != 1 || requests != 1 {
		t.Errorf("empty result: %d records, %+v, %v, %d requests", len(recs), st, err, requests)
	}
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	h := harvester(1000)
	if _, _, err := harvestAll(t, h, notFound.URL); !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "404") {
		t.Errorf("404: %v", err)
	}
	inv, err := os.ReadFile(filepath.Join("testdata", "protocol", "inventory2.xml"))
	if err != nil {
		t.Fatal(err)
	}
	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(inv) }))
	defer wrong.Close()
	if _, _, err := harvestAll(t, h, wrong.URL); !errors.Is(err, ErrWrongRoot) {
		t.Errorf("inventory instead of search response: %v", err)
	}
}

func TestHarvestPoliteRate(t *testing.T) {
	p := newPagedProvider(t)
	srv := httptest.NewServer(p)
	defer srv.Close()
	h := harvester(100)
	h.MinInterval = 40 * time.Millisecond
	start := time.Now()
	if _, _, err := harvestAll(t, h, srv.URL); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 120*time.Millisecond {
		t.Errorf("4 requests took %v; at least 3 intervals of 40ms expected", d)
	}
}

func TestInventoryAndCapabilities(t *testing.T) {
	inv, _ := os.ReadFile(filepath.Join("testdata", "protocol", "inventory2.xml"))
	caps, _ := os.ReadFile(filepath.Join("testdata", "protocol", "capabilities2.xml"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("inventory") == "1" {
			w.Write(inv)
			return
		}
		w.Write(caps)
	}))
	defer srv.Close()
	h := harvester(0)
	i, err := h.Inventory(context.Background(), srv.URL+"/pywrapper.cgi?dsa=Planktonproben")
	if err != nil {
		t.Fatal(err)
	}
	d, ok := i.Dataset("collections of phytoplankton at bgbm")
	a, hasABCD := d.ABCDArchive()
	if !ok || len(d.Archives) != 2 || !hasABCD || a.Records != 26943 || a.Size != 558599 ||
		!strings.HasSuffix(a.URL, ".ABCD_2.06.zip") || a.Namespace != NSABCD206 {
		t.Errorf("inventory %+v", i)
	}
	c, err := h.Capabilities(context.Background(), srv.URL+"/pywrapper.cgi?dsa=Planktonproben")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Schemas) != 1 || c.Schemas[0].Namespace != NSABCD206 || len(c.Schemas[0].Concepts) < 50 ||
		c.Schemas[0].Concepts[0] != "/DataSets/DataSet/ContentContacts/ContentContact/Address" {
		t.Errorf("capabilities: %d schemas %+v", len(c.Schemas), c.Schemas)
	}
}

// The inventory lists an ABCD archive: OpenSource downloads it (from the
// same local server) instead of paging through search requests.
func TestSourcePrefersProviderArchive(t *testing.T) {
	p := newPagedProvider(t)
	abcda, err := os.ReadFile(filepath.Join("testdata", "gbif-pipelines-7ef15372-1387-11e2-bb2e-00145eb45e9a.abcda"))
	if err != nil {
		t.Fatal(err)
	}
	p.archive = abcda
	srv := httptest.NewServer(p)
	defer srv.Close()
	inv, _ := os.ReadFile(filepath.Join("testdata", "protocol", "inventory2.xml"))
	p.inventory = strings.ReplaceAll(string(inv), "http://ww3.bgbm.org/biocase/downloads", srv.URL+"/downloads")
	ctx := context.Background()
	src, err := OpenSource(ctx, "biocase+"+srv.URL+"/pywrapper.cgi?dsa=Planktonproben", SourceOptions{Harvester: harvester(100), TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		_, err := src.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 20 || len(p.starts) != 0 {
		t.Errorf("%d records, %d search requests; want the archive's 20 and no paging", n, len(p.starts))
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	// A dataset title the inventory does not list is an error naming the choices.
	_, err = OpenSource(ctx, "biocase+"+srv.URL+"/pywrapper.cgi?dsa=Planktonproben", SourceOptions{Harvester: harvester(100), Dataset: "Nope"})
	if !errors.Is(err, ErrDatasetNotFound) || !strings.Contains(err.Error(), `"Collections of Phytoplankton at BGBM"`) {
		t.Errorf("unknown dataset: %v", err)
	}
}

// Without an inventory (older BioCASe), OpenSource pages through search
// requests; records arrive as from any other source.
func TestSourceHarvestsByPaging(t *testing.T) {
	p := newPagedProvider(t)
	p.countFalse = true
	srv := httptest.NewServer(p)
	defer srv.Close()
	ctx := context.Background()
	src, err := OpenSource(ctx, "biocase+"+srv.URL+"/pywrapper.cgi?dsa=pontaurus", SourceOptions{Harvester: harvester(50), Dataset: "Pontaurus"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var recs []occurrence.RawRecord
	for {
		if len(recs) == 1 && src.Dataset().Title != "Pontaurus" {
			t.Errorf("dataset metadata not available after the first record: %+v", src.Dataset())
		}
		r, err := src.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	checkSequence(t, p, recs)
	if src.Dataset().Title != "Pontaurus" || src.Stats().Records != 322 {
		t.Errorf("dataset %q stats %+v", src.Dataset().Title, src.Stats())
	}
}

// Closing a Source before the end stops its workers (no leak, no hang).
func TestSourceCloseEarly(t *testing.T) {
	paths := []string{filepath.Join("testdata", "gbif-crawler-complete_results.xml"), filepath.Join("testdata", "dissco-biocase-206-with-media.xml"), filepath.Join("testdata", "dissco-biocase-biologia.xml")}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, err := OpenSources(ctx, paths, SourceOptions{Workers: 2, BatchSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	for range 15 {
		if _, err := src.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error)
	go func() { done <- src.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
	// A cancelled context ends Next with the context's error.
	src, err = OpenSources(ctx, paths, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	cancel()
	if _, err := src.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("after cancel: %v", err)
	}
}

// TestABCDArchiveVersion: an inventory's ABCD 2 archive is taken, one of
// another version is not, whatever comes first.
func TestABCDArchiveVersion(t *testing.T) {
	v12 := InventoryArchive{URL: "https://example.org/d.ABCD_1.2.zip", Namespace: "http://www.tdwg.org/schemas/abcd/1.2"}
	v206 := InventoryArchive{URL: "https://example.org/d.ABCD_2.06.zip", Namespace: NSABCD206}
	unnamed := InventoryArchive{URL: "https://example.org/d.ABCD_2.06.zip"}
	dwc := InventoryArchive{URL: "https://example.org/d.DwCA.zip", RowType: "http://rs.tdwg.org/dwc/terms/Occurrence"}
	for _, c := range []struct {
		archives []InventoryArchive
		want     string
	}{
		{[]InventoryArchive{v12, v206}, v206.URL},
		{[]InventoryArchive{dwc, unnamed}, unnamed.URL},
		{[]InventoryArchive{v12, dwc}, ""},
	} {
		a, ok := InventoryDataset{Archives: c.archives}.ABCDArchive()
		if a.URL != c.want || ok != (c.want != "") {
			t.Errorf("%v: took %q (%v), want %q", c.archives, a.URL, ok, c.want)
		}
	}
}
