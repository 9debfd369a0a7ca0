package hbase

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// newStore creates a fresh table that is dropped when the test ends.
func newStore(t testing.TB, cfg Config) *Store {
	t.Helper()
	cfg.Master = testenv.HBaseMaster(t)
	if cfg.Table == "" {
		cfg.Table = fmt.Sprintf("occ_test_%d", time.Now().UnixNano()%1e12)
	}
	s, err := OpenConfig(context.Background(), cfg, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Drop(context.Background()); err != nil {
			t.Errorf("drop %s: %v", s.Table(), err)
		}
		s.Close()
	})
	return s
}

func TestConformance(t *testing.T) {
	occurrencetest.Run(t, func(t *testing.T) occurrence.Backend {
		return newStore(t, Config{Buckets: 8})
	})
}

func TestConformanceNoPushdown(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: TestConformance's suite again with every predicate evaluated client-side; it adds no concurrency of its own (the full run checks it)")
	}
	occurrencetest.Run(t, func(t *testing.T) occurrence.Backend {
		return newStore(t, Config{Buckets: 4, NoPushdown: true})
	})
}

func TestParseURI(t *testing.T) {
	cfg, err := ParseURI("hbase://127.0.0.1:16000/occ?buckets=12")
	if err != nil || cfg.Master != "127.0.0.1:16000" || cfg.Table != "occ" || cfg.Buckets != 12 {
		t.Fatalf("ParseURI = %+v, %v", cfg, err)
	}
	for _, bad := range []string{"hbase://host/occ", "hbase://host:1/", "http://host:1/occ", "hbase://host:1/occ?buckets=300", "hbase://host:1/a/b"} {
		if _, err := ParseURI(bad); !errors.Is(err, ErrBadURI) {
			t.Errorf("ParseURI(%q) = %v, want ErrBadURI", bad, err)
		}
	}
}

// OpenExisting never creates a table: a missing one is ErrNoTable, and is
// still missing afterwards; an existing one opens.
func TestOpenExisting(t *testing.T) {
	master := testenv.HBaseMaster(t)
	ctx := context.Background()
	table := fmt.Sprintf("occ_existing_%d", time.Now().UnixNano()%1e9)
	uri := "hbase://" + master + "/" + table
	for range 2 { // the second finds it missing too: the first did not create it
		if s, err := OpenExisting(ctx, uri, nil); !errors.Is(err, occurrence.ErrNoTable) || !strings.Contains(fmt.Sprint(err), table) {
			if err == nil {
				s.Close()
			}
			t.Fatalf("OpenExisting of a missing table: %v", err)
		}
	}
	s, err := Open(ctx, uri, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		s.Drop(ctx)
		s.Close()
	}()
	s2, err := OpenExisting(ctx, uri, nil)
	if err != nil {
		t.Fatalf("OpenExisting after Open: %v", err)
	}
	s2.Close()
}

func TestOpenURI(t *testing.T) {
	master := testenv.HBaseMaster(t)
	ctx := context.Background()
	table := fmt.Sprintf("occ_uri_%d", time.Now().UnixNano()%1e9)
	s, err := Open(ctx, "hbase://"+master+"/"+table+"?buckets=3", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		s.Drop(ctx)
		s.Close()
	}()
	if s.Buckets() != 3 {
		t.Fatalf("buckets = %d", s.Buckets())
	}
	// Reopening keeps the table's own bucket count.
	s2, err := Open(ctx, "hbase://"+master+"/"+table+"?buckets=9", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if s2.Buckets() != 3 {
		t.Fatalf("reopened with %d buckets, table has 3", s2.Buckets())
	}
	snap, err := s2.Snapshot(ctx)
	if err != nil || len(snap.Splits) != 3 {
		t.Fatalf("empty table snapshot = %+v, %v", snap, err)
	}
	if _, err := s2.Dataset(ctx, "nope"); !errors.Is(err, occurrence.ErrNoDataset) {
		t.Fatalf("missing dataset: %v", err)
	}
}
