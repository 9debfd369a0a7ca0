package hbase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// TestPinKeepsGenerations: a replaced generation that a pinned snapshot
// reads survives the writers' and Collect's cleanup until the pin is
// released (or expires); a snapshot whose generation is gone cannot be
// pinned.
func TestPinKeepsGenerations(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, Config{Buckets: 4})
	g := occurrencetest.NewGenerator(3, 200)
	plan := g.Datasets(2000, 2)
	for i := range plan {
		ingestN(t, s, &plan[i], g, plan[i].Records, true)
	}
	old, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pin, err := s.Pin(ctx, old, "test download", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	s.cfg.KeepFor = time.Nanosecond // no grace period: only the pin keeps
	ingestN(t, s, &plan[0], g, 500, true)
	if n := countSnapshot(t, s, old); n != 2000 {
		t.Fatalf("the pinned snapshot scans %d records after its dataset was replaced, want 2000", n)
	}
	if got := rawRows(t, s); got != 2000+500 {
		t.Fatalf("table holds %d rows, want the pinned generation's and the new one's, %d", got, 2000+500)
	}
	rep, err := s.Collect(ctx)
	if err != nil || rep.Kept != 1 || rep.Generations != 0 {
		t.Fatalf("Collect under the pin: %+v, %v; want one generation kept", rep, err)
	}
	if n, err := s.Pins(ctx); err != nil || n != 1 {
		t.Fatalf("%d live pins (%v), want 1", n, err)
	}
	if err := pin.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if rep, err = s.Collect(ctx); err != nil || rep.Generations != 1 {
		t.Fatalf("Collect after the release: %+v, %v; want one generation deleted", rep, err)
	}
	if got, want := rawRows(t, s), plan[1].Records+500; got != want {
		t.Fatalf("table holds %d rows after the release, want %d", got, want)
	}

	// A snapshot whose generation is already gone.
	stale, _ := s.Snapshot(ctx)
	ingestN(t, s, &plan[0], g, 400, true) // retires and (KeepFor 1ns) deletes stale's generation
	if _, err := s.Pin(ctx, stale, "late", time.Minute); !errors.Is(err, occurrence.ErrSnapshotGone) {
		t.Fatalf("pinning a snapshot whose generation was deleted: %v, want ErrSnapshotGone", err)
	}

	// A pin whose holder died: its expiry has passed.
	cur, _ := s.Snapshot(ctx)
	dead, err := s.Pin(ctx, cur, "crashed worker", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	p := dead.(*hbasePin)
	p.row.Expires = time.Now().Add(-2 * pinClockSkew)
	b, _ := json.Marshal(p.row)
	if err := s.c.Put(ctx, s.cfg.Table, &hrpc.Mutation{Row: p.key, Cells: []hrpc.Cell{{Family: famMeta, Qualifier: qualPin, Value: b}}}); err != nil {
		t.Fatal(err)
	}
	ingestN(t, s, &plan[0], g, 300, true)
	if got, want := rawRows(t, s), plan[1].Records+300; got != want {
		t.Fatalf("an expired pin kept a generation: %d rows, want %d", got, want)
	}
	if n, _ := s.Pins(ctx); n != 0 {
		t.Fatalf("%d pins left, want the expired one deleted", n)
	}
}

func emls(t *testing.T, c occurrence.Catalog, infos []occurrence.DatasetInfo) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, info := range infos {
		if !info.HasEML {
			continue
		}
		rc, err := c.DatasetEML(context.Background(), info.Key)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		out[info.Key] = string(b)
	}
	return out
}

// TestCopyToEmbedded: an HBase table copied into an embedded table (the
// rollover of an HBase table) reads the same: every column of every record,
// the catalog, the EML documents; the copy's snapshot id names the HBase
// snapshot; a second copy after a replace follows the table and retires the
// first copy's files.
func TestCopyToEmbedded(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, Config{Buckets: 4})
	g := occurrencetest.NewGenerator(9, 300)
	plan := g.Datasets(3000, 6)
	rec := occurrence.NewRecord()
	load := func(ds *occurrencetest.Dataset, n int) {
		w, err := s.BeginDataset(ctx, ds.Info)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.SetEML(ctx, strings.NewReader(fmt.Sprintf("<eml><title>%s &amp; ø</title></eml>", ds.Info.Title))); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			g.Fill(rec, ds, i)
			if err := w.Append(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx, occurrence.LoadStats{BrokenRows: 3}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range plan {
		load(&plan[i], plan[i].Records)
	}
	dst, err := parquet.Open(t.TempDir(), parquet.Config{RowGroupRows: 400, KeepSnapshots: 1, KeepFor: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	check := func(what string) parquet.RolloverReport {
		t.Helper()
		src, err := s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := dst.CopyFrom(ctx, s, parquet.RolloverOptions{Source: "hbase://test/" + s.Table()})
		if err != nil {
			t.Fatal(err)
		}
		snap, err := dst.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(snap.ID, ":hbase://test/"+s.Table()+"@"+src.ID) || rep.After != snap.ID {
			t.Fatalf("%s: the copy's snapshot is %q (report %q), want it to name HBase snapshot %s", what, snap.ID, rep.After, src.ID)
		}
		want, got := occurrencetest.RowValues(t, s, src), occurrencetest.RowValues(t, dst, snap)
		if len(got) != len(want) || int64(len(got)) != rep.RowsRewritten {
			t.Fatalf("%s: the copy holds %d records (report %d), HBase %d", what, len(got), rep.RowsRewritten, len(want))
		}
		for id, row := range want {
			if got[id] != row {
				t.Fatalf("%s: gbifID %d differs in the copy:\n%q\n%q", what, id, got[id], row)
			}
		}
		a, err := s.Datasets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b, err := dst.Datasets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: catalog of the copy\n%+v\nof HBase\n%+v", what, b, a)
		}
		if ea, eb := emls(t, s, a), emls(t, dst, b); len(ea) != len(a) || !reflect.DeepEqual(ea, eb) {
			t.Fatalf("%s: EML documents differ (%d in HBase)", what, len(ea))
		}
		return rep
	}
	check("first copy")
	g.Reseed(5)
	load(&plan[2], 100)
	if err := s.DeleteDataset(ctx, plan[4].Info.Key); err != nil {
		t.Fatal(err)
	}
	rep := check("after a replace and a delete")
	if len(rep.Retired) == 0 || rep.FreedBytes == 0 {
		t.Fatalf("the second copy retired %v (%d bytes), want the first copy's snapshot", rep.Retired, rep.FreedBytes)
	}
}
