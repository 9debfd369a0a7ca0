package abcd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/hostile"
	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
)

// unitsForever is an endless document of small units: only a document cap
// stops it.
type unitsForever struct {
	head string
	read int64
}

const foreverUnit = "<Unit><UnitID>u</UnitID></Unit>\n"

func (u *unitsForever) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if u.head == "" {
			u.head = foreverUnit
		}
		k := copy(p[n:], u.head)
		u.head = u.head[k:]
		n += k
	}
	u.read += int64(n)
	return n, nil
}

func TestDocumentCap(t *testing.T) {
	src := &unitsForever{head: docWith()[:strings.Index(docWith(), "</Units>")]}
	r := NewReader(src, "endless.xml", Options{MaxDocumentBytes: 1 << 20})
	n := 0
	var err error
	for {
		if _, err = r.Next(context.Background()); err != nil {
			break
		}
		n++
	}
	var te *TooLargeError
	if !errors.As(err, &te) || !errors.Is(err, ErrTooLarge) || te.Name != "endless.xml" || te.Limit != 1<<20 {
		t.Fatalf("after %d units: %v", n, err)
	}
	if src.read > 1<<20+64<<10 || n < 30000 {
		t.Errorf("read %d bytes, %d units; the cap is 1 MiB", src.read, n)
	}
	// a document of exactly the cap is fine
	doc := docWith("1", "2")
	if units, _, err := readDoc(doc, Options{MaxDocumentBytes: int64(len(doc))}); err != nil || units != 2 {
		t.Errorf("document at the cap: %d units, %v", units, err)
	}
	if _, _, err := readDoc(doc, Options{MaxDocumentBytes: int64(len(doc) - 1)}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("one byte over the cap: %v", err)
	}
}

// The DataSet's metadata elements are read one by one into one tree: the
// unit cap holds for all of them together, not for each.
func TestDatasetMetadataCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("<DataSets><DataSet>")
	for i := range 5000 {
		fmt.Fprintf(&b, "<Extra%d>some metadata text of the data set</Extra%d>\n", i%10, i%10)
	}
	b.WriteString("<Units><Unit><UnitID>1</UnitID></Unit></Units></DataSet></DataSets>")
	_, _, err := readDoc(b.String(), Options{MaxUnitBytes: 64 << 10})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "<DataSet> metadata <Extra") || !strings.Contains(err.Error(), "65536") {
		t.Fatalf("metadata over the unit cap: %v", err)
	}
	if _, _, err := readDoc(b.String(), Options{MaxUnitBytes: 1 << 20}); err != nil {
		t.Fatalf("under the cap: %v", err)
	}
}

