package species

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/biodiversity-downloads/downloader/taxonomy"
)

var backboneCut = filepath.Join("..", "taxonomy", "testdata", "gbif-backbone-cut.zip")

// writeTinyChecklist writes a checklist folder of one genus and species
// under the cut's Felidae keys.
func writeTinyChecklist(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	meta := `<archive xmlns="http://rs.tdwg.org/dwc/text/"><core encoding="UTF-8" fieldsTerminatedBy="\t" linesTerminatedBy="\n" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Taxon"><files><location>taxa.txt</location></files><id index="0"/>` +
		`<field index="0" term="http://rs.tdwg.org/dwc/terms/taxonID"/><field index="1" term="http://rs.tdwg.org/dwc/terms/parentNameUsageID"/>` +
		`<field index="2" term="http://rs.tdwg.org/dwc/terms/scientificName"/><field index="3" term="http://rs.tdwg.org/dwc/terms/taxonRank"/></core></archive>`
	rows := "taxonID\tparentNameUsageID\tscientificName\ttaxonRank\n9703\t\tFelidae\tfamily\n2435098\t9703\tPuma\tgenus\n8000001\t2435098\tPuma nova\tspecies\n"
	for name, content := range map[string]string{"meta.xml": meta, "taxa.txt": rows} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDirReopens: a request that acquired the checklist keeps reading it
// after a load published another version; the next request reads the
// new one, and the old one is closed when released.
func TestDirReopens(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := taxonomy.Load(ctx, dir, backboneCut, taxonomy.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	src := NewDir(dir, nil)
	defer src.Close()
	t1, release1, err := src.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := taxonomy.Load(ctx, dir, writeTinyChecklist(t), taxonomy.LoadOptions{Key: "tiny"}); err != nil {
		t.Fatal(err)
	}
	t2, release2, err := src.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer release2()
	if t2 == t1 || t2.Usage(8000001) == nil || t2.Usage(2435099) != nil {
		t.Fatalf("after the load: the same taxonomy %v, Puma nova %v", t2 == t1, t2.Usage(8000001))
	}
	// the first request still reads its version
	if u := t1.Usage(2435099); u == nil || u.CanonicalName != "Puma concolor" {
		t.Fatalf("the first request's checklist: %v", u)
	}
	release1()
	src.mu.Lock()
	if src.cur.c != t2 || src.cur.refs != 1 {
		t.Errorf("the current handle: %p (want %p), %d requests (want 1)", src.cur.c, t2, src.cur.refs)
	}
	src.mu.Unlock()
	// a third acquire without a new load shares the current version
	t3, release3, err := src.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	release3()
	if t3 != t2 {
		t.Fatal("a request without a new load reopened the checklist")
	}
}

// TestDirDerived: without a checklist the source reads the derived
// taxonomy ingest writes, follows what it appends, and never mints.
func TestDirDerived(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := NewDir(dir, nil)
	defer src.Close()
	// nothing derived yet: an empty taxonomy
	tax, release, err := src.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	m, err := tax.Match(ctx, taxonomy.Query{ScientificName: "Puma concolor"})
	release()
	if err != nil || m.Type != taxonomy.MatchNone {
		t.Fatalf("empty derived taxonomy: %+v, %v", m, err)
	}
	// ingest derives taxa from its records
	w, err := taxonomy.OpenDerived(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rec := taxonomy.Query{ScientificName: "Puma concolor", Kingdom: "Animalia", Family: "Felidae", Occurrence: true}
	want, err := w.Match(ctx, rec)
	if err != nil || want.Usage == nil {
		t.Fatal(want, err)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	match := func(q taxonomy.Query) taxonomy.Match {
		t.Helper()
		tax, release, err := src.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		m, err := tax.Match(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := match(taxonomy.Query{ScientificName: "Puma concolor"}); m.Type != taxonomy.MatchExact || m.Usage.Key != want.Usage.Key {
		t.Fatalf("derived Puma concolor: %+v, want key %d", m, want.Usage.Key)
	}
	genus := want.Classification[len(want.Classification)-2]
	if m := match(taxonomy.Query{ScientificName: "Puma nova", Kingdom: "Animalia"}); m.Type != taxonomy.MatchHigherRank || m.Usage.Key != genus.Key {
		t.Fatalf("derived Puma nova: %+v, want the genus %d", m, genus.Key)
	}
	if m := match(taxonomy.Query{ScientificName: "Puma nova", Kingdom: "Animalia", Strict: true}); m.Type != taxonomy.MatchNone {
		t.Fatalf("derived Puma nova, strict: %+v", m)
	}
	if m := match(taxonomy.Query{ScientificName: "Lynx lynx"}); m.Type != taxonomy.MatchNone {
		t.Fatalf("derived Lynx lynx before ingest gave it: %+v", m)
	}
	// the reader minted nothing: the writer's log has only its own taxa
	n := w.Len()
	lynx, err := w.Match(ctx, taxonomy.Query{ScientificName: "Lynx lynx", Kingdom: "Animalia", Family: "Felidae"})
	if err != nil || w.Len() != n+2 { // genus and species
		t.Fatalf("the writer minted %d taxa for Lynx lynx, want 2 (%v)", w.Len()-n, err)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if m := match(taxonomy.Query{ScientificName: "Lynx lynx"}); m.Type != taxonomy.MatchExact || m.Usage.Key != lynx.Usage.Key {
		t.Fatalf("derived Lynx lynx after ingest gave it: %+v", m)
	}
	tax, release, err = src.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if kids := tax.Children(genus.Key); len(kids) != 1 || kids[0].Key != want.Usage.Key {
		t.Fatalf("children of the derived genus Puma: %v", kids)
	}
	if got := tax.Suggest("lyn", 10); len(got) != 2 {
		t.Fatalf("derived suggest lyn: %v", got)
	}
}

// TestDirKeepsChecklistOnDamagedVersion: a published version that does
// not open leaves the open checklist answering; without one, the source
// says there is no taxonomy.
func TestDirKeepsChecklistOnDamagedVersion(t *testing.T) {
	dir := t.TempDir()
	if _, err := taxonomy.Load(context.Background(), dir, backboneCut, taxonomy.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	src := NewDir(dir, nil)
	defer src.Close()
	if _, release, err := src.Acquire(); err != nil {
		t.Fatal(err)
	} else {
		release()
	}
	damage := func(d string) {
		if err := os.WriteFile(filepath.Join(d, "checklist-000099.tax"), []byte("not a store"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "CURRENT"), []byte(`{"store":"checklist-000099.tax","version":99}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	damage(dir)
	tax, release, err := src.Acquire()
	if err != nil {
		t.Fatalf("a damaged new version: %v", err)
	}
	if tax.Usage(2435099) == nil {
		t.Fatal("a damaged new version: the open checklist stopped answering")
	}
	release()
	fresh := t.TempDir()
	damage(fresh)
	if _, _, err := NewDir(fresh, nil).Acquire(); !errors.Is(err, ErrNoTaxonomy) {
		t.Fatalf("only a damaged version: %v, want ErrNoTaxonomy", err)
	}
}

// TestDirConcurrentReload matches names from several goroutines while
// loads publish new versions: no request reads a closed checklist (that
// would fault), each sees a whole version, and all versions are closed
// in the end but the current one.
func TestDirConcurrentReload(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := taxonomy.Load(ctx, dir, backboneCut, taxonomy.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	tiny := writeTinyChecklist(t)
	src := NewDir(dir, nil)
	defer src.Close()
	s := New(src)
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				m, err := s.match(ctx, url.Values{"name": {"Puma concolor"}})
				if err != nil {
					errs <- err
					return
				}
				// the cut answers Puma concolor, the tiny checklist only its genus
				if m.Usage == nil || (m.Usage.Key != 2435099 && m.Usage.Key != 2435098) {
					errs <- fmt.Errorf("Puma concolor matched %+v", m)
					return
				}
			}
		}()
	}
	for i := range 4 {
		arch, opts := tiny, taxonomy.LoadOptions{Key: "tiny"}
		if i%2 == 1 {
			arch, opts = backboneCut, taxonomy.LoadOptions{}
		}
		if _, err := taxonomy.Load(ctx, dir, arch, opts); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	if src.cur == nil || src.cur.refs != 0 {
		t.Fatalf("after the requests: current handle %+v", src.cur)
	}
}
