package parquet

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// TestLegacyIDs: a dataset whose manifest entry does not say its ids were
// minted (a table written before) is migrated when it is loaded again.
func TestLegacyIDs(t *testing.T) {
	s := openTest(t, Config{RowGroupRows: 100})
	ctx := context.Background()
	occurrencetest.CheckLegacyIDs(t, s, func(t testing.TB, key string) {
		_, err := s.update(ctx, func(m *manifest) error {
			m.Datasets[key].IDs = ""
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(s.dir, manifestName))
		if err != nil || strings.Contains(string(data), `"ids"`) {
			t.Fatalf("unminted manifest still names its ids (%v)", err)
		}
	})
	m, err := readManifest(s.dir)
	if err != nil || m.Datasets["legacy-ds"].IDs != idsMinted {
		t.Fatalf("after the re-ingest the manifest entry has ids %q (%v), want %q", m.Datasets["legacy-ds"].IDs, err, idsMinted)
	}
}

// TestMintAcrossStores: two stores on one directory (as two processes
// would open it) mint concurrently.
func TestMintAcrossStores(t *testing.T) {
	a, b := twoStores(t)
	occurrencetest.MintConcurrently(t, a, b, a, b)
}

// twoStores opens two stores on one new directory, as two processes
// would, closed when the test ends.
func twoStores(t *testing.T) (*Store, *Store) {
	dir := t.TempDir()
	var stores [2]*Store
	for i := range stores {
		s, err := Open(dir, Config{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores[i] = s
	}
	return stores[0], stores[1]
}

// TestReadOnlyUseCreatesNoLookup: a table that is only read (ResolveID
// included) gets no id database.
func TestReadOnlyUseCreatesNoLookup(t *testing.T) {
	s := openTest(t, Config{})
	if _, err := s.ResolveID(context.Background(), 42); err == nil {
		t.Fatal("ResolveID on an empty table found an alias")
	}
	if _, err := os.Stat(filepath.Join(s.dir, idsName)); !os.IsNotExist(err) {
		t.Fatalf("%s after reads only: %v", idsName, err)
	}
}

// mintHelperEnv makes the test binary a minting process (see
// TestMintAcrossKilledProcesses): "dir|dataset|prefix|n|batch|reverse".
const mintHelperEnv = "PARQUET_MINT_HELPER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(mintHelperEnv); spec != "" {
		os.Exit(mintHelper(spec))
	}
	if spec := os.Getenv(rolloverHelperEnv); spec != "" {
		os.Exit(rolloverHelper(spec))
	}
	os.Exit(m.Run())
}

// mintHelper mints n keys prefix0..prefix{n-1} of a dataset in batches,
// printing "key id" lines, then "done", then waits to be killed.
func mintHelper(spec string) int {
	p := strings.Split(spec, "|")
	n, _ := strconv.Atoi(p[3])
	batch, _ := strconv.Atoi(p[4])
	s, err := Open(p[0], Config{}, nil)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = p[2] + strconv.Itoa(i)
	}
	if p[5] == "reverse" {
		slices.Reverse(keys)
	}
	w := bufio.NewWriter(os.Stdout)
	for lo := 0; lo < n; lo += batch {
		part := keys[lo:min(lo+batch, n)]
		ids := make([]int64, len(part))
		if err := s.MintIDs(context.Background(), p[1], part, ids); err != nil {
			fmt.Fprintln(w, "error", err)
			w.Flush()
			return 1
		}
		for i, k := range part {
			fmt.Fprintln(w, k, ids[i])
		}
	}
	fmt.Fprintln(w, "done")
	w.Flush()
	select {} // killed by the test: no Close, no clean shutdown
}

