package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/species"
	"github.com/biodiversity-downloads/downloader/taxonomy"
	"github.com/biodiversity-downloads/downloader/web"
)

// backboneCut is GBIF's backbone cut the taxonomy tests load
// (taxonomy/testdata/SOURCES.md); the keys below are its backbone keys.
var backboneCut = filepath.Join("..", "taxonomy", "testdata", "gbif-backbone-cut.zip")

// startSpeciesServer serves the species API of a taxonomy directory with
// the backbone cut loaded; it returns the base URL and the directory.
func startSpeciesServer(t *testing.T) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "taxonomy")
	if _, err := taxonomy.Load(context.Background(), dir, backboneCut, taxonomy.LoadOptions{Logger: testLogger(t)}); err != nil {
		t.Fatal(err)
	}
	src := species.NewDir(dir, testLogger(t))
	t.Cleanup(func() { _ = src.Close() })
	hs := httptest.NewServer(web.New(nil, nil, web.Config{Species: species.New(src)}, testLogger(t)))
	t.Cleanup(hs.Close)
	return hs.URL, dir
}

// getStatus GETs u and returns the status and body.
func getStatus(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, b := get(t, u)
	return resp.StatusCode, string(b)
}

type matchV1 struct {
	UsageKey, AcceptedUsageKey                                     int64
	ScientificName, CanonicalName, Rank, Status, MatchType, Note   string
	Confidence                                                     int
	Synonym                                                        bool
	Kingdom, Phylum, Class, Order, Family, Genus, Species          string
	KingdomKey, PhylumKey, ClassKey, OrderKey, FamilyKey, GenusKey int64
	SpeciesKey                                                     int64
	Alternatives                                                   []matchV1
}

