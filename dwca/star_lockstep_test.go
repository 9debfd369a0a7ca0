package dwca

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// coreOrderArchive writes n core rows with shuffled (unsorted) ids and an
// extension written in core order, as GBIF's downloads are: up to 3 rows per
// core row (none for some), plus a broken row and rows without a coreid.
// edit may change the extension's rows before they are written.
func coreOrderArchive(t testing.TB, n int, core func([]string) []string, edit func([]string) []string) string {
	rng := rand.New(rand.NewPCG(3, 4))
	ids := make([]string, n)
	for i, p := range rng.Perm(n) {
		ids[i] = fmt.Sprintf("id%d", p)
	}
	if core != nil {
		ids = core(ids)
	}
	var rows []string
	for i, id := range ids {
		for j := range i % 4 {
			rows = append(rows, fmt.Sprintf("%s\tm%s-%d", id, strings.TrimPrefix(id, "id"), j))
		}
		if i%97 == 5 {
			rows = append(rows, "\tno core id")
		}
	}
	rows = append(rows, ids[1]+"\tbad \xff") // broken (invalid UTF-8), in its place
	rows = append(rows, "\tno core id at the end")
	if edit != nil {
		rows = edit(rows)
	}
	var c strings.Builder
	c.WriteString("id\tname\n")
	for _, id := range ids {
		fmt.Fprintf(&c, "%s\tname %s\n", id, id)
	}
	meta := strings.NewReplacer(`fieldsTerminatedBy=","`, `fieldsTerminatedBy="\t" ignoreHeaderLines="1"`,
		`ignoreHeaderLines="0"`, "", `<coreid index="1"/>`, `<coreid index="0"/>`,
		`<field index="0" term="http://purl.org/dc/terms/identifier"/>`,
		`<field index="1" term="http://purl.org/dc/terms/identifier"/>`).Replace(fixtureMeta)
	return writeDir(t, map[string]string{"meta.xml": meta, "occ.txt": c.String(),
		"sub/media.csv": "coreid\tmedia\n" + strings.Join(rows, "\n") + "\n"})
}

// joined reads every record of dir with opts and reports the join that ran.
type joined struct {
	recs     []occurrence.RawRecord
	orphans  int
	broken   int
	lockstep bool
}

func joinAll(t *testing.T, dir string, opts Options) (joined, error) {
	t.Helper()
	opts.TempDir = t.TempDir()
	a, err := opts.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	sr, err := a.Records(context.Background())
	if err != nil {
		return joined{}, err
	}
	defer sr.Close()
	j := joined{lockstep: len(sr.stepping) > 0}
	if j.lockstep {
		if left, _ := os.ReadDir(opts.TempDir); len(left) != 0 {
			t.Errorf("lockstep join wrote temporary files: %v", left)
		}
	}
	for {
		r, err := sr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		j.recs = append(j.recs, r)
	}
	j.orphans, j.broken = sr.Orphans(), sr.Broken().Count
	return j, nil
}

// An archive whose extension follows the core's order is joined in lockstep
// even when it is far larger than the join budget and the spill cap (the
// disk join failed on GBIF downloads of 1M records at the cap): the records
// are those of the in-memory join.
func TestLockstepJoinInCoreOrder(t *testing.T) {
	const n = 3000
	dir := coreOrderArchive(t, n, nil, nil)
	mem, err := joinAll(t, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// too little memory for the extension, enough for the ids' hashes, no disk
	tight := Options{JoinBudget: 1 << 20, Limits: Limits{SpillBytes: 1}}
	step, err := joinAll(t, dir, tight)
	if err != nil {
		t.Fatalf("in core order, with no room to spill: %v", err)
	}
	if !step.lockstep {
		t.Fatal("extension in core order not joined in lockstep")
	}
	sameJoin(t, mem, step, n)
	// with the ids' hashes sorted on disk too
	spilled, err := joinAll(t, dir, Options{JoinBudget: 1})
	if err != nil || !spilled.lockstep {
		t.Fatalf("lockstep %v: %v", spilled.lockstep, err)
	}
	sameJoin(t, mem, spilled, n)
	if mem.orphans != n/97+2 || mem.broken != 1 {
		t.Errorf("%d orphans, %d broken rows; want %d (rows without coreid), 1", mem.orphans, mem.broken, n/97+2)
	}
	media, want := 0, 0
	for i := range n {
		want += i % 4
	}
	for _, r := range step.recs {
		id := strings.TrimPrefix(r.Core[occurrence.NSDwC+"occurrenceID"], "id")
		for _, m := range r.Extensions[occurrence.RowTypeMultimedia] {
			if !strings.HasPrefix(m[occurrence.NSDC+"identifier"], "m"+id+"-") {
				t.Fatalf("record id%s got media %v", id, m)
			}
			media++
		}
	}
	if media != want {
		t.Errorf("%d media rows joined, want %d", media, want)
	}
}

// sameJoin checks two joins of one archive gave the same records, orphans
// and broken rows.
func sameJoin(t *testing.T, want, got joined, n int) {
	t.Helper()
	if len(want.recs) != n || len(got.recs) != n {
		t.Fatalf("%d and %d records, want %d", len(want.recs), len(got.recs), n)
	}
	for i := range want.recs {
		if !reflect.DeepEqual(want.recs[i], got.recs[i]) {
			t.Fatalf("record %d differs:\n%+v\n%+v", i, want.recs[i], got.recs[i])
		}
	}
	if got.orphans != want.orphans || got.broken != want.broken {
		t.Errorf("%d orphans, %d broken; want %d, %d", got.orphans, got.broken, want.orphans, want.broken)
	}
}

// Extensions not in core order fall back to the disk join: a row moved to
// the end, a row of an unknown core id, a core id repeated (its second row
// must get the rows too). The spill cap shows the disk join ran; with room
// to spill it gives the in-memory join's records.
func TestLockstepFallsBackToDiskJoin(t *testing.T) {
	const n = 500
	cases := map[string]struct {
		core, edit func([]string) []string
		n          int
	}{
		"row moved to the end": {edit: func(r []string) []string { return append(r[1:], r[0]) }},
		"unknown coreid":       {edit: func(r []string) []string { return append(r[:10:10], append([]string{"zz\torphan"}, r[10:]...)...) }},
		"repeated core id": {core: func(ids []string) []string {
			return append(ids, ids[3]) // ids[3] has 3 rows
		}, n: n + 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := coreOrderArchive(t, n, c.core, c.edit)
			want := c.n
			if want == 0 {
				want = n
			}
			_, err := joinAll(t, dir, Options{JoinBudget: 1, Limits: Limits{SpillBytes: 1}})
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("got %v, want the disk join's spill cap", err)
			}
			mem, err := joinAll(t, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			disk, err := joinAll(t, dir, Options{JoinBudget: 1})
			if err != nil {
				t.Fatal(err)
			}
			if disk.lockstep {
				t.Fatal("joined in lockstep")
			}
			sameJoin(t, mem, disk, want)
		})
	}
}