// TestMintAcrossKilledProcesses: two processes mint the same new keys of
// one dataset and keys of their own at once and are killed (SIGKILL) once
// they have printed their ids: they agree on the shared keys, no id serves
// two keys, and afterwards the table gives the same keys the same ids and
// new keys ids none of them handed out.
func TestMintAcrossKilledProcesses(t *testing.T) {
	dir := t.TempDir()
	const n = 1500
	type child struct {
		cmd *exec.Cmd
		out *bufio.Scanner
		ids map[string]int64
	}
	start := func(ds, prefix, order string, batch int) *child {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%s|%d|%d|%s", mintHelperEnv, dir, ds, prefix, n, batch, order))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return &child{cmd: cmd, out: bufio.NewScanner(out), ids: map[string]int64{}}
	}
	children := []*child{
		start("shared", "k", "forward", 64), start("shared", "k", "reverse", 100),
		start("own-1", "k", "forward", 256), start("own-2", "k", "reverse", 256),
	}
	datasets := []string{"shared", "shared", "own-1", "own-2"}
	for i, c := range children {
		for c.out.Scan() {
			line := c.out.Text()
			if line == "done" {
				break
			}
			f := strings.Fields(line)
			if len(f) != 2 || f[0] == "error" {
				t.Fatalf("minting process %d: %s", i, line)
			}
			id, _ := strconv.ParseInt(f[1], 10, 64)
			c.ids[f[0]] = id
		}
		if len(c.ids) != n {
			t.Fatalf("minting process %d printed %d ids, want %d", i, len(c.ids), n)
		}
	}
	for _, c := range children {
		c.cmd.Process.Signal(syscall.SIGKILL)
		c.cmd.Wait()
	}
	owner := map[int64]string{}
	var highest int64
	for i, c := range children {
		for k, id := range c.ids {
			dk := datasets[i] + "/" + k
			if o, ok := owner[id]; ok && o != dk {
				t.Fatalf("id %d minted for %s and %s", id, o, dk)
			}
			owner[id] = dk
			highest = max(highest, id)
		}
	}
	for k, id := range children[0].ids {
		if children[1].ids[k] != id {
			t.Fatalf("racing processes minted %s as %d and %d", k, id, children[1].ids[k])
		}
	}
	if len(owner) != 3*n {
		t.Fatalf("%d ids for %d keys", len(owner), 3*n)
	}
	// After the kills: the same ids for the same keys, new ones above.
	s, err := Open(dir, Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, c := range children {
		var keys []string
		for k := range c.ids {
			keys = append(keys, k)
		}
		ids := make([]int64, len(keys))
		if err := s.MintIDs(context.Background(), datasets[i], keys, ids); err != nil {
			t.Fatal(err)
		}
		for j, k := range keys {
			if ids[j] != c.ids[k] {
				t.Fatalf("after the kill %s of %s is %d, was minted as %d", k, datasets[i], ids[j], c.ids[k])
			}
		}
	}
	fresh := make([]int64, 10)
	if err := s.MintIDs(context.Background(), "shared", numberedKeys("new", 10), fresh); err != nil {
		t.Fatal(err)
	}
	if fresh[0] <= highest {
		t.Fatalf("a new key after the kills got %d, the killed processes handed out up to %d", fresh[0], highest)
	}
}

func numberedKeys(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// BenchmarkMintIDs mints batches of 256 keys (an ingest chunk): new keys
// (a first ingest) and known ones (a re-ingest).
func BenchmarkMintIDs(b *testing.B) {
	for _, known := range []bool{false, true} {
		b.Run(map[bool]string{false: "new", true: "known"}[known], func(b *testing.B) {
			s, err := Open(b.TempDir(), Config{}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			keys := make([]string, benchMintBatch)
			ids := make([]int64, benchMintBatch)
			fill := func(i int) {
				for j := range keys {
					keys[j] = fmt.Sprintf("urn:catalog:NHMD:VP:%09d", i*benchMintBatch+j)
				}
			}
			if known {
				for i := 0; i < b.N; i++ {
					fill(i)
					if err := s.MintIDs(ctx, "bench", keys, ids); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				fill(i)
				if err := s.MintIDs(ctx, "bench", keys, ids); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*benchMintBatch)/b.Elapsed().Seconds(), "keys/s")
		})
	}
}

// TestMintManyWritersOneStore: more concurrent minters than the store has
// database connections, each minting batches of sizes not seen before, so
// that writers need lookup statements prepared while others wait for the
// write lock.
func TestMintManyWritersOneStore(t *testing.T) {
	s := openTest(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 1; n <= 60; n++ {
				keys := numberedKeys(fmt.Sprintf("g%d-n%d-", g, n), (n*7+g)%200+1)
				if err := s.MintIDs(ctx, fmt.Sprintf("ds-%d", g%3), keys, make([]int64, len(keys))); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestMintFirstIngestMeetsOtherWriter: a store whose last mint of a dataset
// found none of its keys inserts the next keys without looking them up;
// when another store (another process) minted some of them meanwhile, that
// attempt is rolled back and the keys get the other store's ids, the rest
// new ones, and the counter hands out no id twice.
func TestMintFirstIngestMeetsOtherWriter(t *testing.T) {
	ctx := context.Background()
	a, b := twoStores(t)
	first := numberedKeys("k", 10)
	if err := a.MintIDs(ctx, "ds", first, make([]int64, 10)); err != nil {
		t.Fatal(err)
	}
	if !a.ids.allNew[a.ids.dsIDs["ds"]] {
		t.Fatal("a first mint of new keys did not mark the dataset as all new")
	}
	next := numberedKeys("n", 6)
	theirs := make([]int64, 3)
	if err := b.MintIDs(ctx, "ds", next[2:5], theirs); err != nil {
		t.Fatal(err)
	}
	ours := make([]int64, len(next))
	if err := a.MintIDs(ctx, "ds", next, ours); err != nil {
		t.Fatal(err)
	}
	seen := map[int64]string{}
	for i, id := range ours {
		if i >= 2 && i < 5 && id != theirs[i-2] {
			t.Errorf("key %s: id %d, the other writer minted %d", next[i], id, theirs[i-2])
		}
		if id <= 0 {
			t.Errorf("key %s: id %d", next[i], id)
		}
		if k, dup := seen[id]; dup {
			t.Errorf("id %d given to %s and %s", id, k, next[i])
		}
		seen[id] = next[i]
	}
	if a.ids.allNew[a.ids.dsIDs["ds"]] {
		t.Error("a mint that found keys left the dataset marked as all new")
	}
	again := make([]int64, len(next))
	if err := b.MintIDs(ctx, "ds", next, again); err != nil {
		t.Fatal(err)
	}
	for i := range next {
		if again[i] != ours[i] {
			t.Errorf("key %s: %d in one store, %d in the other", next[i], ours[i], again[i])
		}
	}
}

// benchMintBatch is the keys of one MintIDs call in BenchmarkMintIDs: an
// ingest chunk.
const benchMintBatch = 256
