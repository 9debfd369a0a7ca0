package taxonomy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeChecklist writes a checklist archive folder with a Taxon core of
// the given tab-separated rows (the first is the header of terms).
func writeChecklist(t *testing.T, rows []string) string {
	t.Helper()
	dir := t.TempDir()
	terms := strings.Split(rows[0], "\t")
	var meta strings.Builder
	meta.WriteString(`<archive xmlns="http://rs.tdwg.org/dwc/text/"><core encoding="UTF-8" fieldsTerminatedBy="\t" linesTerminatedBy="\n" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Taxon"><files><location>taxa.txt</location></files><id index="0"/>`)
	for i, term := range terms {
		meta.WriteString(`<field index="` + itoa(i) + `" term="http://rs.tdwg.org/dwc/terms/` + term + `"/>`)
	}
	meta.WriteString(`</core></archive>`)
	if err := os.WriteFile(filepath.Join(dir, "meta.xml"), []byte(meta.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "taxa.txt"), []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func issueKinds(r *LoadReport) map[string]int { return r.IssueCounts }

// TestLoadIssues loads a checklist with broken links and checks each is
// reported at its line and repaired.
func TestLoadIssues(t *testing.T) {
	arch := writeChecklist(t, []string{
		"taxonID\tparentNameUsageID\tacceptedNameUsageID\tscientificName\ttaxonRank\ttaxonomicStatus\tkingdom\tfamily\tgenus",
		"A1\t\t\tAnimalia\tkingdom\taccepted\t\t\t",                                            // line 2
		"F1\tA1\t\tFelidae\tfamily\taccepted\t\t\t",                                            // 3
		"G1\tF1\t\tPuma Jardine, 1834\tgenus\taccepted\t\t\t",                                  // 4
		"S1\tG1\t\tPuma concolor (Linnaeus, 1771)\tspecies\taccepted\t\t\t",                    // 5
		"S1\tG1\t\tPuma duplicata\tspecies\taccepted\t\t\t",                                    // 6 duplicate ID
		"S2\tNOPE\t\tPuma lost\tspecies\taccepted\tAnimalia\tFelidae\tPuma",                    // 7 missing parent: a root
		"Y1\t\tS1\tFelis concolor Linnaeus, 1771\tspecies\tsynonym\t\t\t",                      // 8
		"Y2\t\tY1\tFelis discolor Schreber\tspecies\tsynonym\t\t\t",                            // 9 synonym of a synonym
		"Y3\t\tNOPE\tFelis nowhere\tspecies\tsynonym\t\t\t",                                    // 10 missing accepted
		"C1\tC2\t\tCyclus unus\tspecies\taccepted\t\t\t",                                       // 11 parent cycle
		"C2\tC1\t\tCyclus duo\tspecies\taccepted\t\t\t",                                        // 12
		"P1\tY1\t\tPuma felis\tspecies\taccepted\t\t\t",                                        // 13 parent is a synonym
		"V1\t\tS1\tPuma concolor coryi\tsubspecies\taccepted\t\t\t",                            // 14 accepted with an accepted ID elsewhere
		"I1\t\t\tOenanthe aquatica (L.) Poir.\tspecies\taccepted\tPlantae\tApiaceae\tOenanthe", // 15 implicit higher taxa
		"I2\t\t\tOenanthe oenanthe (Linnaeus, 1758)\tspecies\taccepted\tAnimalia\tMuscicapidae\tOenanthe",
		"E1\t\t\t\tspecies\taccepted\t\t\t", // 17 no name
	})
	dir := t.TempDir()
	rep, err := Load(context.Background(), dir, arch, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{LoadDuplicateID: 1, LoadParentNotFound: 1, LoadAcceptedNotFound: 1, LoadParentCycle: 1,
		LoadSynonymParent: 1, LoadStatusConflict: 1, LoadNoName: 1}
	for k, n := range want {
		if issueKinds(rep)[k] != n {
			t.Errorf("%s: %d issues, want %d (%v)", k, issueKinds(rep)[k], n, rep.Issues)
		}
	}
	at := map[string]int{}
	for _, i := range rep.Issues {
		if i.File != "taxa.txt" {
			t.Errorf("issue without its file: %v", i)
		}
		at[i.Kind] = i.Line
	}
	for kind, line := range map[string]int{LoadDuplicateID: 6, LoadParentNotFound: 7, LoadAcceptedNotFound: 10, LoadSynonymParent: 13, LoadStatusConflict: 14, LoadNoName: 17} {
		if at[kind] != line {
			t.Errorf("%s reported at line %d, want %d", kind, at[kind], line)
		}
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Info().KeyMode != KeyModeLookup {
		t.Errorf("key mode %s", c.Info().KeyMode)
	}
	byID := func(id string) *Usage {
		u := c.ByTaxonID(id)
		if u == nil {
			t.Fatalf("no usage %s", id)
		}
		return u
	}
	puma, felidae := byID("G1"), byID("F1")
	if byID("S2").ParentKey != 0 {
		t.Errorf("S2, whose parent is missing, is not a root")
	}
	if y2 := byID("Y2"); y2.AcceptedKey != byID("S1").Key {
		t.Errorf("synonym of a synonym: accepted %d, want %d", y2.AcceptedKey, byID("S1").Key)
	}
	if y3 := byID("Y3"); y3.AcceptedKey != 0 || y3.Status != StatusDoubtful {
		t.Errorf("synonym without accepted: %+v", y3)
	}
	if p1 := byID("P1"); p1.ParentKey != byID("S1").Key {
		t.Errorf("parent synonym not replaced by its accepted name: %+v", p1)
	}
	if v1 := byID("V1"); v1.Status != StatusSynonym || v1.AcceptedKey != byID("S1").Key {
		t.Errorf("status conflict: %+v", v1)
	}
	// the cycle is cut: both are in the tree
	for _, id := range []string{"C1", "C2"} {
		if len(c.Classification(byID(id).Key)) == 0 {
			t.Errorf("%s lost", id)
		}
	}
	// homonym genera of two kingdoms become two implicit genera
	p, a := c.Classification(byID("I1").Key), c.Classification(byID("I2").Key)
	if len(p) != 4 || len(a) != 4 || p[2].Name != "Oenanthe" || a[2].Name != "Oenanthe" || p[2].Key == a[2].Key || p[0].Name != "Plantae" {
		t.Errorf("implicit classifications: %v / %v", p, a)
	}
	if u := c.Usage(p[2].Key); !u.Implicit || u.Rank != RankGenus {
		t.Errorf("implicit genus: %+v", u)
	}
	if ch := c.Children(felidae.Key); len(ch) != 1 || ch[0].Key != puma.Key {
		t.Errorf("children of Felidae: %v", ch)
	}
	// descendants of Felidae are the accepted usages numbered in its range
	f := c.Usage(felidae.Key)
	for _, id := range []string{"G1", "S1", "P1"} {
		if u := byID(id); u.Lo < f.Lo || u.Lo > f.Hi {
			t.Errorf("%s (%d) not in Felidae's range [%d, %d]", id, u.Lo, f.Lo, f.Hi)
		}
	}
	if s := byID("Y1"); s.Lo != byID("S1").Lo {
		t.Errorf("a synonym does not share its accepted usage's number")
	}
}

// TestLoadKeysStable reloads a checklist with one taxon removed and one
// added: keys stay, the new taxon gets a new key, the removed one's key is
// not given again, and a reader of the old version keeps it.
func TestLoadKeysStable(t *testing.T) {
	header := "taxonID\tparentNameUsageID\tscientificName\ttaxonRank"
	v1 := writeChecklist(t, []string{header, "k\t\tAnimalia\tkingdom", "f\tk\tFelidae\tfamily", "g\tf\tPuma\tgenus",
		"s\tg\tPuma concolor\tspecies", "x\tg\tPuma extincta\tspecies"})
	v2 := writeChecklist(t, []string{header, "k\t\tAnimalia\tkingdom", "f\tk\tFelidae\tfamily", "g\tf\tPuma\tgenus",
		"n\tg\tPuma nova\tspecies", "s\tg\tPuma concolor\tspecies"})
	v3 := writeChecklist(t, []string{header, "k\t\tAnimalia\tkingdom", "f\tk\tFelidae\tfamily", "g\tf\tPuma\tgenus",
		"s\tg\tPuma concolor\tspecies", "x\tg\tPuma extincta\tspecies", "n\tg\tPuma nova\tspecies", "z\tg\tPuma zeta\tspecies"})
	dir := t.TempDir()
	ctx := context.Background()
	opts := LoadOptions{Key: "test-checklist"}
	if _, err := Load(ctx, dir, v1, opts); err != nil {
		t.Fatal(err)
	}
	old, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	keys1 := map[string]int64{}
	for _, id := range []string{"k", "f", "g", "s", "x"} {
		keys1[id] = old.ByTaxonID(id).Key
	}
	if _, err := Load(ctx, dir, v2, opts); err != nil {
		t.Fatal(err)
	}
	cur, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	if cur.Info().Version != 2 || old.Info().Version != 1 {
		t.Errorf("versions %d and %d", old.Info().Version, cur.Info().Version)
	}
	// the old reader still sees its version
	if old.ByTaxonID("x") == nil || old.ByTaxonID("n") != nil {
		t.Errorf("old version changed under its reader")
	}
	for _, id := range []string{"k", "f", "g", "s"} {
		if k := cur.ByTaxonID(id).Key; k != keys1[id] {
			t.Errorf("%s: key %d, was %d", id, k, keys1[id])
		}
	}
	nova := cur.ByTaxonID("n").Key
	for _, k := range keys1 {
		if nova == k {
			t.Errorf("new taxon reuses key %d", k)
		}
	}
	// a third load brings the removed taxon back under its old key
	if _, err := Load(ctx, dir, v3, opts); err != nil {
		t.Fatal(err)
	}
	c3, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	if k := c3.ByTaxonID("x").Key; k != keys1["x"] {
		t.Errorf("returning taxon: key %d, was %d", k, keys1["x"])
	}
	if k := c3.ByTaxonID("n").Key; k != nova {
		t.Errorf("Puma nova: key %d, was %d", k, nova)
	}
	all := []int64{}
	for _, id := range []string{"k", "f", "g", "s", "x", "n", "z"} {
		all = append(all, c3.ByTaxonID(id).Key)
	}
	slices.Sort(all)
	if len(slices.Compact(all)) != 7 {
		t.Errorf("keys not unique: %v", all)
	}
	// only the current store and the one before are kept
	stores, _ := filepath.Glob(filepath.Join(dir, "checklist-*.tax"))
	if len(stores) != 2 {
		t.Errorf("store files %v", stores)
	}
}

func TestLoadNotAChecklist(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(context.Background(), dir, "../dwca/testdata/dwca-io-archive-occ.zip", LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "not a checklist") {
		t.Fatalf("occurrence archive: %v", err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrNoChecklist) {
		t.Fatalf("Open after a failed load: %v", err)
	}
}

// TestLoadWhales loads a real checklist (Hershkovitz's catalogue of
// whales, as GBIF's dwca-io tests have it), whose accepted names point
// their acceptedNameUsageID at their own synonyms.
func TestLoadWhales(t *testing.T) {
	dir := t.TempDir()
	rep, err := Load(context.Background(), dir, "../dwca/testdata/dwca-io-archive-tax.zip", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Info.Key != "e71fda1c-dcb9-4eae-81a9-183114978e44" || rep.Info.Title != "Hershkovitz, Catalogue of Living Whales" {
		t.Errorf("info %+v", rep.Info)
	}
	if rep.Rows != 3248 || rep.Info.Usages != 3248 || rep.Info.KeyMode != KeyModeTaxonID {
		t.Errorf("rows %d, usages %d, key mode %s", rep.Rows, rep.Info.Usages, rep.Info.KeyMode)
	}
	if rep.IssueCounts[LoadAcceptedCycle] == 0 {
		t.Errorf("no accepted cycles reported: %v", rep.IssueCounts)
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl := c.Classification(105838)
	names := []string{}
	for _, x := range cl {
		names = append(names, x.Name)
	}
	if strings.Join(names, ",") != "Mammalia,Cetacea,Odontoceti,Susuidae,Pontoporia,Pontoporia blainvillei" {
		t.Errorf("classification of 105838: %v", cl)
	}
	// Physeter's many synonyms
	syn := c.Synonyms(105909)
	if len(syn) < 5 || syn[0].Key != 1794 {
		t.Errorf("synonyms of Physeter: %v", syn)
	}
	m, err := c.Match(context.Background(), Query{ScientificName: "Physeter catodon Linnaeus"})
	if err != nil || m.Type != MatchExact || m.Usage.Key != 105910 {
		t.Errorf("Physeter catodon: %+v %v", m, err)
	}
}
