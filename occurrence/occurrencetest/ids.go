package occurrencetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// runIDs checks the backend's IDMinter and IDResolver on a fresh table:
// ids count from 1 in the order keys are given, a key keeps its id (also
// after its dataset is deleted), new keys get new ids, datasets are scopes,
// keys compare byte for byte, and concurrent minting hands out unique ids.
func runIDs(t *testing.T, tbl occurrence.Backend) {
	ctx := context.Background()
	a := keyRange("occ-", 0, 600) // more than one lookup batch of a backend
	idsA := mint(t, tbl, "ds-a", a)
	for i, id := range idsA {
		if id != int64(i+1) {
			t.Fatalf("a fresh table minted %d for the key %d, want %d: ids count from 1 in the order given", id, i, i+1)
		}
	}

	t.Run("stable", func(t *testing.T) {
		// Again, in another order, in pieces, with repeats within a call.
		order := rand.New(rand.NewPCG(1, 2)).Perm(len(a))
		var again []string
		for _, i := range order {
			again = append(again, a[i])
			if i%5 == 0 {
				again = append(again, a[i])
			}
		}
		for lo := 0; lo < len(again); lo += 97 {
			part := again[lo:min(lo+97, len(again))]
			ids := mint(t, tbl, "ds-a", part)
			for j, k := range part {
				if want := idsA[slices.Index(a, k)]; ids[j] != want {
					t.Fatalf("key %s: minted %d again, first %d", k, ids[j], want)
				}
			}
		}
	})

	t.Run("new-keys", func(t *testing.T) {
		keys := []string{a[5], "occ-new-1", a[7], "occ-new-2", "occ-new-1"}
		ids := mint(t, tbl, "ds-a", keys)
		if ids[0] != idsA[5] || ids[2] != idsA[7] || ids[4] != ids[1] {
			t.Fatalf("known keys or a repeat changed ids: %v", ids)
		}
		if !(ids[1] > idsA[len(idsA)-1] && ids[3] > ids[1]) {
			t.Fatalf("new keys got %d, %d after %d: want new, increasing ids", ids[1], ids[3], idsA[len(idsA)-1])
		}
		// The same strings in another dataset are other occurrences, and
		// keys differing in case or white space are other keys.
		other := mint(t, tbl, "ds-b", []string{a[5], "OCC-5", "occ-5 ", "occ-5"})
		if slices.Contains(idsA, other[0]) || other[3] != other[0] || other[1] == other[0] || other[2] == other[0] || other[1] == other[2] {
			t.Fatalf("ds-b's ids %v (ds-a's occ-5 is %d)", other, idsA[5])
		}
	})

	t.Run("errors", func(t *testing.T) {
		if err := tbl.MintIDs(ctx, "ds-a", []string{"x", "y"}, make([]int64, 1)); err == nil {
			t.Error("2 keys and 1 id: no error")
		}
		if err := tbl.MintIDs(ctx, "ds-a", []string{"x", ""}, make([]int64, 2)); err == nil {
			t.Error("an empty key: no error")
		}
		if err := tbl.MintIDs(ctx, "", []string{"x"}, make([]int64, 1)); err == nil {
			t.Error("an empty dataset key: no error")
		}
		if err := tbl.MintIDs(ctx, "ds-a\x00occ-1", []string{"x"}, make([]int64, 1)); err == nil {
			t.Error("a dataset key holding NUL: no error")
		}
		if err := tbl.MintIDs(ctx, "ds-a", nil, nil); err != nil {
			t.Errorf("no keys: %v", err)
		}
	})

	t.Run("deleted-dataset", func(t *testing.T) {
		// Load ds-a with its minted ids, delete it: its ids go to nobody
		// else, and its keys get them back.
		loadKeyed(t, tbl, "ds-a", a[:50], idsA[:50])
		if err := tbl.DeleteDataset(ctx, "ds-a"); err != nil {
			t.Fatal(err)
		}
		fresh := mint(t, tbl, "ds-c", keyRange("occ-", 0, 50))
		for _, id := range fresh {
			if slices.Contains(idsA, id) {
				t.Fatalf("id %d of deleted dataset ds-a handed to a key of ds-c", id)
			}
		}
		if back := mint(t, tbl, "ds-a", a[:50]); !slices.Equal(back, idsA[:50]) {
			t.Fatalf("ds-a's keys after its delete got %v, had %v", back, idsA[:50])
		}
	})

	t.Run("concurrent", func(t *testing.T) { MintConcurrently(t, tbl, tbl) })

	t.Run("resolve", func(t *testing.T) {
		for _, id := range []int64{idsA[0], occurrence.StableID("ds-a", "occ-0"), 0} {
			if got, err := tbl.ResolveID(ctx, id); !errors.Is(err, occurrence.ErrNoAlias) {
				t.Errorf("ResolveID(%d) of an id never replaced = %d, %v; want ErrNoAlias", id, got, err)
			}
		}
	})
}