// A core row whose lockstep extension rows pass Limits.RecordBytes is a
// broken row, as in the disk join; the rows after it are read.
func TestLockstepRecordCap(t *testing.T) {
	big := strings.Repeat("x", 1000)
	dir := coreOrderArchive(t, 200, nil, func(rows []string) []string {
		id := strings.SplitN(rows[0], "\t", 2)[0]
		extra := make([]string, 100)
		for i := range extra {
			extra[i] = id + "\t" + big
		}
		return append(extra, rows...)
	})
	step, err := joinAll(t, dir, Options{JoinBudget: 64 << 10, Limits: Limits{SpillBytes: 1, RecordBytes: 64 << 10}})
	if err != nil || !step.lockstep {
		t.Fatalf("lockstep %v: %v", step.lockstep, err)
	}
	if len(step.recs) != 199 || step.broken != 2 {
		t.Errorf("%d records, %d broken rows; want 199 and 2 (the core row over the cap, the invalid UTF-8 row)", len(step.recs), step.broken)
	}
}

func TestEncodedLen(t *testing.T) {
	dir := coreOrderArchive(t, 50, nil, nil)
	a, err := Options{}.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rr, err := a.Rows(context.Background(), a.Meta.Extensions[0])
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	for {
		row, err := rr.Next()
		if err != nil {
			break
		}
		src := strings.Repeat("s", row.Line()*3)
		if got, want := encodedLen(src, row), int64(len(appendRow(nil, src, row))); got != want {
			t.Fatalf("line %d: encodedLen %d, appendRow wrote %d", row.Line(), got, want)
		}
	}
}

// The spill cap counts the bytes the sorter's run files hold, no more.
func TestSpillCountsBytesWritten(t *testing.T) {
	so := newExtSorter(t.TempDir(), 1)
	so.disk = &spillBudget{left: 1 << 40, limit: 1 << 40}
	defer so.close()
	for i := range 5000 {
		val := []byte(strings.Repeat("v", i%300))
		if err := so.add(fmt.Sprintf("key%d", i*7919%5000), uint64(i)<<(i%50), val); err != nil {
			t.Fatal(err)
		}
	}
	it, err := so.iter()
	if err != nil {
		t.Fatal(err)
	}
	defer it.close()
	var onDisk int64
	for _, r := range so.runs {
		st, err := r.Stat()
		if err != nil {
			t.Fatal(err)
		}
		onDisk += st.Size()
	}
	if counted := so.disk.limit - so.disk.left; counted != onDisk || onDisk == 0 {
		t.Errorf("counted %d bytes, the run files hold %d", counted, onDisk)
	}
}

// A disk join writes a few times the data, whatever the length of the
// terms' URIs (rows carry field numbers): under the default factor with no
// slack, which the URIs (~35 bytes a value here) would pass.
func TestDiskJoinSpillWithinFactor(t *testing.T) {
	dir := coreOrderArchive(t, 3000, nil, func(r []string) []string { return append(r[1:], r[0]) })
	a, err := Options{JoinBudget: 1, TempDir: t.TempDir(), Limits: Limits{SpillBytes: 1 << 40}}.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	sr, err := a.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	data, err := a.dataBytes()
	if err != nil {
		t.Fatal(err)
	}
	written := sr.spill.limit - sr.spill.left
	if written == 0 || written > DefaultSpillFactor*data {
		t.Errorf("the disk join wrote %d bytes for %d bytes of data (%.1fx), want at most %dx", written, data, float64(written)/float64(data), DefaultSpillFactor)
	}
	t.Logf("the disk join wrote %.2fx the data", float64(written)/float64(data))
}