// TestSpeciesMatch asks /v1/species/match what GBIF's backbone matcher
// answers for the cut's names (the keys are GBIF's): an exact name, a
// misspelling, a synonym (its accepted usage's classification), a homonym
// across kingdoms separated by the kingdom given, a name matched at a
// higher rank, strict and usageKey.
func TestSpeciesMatch(t *testing.T) {
	base, _ := startSpeciesServer(t)
	puma := []int64{1, 44, 359, 732, 9703, 2435098, 2435099}
	pumaGenus := []int64{1, 44, 359, 732, 9703, 2435098, 0}
	cases := []struct {
		query              string
		key, accepted      int64
		typ, status, canon string
		synonym            bool
		classKeys          []int64 // kingdom..species keys (0: none)
	}{
		{"name=Puma%20concolor", 2435099, 0, "EXACT", "ACCEPTED", "Puma concolor", false, puma},
		{"name=Puma%20concolor%20(Linnaeus,%201771)&kingdom=Animalia", 2435099, 0, "EXACT", "ACCEPTED", "Puma concolor", false, puma},
		{"name=Pumma%20concolor", 2435099, 0, "FUZZY", "ACCEPTED", "Puma concolor", false, puma},
		{"name=Felis%20concolor", 2435104, 2435099, "EXACT", "SYNONYM", "Felis concolor", true, puma},
		{"scientificName=Felis%20concolor&scientificNameAuthorship=Linnaeus,%201771", 2435104, 2435099, "EXACT", "SYNONYM", "Felis concolor", true, puma},
		{"name=Oenanthe&kingdom=Plantae", 3034893, 0, "EXACT", "ACCEPTED", "Oenanthe", false, []int64{6, 49, 220, 1351, 6720, 3034893, 0}},
		{"name=Oenanthe&kingdom=Animalia", 2492483, 0, "EXACT", "ACCEPTED", "Oenanthe", false, []int64{1, 44, 212, 729, 9322, 2492483, 0}},
		{"name=Puma%20inventa&kingdom=Animalia&family=Felidae", 2435098, 0, "HIGHERRANK", "ACCEPTED", "Puma", false, pumaGenus},
		{"name=Puma&rank=genus", 2435098, 0, "EXACT", "ACCEPTED", "Puma", false, pumaGenus},
		{"usageKey=2435104", 2435104, 2435099, "EXACT", "SYNONYM", "Felis concolor", true, puma},
		{"name=Puma%20inventa&kingdom=Animalia&family=Felidae&strict=true", 0, 0, "NONE", "", "", false, make([]int64, 7)},
		{"name=Oenanthe", 0, 0, "NONE", "", "", false, make([]int64, 7)},
		{"name=Xyzzyx%20plugh", 0, 0, "NONE", "", "", false, make([]int64, 7)},
	}
	for _, c := range cases {
		var m matchV1
		getJSON(t, base+"/v1/species/match?"+c.query, &m)
		got := []int64{m.KingdomKey, m.PhylumKey, m.ClassKey, m.OrderKey, m.FamilyKey, m.GenusKey, m.SpeciesKey}
		if m.UsageKey != c.key || m.AcceptedUsageKey != c.accepted || m.MatchType != c.typ || m.Status != c.status ||
			m.CanonicalName != c.canon || m.Synonym != c.synonym || !slices.Equal(got, c.classKeys) {
			t.Errorf("match %s: %+v", c.query, m)
		}
		if c.key != 0 && (m.Confidence < 50 || m.Confidence > 100 || m.Rank == "" || m.ScientificName == "") {
			t.Errorf("match %s: confidence %d, rank %q, name %q", c.query, m.Confidence, m.Rank, m.ScientificName)
		}
		if c.key == 2435099 && (m.Kingdom != "Animalia" || m.Class != "Mammalia" || m.Family != "Felidae" || m.Species != "Puma concolor") {
			t.Errorf("match %s: classification names %+v", c.query, m)
		}
	}
	// verbose: the homonym's two genera are the alternatives
	var m matchV1
	getJSON(t, base+"/v1/species/match?name=Oenanthe&verbose=true", &m)
	var alts []int64
	for _, a := range m.Alternatives {
		alts = append(alts, a.UsageKey)
	}
	slices.Sort(alts)
	if m.MatchType != "NONE" || !slices.Equal(alts, []int64{2492483, 3034893}) {
		t.Errorf("verbose Oenanthe: %s, alternatives %v", m.MatchType, alts)
	}
	for _, bad := range []struct{ query, param string }{
		{"name=Puma&strict=maybe", "strict"}, {"name=Puma&verbose=2", "verbose"},
		{"name=Puma&rank=rankless", "rank"}, {"name=Puma&exclude=1", "exclude"},
	} {
		if code, body := getStatus(t, base+"/v1/species/match?"+bad.query); code != http.StatusBadRequest || !strings.Contains(body, bad.param) {
			t.Errorf("match %s: %d %q, want 400 naming %s", bad.query, code, body, bad.param)
		}
	}
}

// TestSpeciesMatchV2 asks /v2/species/match (pygbif 0.7's name_backbone):
// the synonym's usage, its accepted usage and the classification.
func TestSpeciesMatchV2(t *testing.T) {
	base, _ := startSpeciesServer(t)
	var m struct {
		Usage, AcceptedUsage *struct{ Key, Name, CanonicalName, Rank, Status, GenericName, SpecificEpithet string }
		Classification       []struct{ Key, Name, Rank string }
		Diagnostics          struct {
			MatchType  string
			Confidence int
		}
		Synonym bool
	}
	getJSON(t, base+"/v2/species/match?scientificName=Felis%20concolor&checklistKey=7ddf754f-d193-4cc9-b351-99906754a03b", &m)
	if m.Usage == nil || m.AcceptedUsage == nil || m.Usage.Key != "2435104" || m.Usage.Status != "SYNONYM" || m.Usage.GenericName != "Felis" ||
		m.Usage.SpecificEpithet != "concolor" || m.AcceptedUsage.Key != "2435099" || !m.Synonym || m.Diagnostics.MatchType != "EXACT" {
		t.Fatalf("v2 match: %+v usage %+v accepted %+v", m, m.Usage, m.AcceptedUsage)
	}
	var keys []string
	for _, c := range m.Classification {
		keys = append(keys, c.Key)
	}
	if !slices.Equal(keys, []string{"1", "44", "359", "732", "9703", "2435098", "2435099"}) || m.Classification[6].Rank != "SPECIES" {
		t.Fatalf("v2 classification %+v", m.Classification)
	}
	var none struct {
		Usage       any
		Diagnostics struct{ MatchType string }
	}
	getJSON(t, base+"/v2/species/match?scientificName=Xyzzyx%20plugh", &none)
	if none.Usage != nil || none.Diagnostics.MatchType != "NONE" {
		t.Fatalf("v2 no match: %+v", none)
	}
}