// MintConcurrently mints from several goroutines at once, each pair of
// minters racing for the same new keys of one dataset (in other orders and
// batches) while others mint keys of their own datasets: the racing ones
// must agree, and no id may serve two keys. The minters may be one table
// or the same table opened several times (writers of several processes).
func MintConcurrently(t testing.TB, minters ...occurrence.IDMinter) {
	t.Helper()
	const n = 700
	shared := keyRange("race-", 0, n)
	type result struct {
		ds   string
		keys []string
		ids  []int64
	}
	var (
		mu      sync.Mutex
		results []result
		wg      sync.WaitGroup
	)
	run := func(m occurrence.IDMinter, ds string, keys []string, batch int) {
		defer wg.Done()
		for lo := 0; lo < len(keys); lo += batch {
			part := keys[lo:min(lo+batch, len(keys))]
			ids := make([]int64, len(part))
			if err := m.MintIDs(context.Background(), ds, part, ids); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			results = append(results, result{ds, part, ids})
			mu.Unlock()
		}
	}
	for i, m := range minters {
		rev := slices.Clone(shared)
		if i%2 == 1 {
			slices.Reverse(rev)
		}
		wg.Add(2)
		go run(m, "race-shared", rev, 64+i*37)
		go run(m, fmt.Sprintf("race-own-%d", i), keyRange("own-", 0, n), 256)
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	byKey := map[string]int64{} // dataset \x00 key -> id
	owner := map[int64]string{}
	for _, r := range results {
		for j, k := range r.keys {
			dk := r.ds + "\x00" + k
			id := r.ids[j]
			if id < 1 || id > occurrence.MaxID {
				t.Fatalf("minted %d, outside 1..2^53-1", id)
			}
			if prev, ok := byKey[dk]; ok && prev != id {
				t.Fatalf("%s of %s minted as %d and as %d by racing writers", k, r.ds, prev, id)
			}
			byKey[dk] = id
			if o, ok := owner[id]; ok && o != dk {
				t.Fatalf("id %d minted for %q and %q", id, o, dk)
			}
			owner[id] = dk
		}
	}
	if want := n * (1 + len(minters)); len(byKey) != want {
		t.Fatalf("%d keys minted, want %d", len(byKey), want)
	}
}

func keyRange(prefix string, lo, hi int) []string {
	out := make([]string, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

func mint(t testing.TB, m occurrence.IDMinter, ds string, keys []string) []int64 {
	t.Helper()
	ids := make([]int64, len(keys))
	if err := m.MintIDs(context.Background(), ds, keys, ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

// loadKeyed loads a dataset of records with the given occurrenceIDs and
// gbifIDs.
func loadKeyed(t testing.TB, tbl occurrence.Loader, ds string, keys []string, ids []int64) {
	t.Helper()
	ctx := context.Background()
	w, err := tbl.BeginDataset(ctx, occurrence.DatasetInfo{Key: ds, Title: "keyed " + ds})
	if err != nil {
		t.Fatal(err)
	}
	rec := occurrence.NewRecord()
	for i, k := range keys {
		rec.Reset()
		rec.SetInt(occurrence.ColumnIndex(occurrence.ColGBIFID), ids[i])
		rec.SetString(occurrence.ColumnIndex(occurrence.ColDatasetKey), ds)
		rec.SetString(occurrence.ColumnIndex(occurrence.ColOccurrenceID), k)
		if err := w.Append(ctx, rec); err != nil {
			w.Abort(ctx)
			t.Fatal(err)
		}
	}
	if _, err := w.Commit(ctx, occurrence.LoadStats{}); err != nil {
		t.Fatal(err)
	}
}

// CheckLegacyIDs checks the migration of a dataset version stored with ids
// the table did not mint: unmint must make the dataset's current version
// look as a table written before ids were minted left it (the backend's own
// marker removed). The dataset is loaded with 63-bit hash ids, unminted,
// and loaded again with minted ids; then every old id of a record with an
// occurrence key resolves to its key's new id (also for records the new
// version dropped), old ids of records without a key and new ids resolve
// to nothing, and the key lookup agrees.
func CheckLegacyIDs(t *testing.T, tbl occurrence.Backend, unmint func(t testing.TB, datasetKey string)) {
	t.Helper()
	ctx := context.Background()
	const ds = "legacy-ds"
	type rec struct {
		occID, cat string
		old        int64
	}
	var recs []rec
	for i := 0; i < 300; i++ {
		r := rec{occID: fmt.Sprintf("urn:legacy:%d", i)}
		switch {
		case i%10 == 3: // keyed by a triplet
			r.occID, r.cat = "", fmt.Sprintf("c-%d", i)
		case i%10 == 7: // no key: the old hash of its content
			r.occID = ""
		}
		r.old = occurrence.StableID(ds, fmt.Sprint("legacy ", i))
		recs = append(recs, r)
	}
	write := func(rs []rec, ids []int64) {
		w, err := tbl.BeginDataset(ctx, occurrence.DatasetInfo{Key: ds})
		if err != nil {
			t.Fatal(err)
		}
		rec := occurrence.NewRecord()
		for i, r := range rs {
			rec.Reset()
			rec.SetInt(occurrence.ColumnIndex(occurrence.ColGBIFID), ids[i])
			rec.SetString(occurrence.ColumnIndex(occurrence.ColDatasetKey), ds)
			rec.SetString(occurrence.ColumnIndex(occurrence.ColOccurrenceID), r.occID)
			if r.cat != "" {
				rec.SetString(occurrence.ColumnIndex(occurrence.ColInstitutionCode), "INST")
				rec.SetString(occurrence.ColumnIndex(occurrence.ColCollectionCode), "COLL")
				rec.SetString(occurrence.ColumnIndex(occurrence.ColCatalogNumber), r.cat)
			}
			if err := w.Append(ctx, rec); err != nil {
				w.Abort(ctx)
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx, occurrence.LoadStats{}); err != nil {
			t.Fatal(err)
		}
	}
	key := func(r rec) (string, bool) {
		if r.cat != "" {
			return occurrence.OccurrenceKey("", "INST", "COLL", r.cat)
		}
		return occurrence.OccurrenceKey(r.occID, "", "", "")
	}
	olds := make([]int64, len(recs))
	for i, r := range recs {
		olds[i] = r.old
	}
	write(recs, olds)
	unmint(t, ds)
	if got := scanAll(t, tbl, nil, []string{occurrence.ColGBIFID}); len(got.ids) != len(recs) {
		t.Fatalf("the legacy dataset scans %d records, holds %d", len(got.ids), len(recs))
	}

	// Loaded again: the keyed records but the last 50, and 10 new ones.
	var next []rec
	var keys []string
	for _, r := range recs[:250] {
		if k, ok := key(r); ok {
			next, keys = append(next, r), append(keys, k)
		}
	}
	for i := 0; i < 10; i++ {
		r := rec{occID: fmt.Sprintf("urn:new:%d", i)}
		next, keys = append(next, r), append(keys, r.occID)
	}
	ids := mint(t, tbl, ds, keys)
	write(next, ids)

	for _, r := range recs {
		got, err := tbl.ResolveID(ctx, r.old)
		k, ok := key(r)
		if !ok {
			if !errors.Is(err, occurrence.ErrNoAlias) {
				t.Fatalf("old id %d of a record without a key resolves to %d, %v", r.old, got, err)
			}
			continue
		}
		want := mint(t, tbl, ds, []string{k})[0]
		if err != nil || got != want {
			t.Fatalf("old id %d of %s resolves to %d, %v; the key's id is %d", r.old, k, got, err, want)
		}
		if got < 1 || got > occurrence.MaxID {
			t.Fatalf("old id %d replaced by %d", r.old, got)
		}
	}
	for _, id := range ids {
		if got, err := tbl.ResolveID(ctx, id); !errors.Is(err, occurrence.ErrNoAlias) {
			t.Fatalf("minted id %d resolves to %d, %v", id, got, err)
		}
	}
	if got := scanAll(t, tbl, nil, []string{occurrence.ColGBIFID}); !sameSet(got.ids, ids) {
		t.Fatalf("the new version scans ids %v, loaded %v", got.ids, ids)
	}
}

func sameSet(a, b []int64) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
