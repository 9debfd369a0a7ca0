package hbase

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// TestLegacyIDs: a dataset whose state row does not say its ids were
// minted (a table written before) is migrated when it is loaded again.
func TestLegacyIDs(t *testing.T) {
	s := newStore(t, Config{Buckets: 4})
	ctx := context.Background()
	occurrencetest.CheckLegacyIDs(t, s, func(t testing.TB, key string) {
		st, err := s.readState(ctx, key)
		if err != nil || st == nil || !st.MintedIDs {
			t.Fatalf("state of %s before unminting: %+v, %v", key, st, err)
		}
		st.MintedIDs = false
		if err := s.writeState(ctx, key, st); err != nil {
			t.Fatal(err)
		}
	})
	st, err := s.readState(ctx, "legacy-ds")
	if err != nil || !st.MintedIDs {
		t.Fatalf("after the re-ingest the state says minted=%v (%v)", st != nil && st.MintedIDs, err)
	}
}

// TestMintAcrossStores: two stores on one table (as two processes would
// open it), each reserving its own blocks of ids, mint concurrently; a
// store opened later starts after every block reserved before.
func TestMintAcrossStores(t *testing.T) {
	a := newStore(t, Config{Buckets: 2})
	b, err := OpenConfig(context.Background(), Config{Master: a.cfg.Master, Table: a.Table()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	occurrencetest.MintConcurrently(t, a, b, a, b)
	c, err := OpenConfig(context.Background(), Config{Master: a.cfg.Master, Table: a.Table()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ids := make([]int64, 1)
	if err := c.MintIDs(context.Background(), "later", []string{"k"}, ids); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Store{a, b} {
		if ids[0] < s.idBlocks.end {
			t.Fatalf("a store opened later minted %d, below the block [%d, %d) another reserved", ids[0], s.idBlocks.next, s.idBlocks.end)
		}
	}
}

// BenchmarkMintIDs mints batches of 256 keys (an ingest chunk): new keys
// (a first ingest) and known ones (a re-ingest).
func BenchmarkMintIDs(b *testing.B) {
	s := newStore(b, Config{Buckets: 2})
	ctx := context.Background()
	keys := make([]string, 256)
	ids := make([]int64, 256)
	fill := func(run string, i int) {
		for j := range keys {
			keys[j] = fmt.Sprintf("urn:catalog:NHMD:VP:%s:%09d", run, i*256+j)
		}
	}
	run := fmt.Sprint(time.Now().UnixNano())
	b.Run("new", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			fill(run, i)
			if err := s.MintIDs(ctx, "bench", keys, ids); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*256)/b.Elapsed().Seconds(), "keys/s")
	})
	b.Run("known", func(b *testing.B) {
		for i := 0; i < 20; i++ {
			fill(run+"k", i)
			if err := s.MintIDs(ctx, "bench", keys, ids); err != nil {
				b.Fatal(err)
			}
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			fill(run+"k", i%20)
			if err := s.MintIDs(ctx, "bench", keys, ids); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*256)/b.Elapsed().Seconds(), "keys/s")
	})
}