// A response lists the first MaxDiagnostics diagnostics and counts the rest.
func TestDiagnosticsCap(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<response><content recordCount="0"/><diagnostics>`)
	for range 500 {
		b.WriteString(`<diagnostic severity="WARNING">w</diagnostic>`)
	}
	b.WriteString(`</diagnostics></response>`)
	_, r, err := readDoc(b.String(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Protocol(); len(p.Diagnostics) != MaxDiagnostics || p.MoreDiagnostics != 500-MaxDiagnostics {
		t.Errorf("%d diagnostics kept, %d more", len(p.Diagnostics), p.MoreDiagnostics)
	}
}

// Archive entries: a size bomb under the ratio check is stopped by the
// token cap (a comment) or the entry cap; a lying entry at its declared
// size; each failure listed with the entry and the cap, the other
// documents read.
func TestArchiveEntryCaps(t *testing.T) {
	dir := t.TempDir()
	good := hostile.Entry{Name: "response.00001.xml", Head: []byte(docWith("1", "2"))}
	comment := hostile.Entry{Name: "response.00002.xml", Head: []byte("<DataSets><!--"), Filler: 40 << 20, Tail: []byte("--></DataSets>")}
	units := hostile.Entry{Name: "response.00003.xml", Head: []byte("<DataSets><DataSet><Units><Unit><UnitID>"), Filler: 3 << 20, Tail: []byte("</UnitID></Unit></Units></DataSet></DataSets>")}
	lying := hostile.Entry{Name: "response.00004.xml", Head: []byte("<DataSets><DataSet><Units><Unit><UnitID>"), Filler: 1 << 20, Tail: []byte("</UnitID></Unit></Units></DataSet></DataSets>"), Declared: 500}
	path := filepath.Join(dir, "bomb.zip")
	if err := hostile.WriteZip(path, good, comment, units, lying); err != nil {
		t.Fatal(err)
	}
	src, err := OpenSource(context.Background(), path, SourceOptions{Workers: 2, Archive: ArchiveOptions{MaxEntryBytes: 2 << 20}})
	if err != nil {
		// the comment bomb declares 40 MiB: refused when listed
		var te *TooLargeError
		if !errors.As(err, &te) || te.Name != path+"!response.00002.xml" || te.Limit != 2<<20 {
			t.Fatalf("open: %v", err)
		}
	} else {
		src.Close()
		t.Fatal("an archive with an entry declaring 40 MiB opened under a 2 MiB entry cap")
	}
	// without the declared-size refusal (a larger cap), each stops as it streams
	src, err = OpenSource(context.Background(), path, SourceOptions{Workers: 2, Archive: ArchiveOptions{MaxEntryBytes: 100 << 20},
		Reader: Options{MaxTokenBytes: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	n := 0
	for {
		if _, err := src.Next(context.Background()); err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		n++
	}
	probs := src.Problems()
	if n != 2 || len(probs) != 3 {
		t.Fatalf("%d records, problems %v; want the good document's 2, three problems", n, probs)
	}
	for i, want := range []string{"bomb.zip!response.00002.xml:1: input too large: a single text node or tag exceeds the limit of 1 MiB (1048576 bytes)",
		"bomb.zip!response.00003.xml:1 (unit 1): input too large: a single text node or tag exceeds the limit of 1 MiB (1048576 bytes)",
		"bomb.zip!response.00004.xml inflates past the 500 bytes its header declares"} {
		if !strings.Contains(probs[i].Err.Error(), want) {
			t.Errorf("problem %d: %v, want %q", i, probs[i].Err, want)
		}
	}
	if !errors.Is(probs[0].Err, ErrTooLarge) || !errors.Is(probs[2].Err, zipsafe.ErrSizeMismatch) {
		t.Errorf("kinds: %v, %v", probs[0].Err, probs[2].Err)
	}
	// an honest entry over the entry cap, streaming
	path2 := filepath.Join(dir, "big.zip")
	units.Filler = 4 << 20
	hostile.WriteZip(path2, units)
	src2, err := OpenSource(context.Background(), path2, SourceOptions{Archive: ArchiveOptions{MaxEntryBytes: 1 << 20}})
	if err == nil {
		src2.Close()
		t.Fatal("a 4 MiB entry opened under a 1 MiB cap")
	}
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "declared size") {
		t.Errorf("entry over the cap: %v", err)
	}
}

// The problems listed are capped; all are counted.
func TestProblemsCap(t *testing.T) {
	files := map[string]string{}
	var order []string
	for i := range 30 {
		n := fmt.Sprintf("r%02d.xml", i)
		files[n], order = "<DataSets><Unit>", append(order, n)
	}
	src, err := OpenSource(context.Background(), writeZip(t, files, order), SourceOptions{MaxProblems: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for {
		if _, err := src.Next(context.Background()); err != nil {
			break
		}
	}
	if st := src.Stats(); st.FailedDocuments != 30 || len(src.Problems()) != 10 {
		t.Errorf("%d failed, %d listed", st.FailedDocuments, len(src.Problems()))
	}
}

// BioCASe: a search response and an inventory over their caps fail with
// the cap, and are not retried.
func TestBioCASeCaps(t *testing.T) {
	var mu sync.Mutex
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
		switch {
		case r.URL.Query().Get("inventory") == "1":
			io.WriteString(w, "<inventory><!--")
			for range 3 {
				io.WriteString(w, strings.Repeat("x", 1<<20))
			}
			io.WriteString(w, "--></inventory>")
		default:
			io.WriteString(w, `<response><content recordCount="100000" totalSearchHits="100000"><DataSets><DataSet><Units>`)
			for range 100000 {
				io.WriteString(w, "<Unit><UnitID>u</UnitID></Unit>")
			}
			io.WriteString(w, `</Units></DataSet></DataSets></content></response>`)
		}
	}))
	defer srv.Close()
	h := harvester(100000)
	h.Client.Timeout = 2 * time.Minute // the race detector slows the reader down
	h.MaxResponseBytes = 1 << 20
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := requests
		requests = 0
		return n
	}
	_, _, err := harvestAll(t, h, srv.URL)
	var te *TooLargeError
	if n := count(); !errors.As(err, &te) || te.Limit != 1<<20 || te.What != "BioCASe response" || n != 1 {
		t.Errorf("search page over the cap (%d requests): %v", n, err)
	}
	_, err = h.Inventory(context.Background(), srv.URL)
	if n := count(); !errors.As(err, &te) || te.Limit != 1<<20 || te.What != "BioCASe document" || n != 1 {
		t.Errorf("inventory over the cap (%d requests): %v", n, err)
	}
}