type nameUsage struct {
	Key, ParentKey, AcceptedKey, NubKey, SpeciesKey, GenusKey int64
	ScientificName, CanonicalName, Parent, Accepted, Rank     string
	TaxonomicStatus, Origin, DatasetKey, Species              string
	NumDescendants                                            int
	Issues                                                    []string
}

// TestSpeciesUsage reads /v1/species/{key} of an accepted name and a
// synonym (GBIF's: its parentKey is its accepted usage's parent), the 404
// of an unknown key and the 400 of a key that is no number.
func TestSpeciesUsage(t *testing.T) {
	base, _ := startSpeciesServer(t)
	var u nameUsage
	getJSON(t, base+"/v1/species/2435099", &u)
	if u.Key != 2435099 || u.ParentKey != 2435098 || u.Parent != "Puma" || u.AcceptedKey != 0 || u.Rank != "SPECIES" ||
		u.TaxonomicStatus != "ACCEPTED" || u.ScientificName != "Puma concolor (Linnaeus, 1771)" || u.SpeciesKey != 2435099 ||
		u.NubKey != 2435099 || u.DatasetKey != "d7dddbf4-2cf0-4f39-9b2a-bb099caae36c" || u.Origin != "SOURCE" || u.Issues == nil {
		t.Errorf("species/2435099: %+v", u)
	}
	var syn nameUsage
	getJSON(t, base+"/v1/species/2435104", &syn)
	if syn.AcceptedKey != 2435099 || syn.Accepted != "Puma concolor (Linnaeus, 1771)" || syn.ParentKey != 2435098 ||
		syn.TaxonomicStatus != "SYNONYM" || syn.Species != "Puma concolor" || syn.CanonicalName != "Felis concolor" {
		t.Errorf("species/2435104 (a synonym): %+v", syn)
	}
	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{"/v1/species/99999999", 404, "99999999"}, {"/v1/species/99999999/children", 404, "99999999"},
		{"/v1/species/99999999/parents", 404, "99999999"}, {"/v1/species/puma", 400, "usageKey"},
		{"/v1/species/9703/children?limit=x", 400, "limit"}, {"/v1/species/9703/children?offset=-1", 400, "offset"},
		{"/v1/species/suggest", 400, "q"}, {"/v1/species/suggest?q=Puma&rank=nonsense", 400, "rank"},
	} {
		if code, body := getStatus(t, base+c.path); code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("GET %s: %d %q, want %d naming %s", c.path, code, body, c.code, c.want)
		}
	}
}

type usagePage struct {
	Offset, Limit int
	EndOfRecords  bool
	Results       []nameUsage
}

