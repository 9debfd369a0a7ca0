package ingest

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// keyedIDs scans the table: the gbifID of each record by occurrence key,
// and the ids of records without one.
func keyedIDs(t *testing.T, s *parquet.Store) (byKey map[string]int64, unkeyed []int64) {
	t.Helper()
	ctx := context.Background()
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byKey = map[string]int64{}
	req := occurrence.ScanRequest{Columns: occurrence.LegacyIDColumns}
	_, err = occurrence.Scan(ctx, s, snap, req, occurrence.ScanOptions{}, func(b arrow.RecordBatch) error {
		str := func(c, i int) string {
			a := b.Column(c).(*array.String)
			if a.IsNull(i) {
				return ""
			}
			return a.Value(i)
		}
		ids := b.Column(0).(*array.Int64)
		for i := 0; i < int(b.NumRows()); i++ {
			if k, ok := occurrence.OccurrenceKey(str(1, i), str(2, i), str(3, i), str(4, i)); ok {
				byKey[k] = ids.Value(i)
			} else {
				unkeyed = append(unkeyed, ids.Value(i))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return byKey, unkeyed
}

// TestReingestLegacyTable loads a dataset again into a table written before
// ids were minted (testdata/legacy/README.md): the old table reads as it
// did, the new version's records get small minted ids, and each old id
// resolves to its record's new one, also after another re-ingest and in a
// store opened afresh.
func TestReingestLegacyTable(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "table")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "legacy", "table"))); err != nil {
		t.Fatal(err)
	}
	s, err := parquet.Open(dir, parquet.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	if n := count(t, s, `{"type":"equals","key":"COUNTRY","value":"DK"}`); n != 3 {
		t.Fatalf("the legacy table counts %d DK records, want 3", n)
	}
	oldByKey, oldUnkeyed := keyedIDs(t, s)
	if len(oldByKey) != 6 || len(oldUnkeyed) != 2 || oldByKey["urn:legacy:4"] != 699220990 {
		t.Fatalf("legacy table: %v keyed, %v without a key", oldByKey, oldUnkeyed)
	}
	for k, id := range oldByKey {
		if _, err := s.ResolveID(ctx, id); !errors.Is(err, occurrence.ErrNoAlias) {
			t.Fatalf("old id %d of %s resolves before any re-ingest: %v", id, k, err)
		}
	}

	source := filepath.Join("testdata", "legacy", "source")
	var first map[string]int64
	for round := 1; round <= 2; round++ {
		res, err := load(t, s, source, Options{DatasetKey: "legacy-ds"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Records != 6 || res.BrokenRows != 2 {
			t.Fatalf("round %d: %d records, %d broken rows; want 6, 2 (two records have no key)", round, res.Records, res.BrokenRows)
		}
		newByKey, unkeyed := keyedIDs(t, s)
		if len(unkeyed) != 0 || len(newByKey) != 6 {
			t.Fatalf("round %d: %v keyed, %v without a key", round, newByKey, unkeyed)
		}
		seen := map[int64]bool{}
		for k, id := range newByKey {
			if id < 1 || id > 6 || seen[id] {
				t.Fatalf("round %d: %s has id %d; want the six ids 1..6", round, k, id)
			}
			seen[id] = true
			if got, err := s.ResolveID(ctx, oldByKey[k]); err != nil || got != id {
				t.Fatalf("round %d: old id %d of %s resolves to %d, %v; its record now has %d", round, oldByKey[k], k, got, err, id)
			}
		}
		if first == nil {
			first = newByKey
		} else if !maps.Equal(first, newByKey) {
			t.Fatalf("ids changed on re-ingest: %v, then %v", first, newByKey)
		}
		for _, id := range oldUnkeyed {
			if got, err := s.ResolveID(ctx, id); !errors.Is(err, occurrence.ErrNoAlias) {
				t.Fatalf("old id %d of a record without a key resolves to %d, %v", id, got, err)
			}
		}
	}
	// The lookup and the aliases are in the table directory.
	s.Close()
	if s, err = parquet.Open(dir, parquet.Config{}, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ResolveID(ctx, 699220990); err != nil || got != first["urn:legacy:4"] {
		t.Fatalf("reopened: ResolveID(699220990) = %d, %v; want %d", got, err, first["urn:legacy:4"])
	}
}
