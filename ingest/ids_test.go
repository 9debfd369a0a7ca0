package ingest

import (
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// termsSource yields the given core rows, located as "row N".
type termsSource struct {
	rows []occurrence.Terms
	i    int
}

func (s *termsSource) Dataset() occurrence.DatasetInfo { return occurrence.DatasetInfo{Key: "terms"} }
func (s *termsSource) EML() (io.ReadCloser, error)     { return nil, occurrence.ErrNoEML }
func (s *termsSource) Broken() (int64, []string)       { return 0, nil }
func (s *termsSource) Close() error                    { return nil }
func (s *termsSource) Next(context.Context) (occurrence.RawRecord, error) {
	if s.i == len(s.rows) {
		return occurrence.RawRecord{}, io.EOF
	}
	s.i++
	return occurrence.RawRecord{Core: s.rows[s.i-1], Source: "row " + strconv.Itoa(s.i)}, nil
}

func dwc(kv ...string) occurrence.Terms {
	t := occurrence.Terms{}
	for i := 0; i+1 < len(kv); i += 2 {
		t[occurrence.NSDwC+kv[i]] = kv[i+1]
	}
	return t
}

// TestLoadSkipsRecordsWithoutKeyOrWithARepeatedOne: a record is stored
// under its occurrenceID, else its complete triplet; one with neither is a
// broken row (GBIF cannot give it an id), and so is one whose key an earlier
// record of the source had (it would get that record's id).
func TestLoadSkipsRecordsWithoutKeyOrWithARepeatedOne(t *testing.T) {
	rows := []occurrence.Terms{
		dwc("occurrenceID", "urn:1", "catalogNumber", "c1"),                         // 1: by occurrenceID
		dwc("institutionCode", "NHMD", "collectionCode", "V", "catalogNumber", "7"), // 2: by triplet
		dwc("catalogNumber", "only", "locality", "Aarhus"),                          // 3: no key
		dwc("locality", "nothing at all"),                                           // 4: no key
		dwc("occurrenceID", " urn:1 "),                                              // 5: urn:1 again (trimmed)
		dwc("occurrenceID", "URN:1"),                                                // 6: another key (case)
		dwc("occurrenceID", "NHMD|V|7|null"),                                        // 7: the triplet's string again
	}
	l := newMemLoader()
	res, err := Load(context.Background(), l, &termsSource{rows: rows}, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 3 || res.BrokenRows != 4 {
		t.Fatalf("%d records, %d broken rows; want 3, 4", res.Records, res.BrokenRows)
	}
	if !slices.Equal(l.w.ids, []string{"urn:1", "", "URN:1"}) || !slices.Equal(l.w.gbifIDs, []int64{1, 2, 3}) {
		t.Fatalf("stored %q with ids %v", l.w.ids, l.w.gbifIDs)
	}
	want := []string{
		"row 3: " + occurrence.ErrNoOccurrenceKey.Error(),
		"row 4: " + occurrence.ErrNoOccurrenceKey.Error(),
		`row 5: occurrence key "urn:1" repeats an earlier record of this source (gbifID 1)`,
		`row 7: occurrence key "NHMD|V|7|null" repeats an earlier record of this source (gbifID 2)`,
	}
	if !slices.Equal(res.Problems, want) {
		t.Fatalf("problems\n%q\nwant\n%q", res.Problems, want)
	}
}

// TestLoadWithoutAnyKeyFails: a source none of whose records has a key
// leaves the table as it was.
func TestLoadWithoutAnyKeyFails(t *testing.T) {
	l := newMemLoader()
	_, err := Load(context.Background(), l, &termsSource{rows: []occurrence.Terms{dwc("locality", "a"), dwc("catalogNumber", "b")}}, Options{})
	if err == nil || !strings.Contains(err.Error(), ErrNoRecords.Error()) {
		t.Fatalf("got %v, want %v", err, ErrNoRecords)
	}
}

func TestIDSet(t *testing.T) {
	s := idSet{}
	for _, id := range []int64{1, 63, 64, 65535, 65536, 1 << 40, occurrence.MaxID} {
		if !s.add(id) {
			t.Fatalf("%d reported as seen before it was added", id)
		}
	}
	for _, id := range []int64{1, 63, 64, 65535, 65536, 1 << 40, occurrence.MaxID} {
		if s.add(id) {
			t.Fatalf("%d added twice", id)
		}
	}
	if !s.add(2) || !s.add(65537) {
		t.Fatal("a neighbour of a seen id reported as seen")
	}
}

// failingLoader fails MintIDs or Append at a given call.
type failingLoader struct {
	memLoader
	mintFails bool
	appendErr error
}

type failingWriter struct {
	*memWriter
	failAt int
	err    error
}

func (w *failingWriter) Append(ctx context.Context, r *occurrence.Record) error {
	if len(w.ids) == w.failAt {
		return w.err
	}
	return w.memWriter.Append(ctx, r)
}

func (l failingLoader) BeginDataset(context.Context, occurrence.DatasetInfo) (occurrence.DatasetWriter, error) {
	if l.appendErr != nil {
		return &failingWriter{memWriter: l.w, failAt: 3*chunkSize + 5, err: l.appendErr}, nil
	}
	return l.w, nil
}

func (l failingLoader) MintIDs(ctx context.Context, ds string, keys []string, ids []int64) error {
	if l.mintFails && len(*l.calls) == 2 {
		return errors.New("lookup unreachable")
	}
	return l.memLoader.MintIDs(ctx, ds, keys, ids)
}

// TestLoadReportsTheFailure: a failure to mint, or to append, is what Load
// returns (not the cancellation it causes in the other stages).
func TestLoadReportsTheFailure(t *testing.T) {
	boom := errors.New("disk full")
	_, err := Load(context.Background(), failingLoader{memLoader: newMemLoader(), appendErr: boom}, &memSource{n: 20 * chunkSize}, Options{Workers: 2})
	if !errors.Is(err, boom) {
		t.Fatalf("append failure: Load returned %v, want %v", err, boom)
	}
	_, err = Load(context.Background(), failingLoader{memLoader: newMemLoader(), mintFails: true}, &memSource{n: 20 * chunkSize}, Options{Workers: 2})
	if err == nil || !strings.Contains(err.Error(), "lookup unreachable") || !strings.Contains(err.Error(), "mint gbifIDs") {
		t.Fatalf("mint failure: Load returned %v", err)
	}
}