// children pages through /v1/species/{key}/children.
func children(t *testing.T, base string, key int64, limit int) []nameUsage {
	t.Helper()
	var all []nameUsage
	for offset := 0; ; offset += limit {
		var p usagePage
		getJSON(t, base+"/v1/species/"+itoa(key)+"/children?limit="+itoa(int64(limit))+"&offset="+itoa(int64(offset)), &p)
		if p.Offset != offset || p.Limit != limit || len(p.Results) > limit {
			t.Fatalf("children of %d at %d: offset %d limit %d, %d results", key, offset, p.Offset, p.Limit, len(p.Results))
		}
		all = append(all, p.Results...)
		if p.EndOfRecords {
			return all
		}
		if len(p.Results) == 0 {
			t.Fatalf("children of %d: an empty page at %d before the end", key, offset)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSpeciesChildrenAndParents pages through the children of the cat
// family, two at a time, and checks them against the parents route and
// the descendant count: the family's numDescendants equals the accepted
// taxa found by walking its children down, and every child's parents end
// with the family.
func TestSpeciesChildrenAndParents(t *testing.T) {
	base, _ := startSpeciesServer(t)
	var walk func(key int64) int
	walk = func(key int64) int {
		n := 0
		for _, c := range children(t, base, key, 50) {
			if c.ParentKey != key || c.TaxonomicStatus == "SYNONYM" {
				t.Fatalf("child %d of %d: parent %d, %s", c.Key, key, c.ParentKey, c.TaxonomicStatus)
			}
			n += 1 + walk(c.Key)
		}
		return n
	}
	kids := children(t, base, 9703, 2)
	if len(kids) < 3 {
		t.Fatalf("Felidae has %d children", len(kids))
	}
	for i := 1; i < len(kids); i++ {
		if a, b := kids[i-1], kids[i]; a.Rank == b.Rank && a.ScientificName > b.ScientificName {
			t.Errorf("children out of order: %s before %s", a.ScientificName, b.ScientificName)
		}
	}
	var fam nameUsage
	getJSON(t, base+"/v1/species/9703", &fam)
	if n := walk(9703); fam.NumDescendants != n || n < len(kids) {
		t.Errorf("Felidae: numDescendants %d, walked %d", fam.NumDescendants, n)
	}
	var parents []nameUsage
	getJSON(t, base+"/v1/species/"+itoa(kids[0].Key)+"/parents", &parents)
	if len(parents) == 0 || parents[len(parents)-1].Key != 9703 || parents[0].Rank != "KINGDOM" {
		t.Errorf("parents of %d: %+v", kids[0].Key, parents)
	}
	for _, key := range []string{"2435099", "2435104"} { // a species and its synonym
		var ps []nameUsage
		getJSON(t, base+"/v1/species/"+key+"/parents", &ps)
		var keys []int64
		for _, p := range ps {
			keys = append(keys, p.Key)
		}
		if !slices.Equal(keys, []int64{1, 44, 359, 732, 9703, 2435098}) {
			t.Errorf("parents of %s: %v", key, keys)
		}
	}
	var syns usagePage
	getJSON(t, base+"/v1/species/2435099/synonyms", &syns)
	if len(syns.Results) == 0 || !syns.EndOfRecords || !slices.ContainsFunc(syns.Results, func(u nameUsage) bool { return u.Key == 2435104 }) {
		t.Errorf("synonyms of Puma concolor: %+v", syns)
	}
}

type suggestion struct {
	Key                                 int64
	ScientificName, CanonicalName, Rank string
	Status                              string
	Synonym                             bool
	GenusKey, FamilyKey                 int64
}

// TestSpeciesSuggest asks /v1/species/suggest as pygbif's name_suggest
// does: names starting with q, the name itself first, a rank filter and
// paging.
func TestSpeciesSuggest(t *testing.T) {
	base, _ := startSpeciesServer(t)
	var all []suggestion
	getJSON(t, base+"/v1/species/suggest?q=puma&limit=100", &all)
	if len(all) < 2 || all[0].Key != 2435098 || all[0].Rank != "GENUS" || all[0].FamilyKey != 9703 {
		t.Fatalf("suggest puma: %+v", all)
	}
	for _, s := range all {
		if !strings.HasPrefix(strings.ToLower(s.CanonicalName), "puma") {
			t.Errorf("suggest puma: %+v", s)
		}
	}
	if !slices.ContainsFunc(all, func(s suggestion) bool { return s.Key == 2435099 && s.GenusKey == 2435098 && !s.Synonym }) {
		t.Errorf("suggest puma has no Puma concolor: %+v", all)
	}
	var felis []suggestion
	getJSON(t, base+"/v1/species/suggest?q=Felis%20conc", &felis)
	if len(felis) != 1 || felis[0].Key != 2435104 || !felis[0].Synonym || felis[0].Status != "SYNONYM" {
		t.Errorf("suggest Felis conc: %+v", felis)
	}
	var sp []suggestion
	getJSON(t, base+"/v1/species/suggest?q=Puma&rank=species", &sp)
	if len(sp) == 0 || len(sp) >= len(all) {
		t.Errorf("suggest Puma rank species: %d of %d", len(sp), len(all))
	}
	for _, s := range sp {
		if s.Rank != "SPECIES" {
			t.Errorf("suggest rank=species: %+v", s)
		}
	}
	var page []suggestion
	getJSON(t, base+"/v1/species/suggest?q=puma&limit=1&offset=1", &page)
	if len(page) != 1 || page[0].Key != all[1].Key {
		t.Errorf("suggest page 2 of 1: %+v, all %+v", page, all[:2])
	}
}

// TestSpeciesReload loads another checklist while the server runs: the
// next request answers from it.
func TestSpeciesReload(t *testing.T) {
	base, dir := startSpeciesServer(t)
	var m matchV1
	getJSON(t, base+"/v1/species/match?name=Puma%20concolor", &m)
	if m.UsageKey != 2435099 {
		t.Fatalf("before the reload: %+v", m)
	}
	arch := t.TempDir()
	meta := `<archive xmlns="http://rs.tdwg.org/dwc/text/"><core encoding="UTF-8" fieldsTerminatedBy="\t" linesTerminatedBy="\n" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Taxon"><files><location>taxa.txt</location></files><id index="0"/>` +
		`<field index="0" term="http://rs.tdwg.org/dwc/terms/taxonID"/><field index="1" term="http://rs.tdwg.org/dwc/terms/parentNameUsageID"/>` +
		`<field index="2" term="http://rs.tdwg.org/dwc/terms/scientificName"/><field index="3" term="http://rs.tdwg.org/dwc/terms/taxonRank"/></core></archive>`
	rows := "taxonID\tparentNameUsageID\tscientificName\ttaxonRank\n1\t\tAnimalia\tkingdom\n9703\t1\tFelidae\tfamily\n2435098\t9703\tPuma\tgenus\n" +
		"8000001\t2435098\tPuma nova Novus, 2026\tspecies\n"
	writeFile(t, filepath.Join(arch, "meta.xml"), meta)
	writeFile(t, filepath.Join(arch, "taxa.txt"), rows)
	if _, err := taxonomy.Load(context.Background(), dir, arch, taxonomy.LoadOptions{Key: "reloaded"}); err != nil {
		t.Fatal(err)
	}
	getJSON(t, base+"/v1/species/match?name=Puma%20nova", &m)
	if m.UsageKey != 8000001 || m.MatchType != "EXACT" || m.GenusKey != 2435098 {
		t.Fatalf("after the reload, Puma nova: %+v", m)
	}
	getJSON(t, base+"/v1/species/match?name=Puma%20concolor&strict=true", &m)
	if m.UsageKey == 2435099 || m.MatchType != "NONE" {
		t.Fatalf("after the reload, Puma concolor: %+v", m)
	}
	if code, _ := getStatus(t, base+"/v1/species/2435099"); code != http.StatusNotFound {
		t.Fatalf("after the reload, species/2435099: %d", code)
	}
}

// TestSpeciesWithoutTaxonomy: a server without a species service answers
// its routes 503 with the reason.
func TestSpeciesWithoutTaxonomy(t *testing.T) {
	hs := httptest.NewServer(web.New(nil, nil, web.Config{}, testLogger(t)))
	defer hs.Close()
	if code, body := getStatus(t, hs.URL+"/v1/species/match?name=Puma"); code != http.StatusServiceUnavailable || !strings.Contains(body, "taxonomy") {
		t.Fatalf("no species service: %d %q", code, body)
	}
}
