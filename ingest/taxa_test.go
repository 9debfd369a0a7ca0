package ingest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
	"github.com/biodiversity-downloads/downloader/taxonomy"
)

const (
	messFile  = "testdata/taxa-mess.txt"
	backbone  = "../taxonomy/testdata/gbif-backbone-cut.zip"
	felidae   = 9703
	puma      = 2435098
	cougar    = 2435099 // Puma concolor
	cougarSyn = 2435104 // Felis concolor, a synonym of it
)

// messCases are the records of testdata/taxa-mess.txt and their match
// against the GBIF backbone cut (the facts of taxonomy's TestMatchRecords,
// as GBIF's matcher gives them): the usage, its accepted usage and the
// taxon issue. key 0 is no match (the kingdom incertae sedis).
var messCases = map[string]struct {
	key, accepted int64
	issue         string
}{
	"t01": {cougar, cougar, ""},                             // with authorship
	"t02": {cougar, cougar, ""},                             // authorship variant
	"t03": {cougar, cougar, ""},                             // authorship in its own term
	"t04": {cougar, cougar, taxonomy.IssueTaxonMatchFuzzy},  // misspelt
	"t05": {0, 0, taxonomy.IssueTaxonMatchNone},             // misspelt without higher taxa: GBIF's record rule
	"t06": {cougar, cougar, ""},                             // lower case
	"t07": {cougar, cougar, ""},                             // cf.
	"t08": {cougarSyn, cougar, ""},                          // synonym
	"t09": {cougarSyn, cougar, ""},                          // synonym with rank and classification
	"t10": {5219436, 5219436, ""},                           // Panthera pardus
	"t11": {5219436, 5219436, ""},                           //
	"t12": {puma, puma, taxonomy.IssueTaxonMatchHigherRank}, // unknown species of a known genus
	"t13": {puma, puma, taxonomy.IssueTaxonMatchHigherRank}, // Puma sp.
	"t14": {felidae, felidae, ""},                           // a family
	"t15": {felidae, felidae, ""},                           // only the family given
	"t16": {2685484, 2685484, ""},                           // Abies alba Mill.
	"t17": {7906030, 5284745, ""},                           // homonym by authorship: a spruce synonym
	"t18": {2685484, 2685484, ""},                           // hybrid marker
	"t19": {5945560, 5290052, ""},                           // infraspecific synonym
	"t20": {3034893, 3034893, ""},                           // Oenanthe, the plant
	"t21": {2492483, 2492483, ""},                           // Oenanthe, the bird
	"t22": {0, 0, taxonomy.IssueTaxonMatchNone},             // Oenanthe without a kingdom
	"t23": {0, 0, taxonomy.IssueTaxonMatchNone},             // hybrid formula
	"t24": {0, 0, taxonomy.IssueTaxonMatchNone},             // nonsense
	"t25": {5219436, 5219436, ""},                           //
}

// taxonRow is what a test reads back of a record.
type taxonRow struct {
	taxonKey, acceptedKey, familyKey, kingdomKey int64
	hasTaxonKey                                  bool
	sci, kingdom, issue, verbatimSci, verbatim   string
	taxonomicIssue                               string
}

var taxonRowColumns = []string{occurrence.ColOccurrenceID, occurrence.ColTaxonKey, occurrence.ColAcceptedTaxonKey,
	occurrence.ColFamilyKey, occurrence.ColKingdomKey, occurrence.ColScientificName, occurrence.ColKingdom,
	occurrence.ColIssue, occurrence.ColVerbatimScientificName, occurrence.ColVerbatim, "taxonomicIssue"}

// taxonRows reads the records of a snapshot by occurrenceID.
func taxonRows(t *testing.T, tbl occurrence.Table, snap occurrence.Snapshot) map[string]taxonRow {
	t.Helper()
	out := map[string]taxonRow{}
	_, err := occurrence.Scan(context.Background(), tbl, snap, occurrence.ScanRequest{Columns: taxonRowColumns}, occurrence.ScanOptions{},
		func(b arrow.RecordBatch) error {
			i64 := func(c, i int) (int64, bool) {
				a := b.Column(c).(*array.Int64)
				return a.Value(i), a.IsValid(i)
			}
			s := func(c, i int) string {
				a := b.Column(c).(*array.String)
				if a.IsNull(i) {
					return ""
				}
				return a.Value(i)
			}
			for i := 0; i < int(b.NumRows()); i++ {
				var r taxonRow
				r.taxonKey, r.hasTaxonKey = i64(1, i)
				r.acceptedKey, _ = i64(2, i)
				r.familyKey, _ = i64(3, i)
				r.kingdomKey, _ = i64(4, i)
				r.sci, r.kingdom, r.issue, r.verbatimSci, r.verbatim = s(5, i), s(6, i), s(7, i), s(8, i), s(9, i)
				r.taxonomicIssue = s(10, i)
				out[s(0, i)] = r
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// messInput reads testdata/taxa-mess.txt: occurrenceID -> scientificName.
func messInput(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(messFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		out[fields[0]] = fields[2]
	}
	return out
}

// loadBackbone publishes the backbone cut in dir.
func loadBackbone(t *testing.T, dir string) {
	t.Helper()
	if _, err := taxonomy.Load(context.Background(), dir, backbone, taxonomy.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
}

// ingestMess loads testdata/taxa-mess.txt into tbl, matched by taxa.
func ingestMess(t *testing.T, tbl Table, taxa *Taxa) Result {
	t.Helper()
	ctx := context.Background()
	src, err := Open(ctx, messFile, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	res, err := Load(ctx, tbl, src, Options{Taxa: taxa, DatasetKey: "5a1e3c4b-0000-4000-8000-00000000taxa"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// openStoreIn opens an embedded table in a new directory and returns both.
func openStoreIn(t *testing.T) (*parquet.Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := parquet.Open(dir, parquet.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

func TestTaxaIngest(t *testing.T) {
	s, dir := openStoreIn(t)
	testTaxaIngest(t, s, dir)
}

// TestTaxaIngestHBase runs the same on an HBase table, its taxonomy in a
// directory of its own (what `ingest --taxonomy DIR` gives).
func TestTaxaIngestHBase(t *testing.T) {
	testTaxaIngest(t, hbaseTable(t), t.TempDir())
}

// hbaseTable creates an HBase table dropped when the test ends; the test
// skips without HBASE_MASTER (scripts/hbase/start.sh), or fails under CI.
func hbaseTable(t *testing.T) *hbase.Store {
	t.Helper()
	master := testenv.HBaseMaster(t)
	ctx := context.Background()
	tbl, err := hbase.OpenConfig(ctx, hbase.Config{Master: master, Table: fmt.Sprintf("taxa_test_%d", time.Now().UnixNano()%1e12), Buckets: 4},
		slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tbl.Drop(context.Background()); err != nil {
			t.Error(err)
		}
		tbl.Close()
	})
	return tbl
}

// testTaxaIngest ingests the messy records against the backbone cut and
// asserts each match, the verbatim values, and that taxon predicates count
// a taxon's records with its descendants' and its synonyms'.
func testTaxaIngest(t *testing.T, tbl interface {
	Table
	occurrence.Table
}, tableDir string) {
	dir := filepath.Join(tableDir, "taxonomy")
	loadBackbone(t, dir)
	taxa, err := OpenTaxa(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer taxa.Close()
	res := ingestMess(t, tbl, taxa)
	if res.Records != int64(len(messCases)) {
		t.Fatalf("%d records, want %d", res.Records, len(messCases))
	}
	snap, err := tbl.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rows := taxonRows(t, tbl, snap)
	checkMess(t, rows)

	// TAXON_KEY of the family counts the records of every taxon under it,
	// computed here from the input: the expected usage's accepted
	// classification, read from the checklist, holds the family.
	c, err := taxonomy.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	under := func(key int64) (n int64) {
		for _, want := range messCases {
			if want.key == 0 {
				continue
			}
			for _, tx := range c.Classification(want.accepted) {
				if tx.Key == key {
					n++
					break
				}
			}
			if want.key == key && want.key != want.accepted {
				n++ // a synonym's own key
			}
		}
		return n
	}
	for _, tc := range []struct {
		pred string
		want int64
	}{
		{fmt.Sprintf(`{"type":"equals","key":"TAXON_KEY","value":"%d"}`, felidae), under(felidae)},
		{fmt.Sprintf(`{"type":"equals","key":"FAMILY_KEY","value":"%d"}`, felidae), under(felidae)},
		{fmt.Sprintf(`{"type":"equals","key":"TAXON_KEY","value":"%d"}`, puma), under(puma)},
		// synonym records count under the accepted species
		{fmt.Sprintf(`{"type":"equals","key":"TAXON_KEY","value":"%d"}`, cougar), under(cougar)},
		{fmt.Sprintf(`{"type":"equals","key":"SPECIES_KEY","value":"%d"}`, cougar), under(cougar)},
		{fmt.Sprintf(`{"type":"equals","key":"TAXON_KEY","value":"%d"}`, cougarSyn), 2},
		{`{"type":"equals","key":"TAXON_KEY","value":"6"}`, under(6)},     // Plantae
		{`{"type":"equals","key":"TAXON_KEY","value":"212"}`, under(212)}, // Aves
		{`{"type":"equals","key":"ISSUE","value":"TAXON_MATCH_NONE"}`, 4},
		{`{"type":"equals","key":"TAXONOMIC_ISSUE","value":"TAXON_MATCH_NONE"}`, withIssue(taxonomy.IssueTaxonMatchNone)},
		{`{"type":"equals","key":"TAXONOMIC_ISSUE","value":"TAXON_MATCH_FUZZY"}`, withIssue(taxonomy.IssueTaxonMatchFuzzy)},
	} {
		if n := countIn(t, tbl, snap, tc.pred); n != tc.want {
			t.Errorf("%s: %d records, want %d", tc.pred, n, tc.want)
		}
	}
	if n := under(felidae); n != 15 {
		t.Errorf("the input has %d Felidae records, want 15 (t01-t04, t06-t15, t25)", n)
	}
}

// withIssue counts the mess cases expecting a taxon issue.
func withIssue(issue string) (n int64) {
	for _, c := range messCases {
		if c.issue == issue {
			n++
		}
	}
	return n
}

// checkMess asserts the match of every record of testdata/taxa-mess.txt.
func checkMess(t *testing.T, rows map[string]taxonRow) {
	t.Helper()
	input := messInput(t)
	for id, want := range messCases {
		r, ok := rows[id]
		if !ok {
			t.Errorf("%s: not in the table", id)
			continue
		}
		var issues []string
		if r.issue != "" {
			issues = strings.Split(r.issue, ";")
		}
		taxonIssues := slices.DeleteFunc(slices.Clone(issues), func(s string) bool { return !strings.HasPrefix(s, "TAXON_MATCH_") })
		wantIssues := []string{}
		if want.issue != "" {
			wantIssues = []string{want.issue}
		}
		if !r.hasTaxonKey || r.taxonKey != want.key || r.acceptedKey != want.accepted || !slices.Equal(taxonIssues, wantIssues) {
			t.Errorf("%s %q: taxonKey %d (set %v) accepted %d issues %q; want %d, %d, %q", id, input[id], r.taxonKey, r.hasTaxonKey,
				r.acceptedKey, taxonIssues, want.key, want.accepted, wantIssues)
		}
		if r.taxonomicIssue != want.issue {
			t.Errorf("%s: taxonomicIssue %q, want %q", id, r.taxonomicIssue, want.issue)
		}
		if want.key == 0 && (r.kingdom != "incertae sedis" || r.kingdomKey != 0) {
			t.Errorf("%s: unmatched record has kingdom %q (%d), want GBIF's incertae sedis (0)", id, r.kingdom, r.kingdomKey)
		}
		// the source's values stay verbatim
		var verbatim map[string]string
		if err := json.Unmarshal([]byte(r.verbatim), &verbatim); err != nil {
			t.Fatalf("%s: verbatim %q: %v", id, r.verbatim, err)
		}
		if verbatim["scientificName"] != input[id] || r.verbatimSci != input[id] {
			t.Errorf("%s: verbatim scientificName %q, verbatimScientificName %q; want %q", id, verbatim["scientificName"], r.verbatimSci, input[id])
		}
	}
	if r := rows["t04"]; r.sci != "Puma concolor (Linnaeus, 1771)" {
		t.Errorf("t04: interpreted scientificName %q, want the backbone's", r.sci)
	}
}

func countIn(t *testing.T, tbl occurrence.Table, snap occurrence.Snapshot, js string) int64 {
	t.Helper()
	pred, err := occurrence.ParsePredicateJSON([]byte(js), occurrence.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := occurrence.Count(context.Background(), tbl, snap, pred, occurrence.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTaxaDerived: without a checklist the records' own classifications
// give the keys, the same on a re-ingest.
func TestTaxaDerived(t *testing.T) {
	s, tdir := openStoreIn(t)
	dir := filepath.Join(tdir, "taxonomy")
	keysOf := func() map[string]taxonRow {
		taxa, err := OpenTaxa(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer taxa.Close()
		if !strings.HasPrefix(taxa.Describe(), "derived") {
			t.Fatalf("taxonomy %s, want the derived one", taxa.Describe())
		}
		ingestMess(t, s, taxa)
		snap, err := s.Snapshot(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return taxonRows(t, s, snap)
	}
	first := keysOf()
	again := keysOf()
	for id, r := range first {
		if !r.hasTaxonKey || r.taxonKey != again[id].taxonKey || r.familyKey != again[id].familyKey {
			t.Errorf("%s: taxonKey %d family %d, after re-ingest %d family %d", id, r.taxonKey, r.familyKey, again[id].taxonKey, again[id].familyKey)
		}
	}
	// A derived taxon keeps the parent it was first seen with: Puma
	// concolor first came (t01) with only its kingdom, Panthera pardus
	// (t10) with its family. So Felidae holds t10, t11, t14, t15 and t25.
	fam := first["t15"].taxonKey
	if fam == 0 || first["t10"].familyKey != fam || first["t01"].familyKey != 0 {
		t.Fatalf("derived Felidae %d, t10's family %d, t01's %d", fam, first["t10"].familyKey, first["t01"].familyKey)
	}
	snap, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := countIn(t, s, snap, fmt.Sprintf(`{"type":"equals","key":"TAXON_KEY","value":"%d"}`, fam)); n != 5 {
		t.Errorf("derived Felidae: %d records, want 5", n)
	}
	if first["t20"].taxonKey == first["t21"].taxonKey {
		t.Errorf("Oenanthe of plants and birds share the derived key %d", first["t20"].taxonKey)
	}
}

// TestReinterpret: a table ingested without a checklist (derived keys),
// then a checklist loaded and the table re-interpreted: every record gets
// the checklist's match in one new snapshot, while a download's pinned
// snapshot keeps reading the old keys.
func TestReinterpret(t *testing.T) {
	s, tdir := openStoreIn(t)
	testReinterpret(t, s, filepath.Join(tdir, "taxonomy"), true)
}

// TestReinterpretHBase: the same on HBase, which publishes dataset by
// dataset.
func TestReinterpretHBase(t *testing.T) {
	testReinterpret(t, hbaseTable(t), filepath.Join(t.TempDir(), "taxonomy"), false)
}

func testReinterpret(t *testing.T, s interface {
	Table
	ReinterpretTable
}, dir string, atomic bool) {
	ctx := context.Background()
	derived, err := OpenTaxa(dir)
	if err != nil {
		t.Fatal(err)
	}
	ingestMess(t, s, derived)
	// a second dataset: the same records under another key
	src, err := Open(ctx, messFile, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(ctx, s, src, Options{Taxa: derived, DatasetKey: "second"}); err != nil {
		t.Fatal(err)
	}
	src.Close()
	if err := derived.Close(); err != nil {
		t.Fatal(err)
	}
	old, release, err := occurrence.PinSnapshot(ctx, s, "a running download", time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	before := taxonRows(t, s, old)
	if before["t01"].taxonKey == cougar || !before["t01"].hasTaxonKey {
		t.Fatalf("t01 before the checklist: taxonKey %d (set %v), want a derived key", before["t01"].taxonKey, before["t01"].hasTaxonKey)
	}

	loadBackbone(t, dir)
	taxa, err := OpenTaxa(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer taxa.Close()
	res, err := Reinterpret(ctx, s, taxa)
	if err != nil {
		t.Fatal(err)
	}
	if res.Atomic != atomic || res.Datasets != 2 || res.Records != 2*int64(len(messCases)) || res.Issues[taxonomy.IssueTaxonMatchNone] != 8 {
		t.Fatalf("reinterpret: %+v; want 2 datasets, %d records in one snapshot, 8 TAXON_MATCH_NONE", res, 2*len(messCases))
	}
	oldN, _ := strconv.ParseInt(old.ID, 10, 64)
	newSnap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.ParseInt(newSnap.ID, 10, 64); atomic && (newSnap.ID != res.Snapshot || n != oldN+1) {
		t.Errorf("snapshot %s after re-interpretation (reported %s), want one step after %s: both datasets in one publication", newSnap.ID, res.Snapshot, old.ID)
	}
	checkMess(t, taxonRows(t, s, newSnap))
	if n := countIn(t, s, newSnap, fmt.Sprintf(`{"type":"equals","key":"TAXON_KEY","value":"%d"}`, felidae)); n != 30 {
		t.Errorf("Felidae after re-interpretation: %d records, want 2 x 15", n)
	}
	// the pinned snapshot still reads the derived keys
	after := taxonRows(t, s, old)
	for id, r := range before {
		if after[id] != r {
			t.Errorf("%s in the pinned snapshot changed: %+v, was %+v", id, after[id], r)
		}
	}
	// gbifIDs stay
	if a, b := gbifIDs(t, s, old), gbifIDs(t, s, newSnap); len(a) != 2*len(messCases) || !maps.Equal(a, b) {
		t.Errorf("gbifIDs: %d before, %d after re-interpretation, want the same %d", len(a), len(b), 2*len(messCases))
	}
}

// gbifIDs reads the gbifIDs of a snapshot.
func gbifIDs(t *testing.T, tbl occurrence.Table, snap occurrence.Snapshot) map[int64]bool {
	t.Helper()
	out := map[int64]bool{}
	_, err := occurrence.Scan(context.Background(), tbl, snap, occurrence.ScanRequest{Columns: []string{occurrence.ColGBIFID}}, occurrence.ScanOptions{},
		func(b arrow.RecordBatch) error {
			col := b.Column(0).(*array.Int64)
			for i := 0; i < col.Len(); i++ {
				out[col.Value(i)] = true
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// taxaSource yields n records naming 3,000 species in 300 genera, their
// genus names shared across the kingdoms Animalia and Plantae (homonyms),
// a third of the records without kingdom, in an order that names new
// taxa all through the input.
type taxaSource struct{ memSource }

func (s *taxaSource) Next(ctx context.Context) (occurrence.RawRecord, error) {
	raw, err := s.memSource.Next(ctx)
	if err != nil {
		return raw, err
	}
	sp := (s.i * 7919) % 3000
	genus, family := sp/10, sp/100
	kingdom := [...]string{"Animalia", "Plantae", ""}[(s.i+family)%3]
	g := "Genus" + strings.Repeat("a", 1+genus%50)
	raw.Core[occurrence.NSDwC+"scientificName"] = g + " species" + strconv.Itoa(sp)
	raw.Core[occurrence.NSDwC+"kingdom"] = kingdom
	if kingdom != "" {
		raw.Core[occurrence.NSDwC+"family"] = "Family" + strconv.Itoa(family) + "idae"
	}
	return raw, nil
}

// TestDerivedKeysDeterministic ingests the same records into fresh derived
// taxonomies on one worker and on eight: every record gets the same taxon
// key, the keys minted in source order whichever worker saw a taxon first.
func TestDerivedKeysDeterministic(t *testing.T) {
	const n = 24*chunkSize + 11
	ingestKeys := func(workers int) ([]int64, int) {
		taxa, err := OpenTaxa(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer taxa.Close()
		l := newMemLoader()
		if _, err := Load(context.Background(), l, &taxaSource{memSource{n: n}}, Options{Workers: workers, Taxa: taxa}); err != nil {
			t.Fatal(err)
		}
		return l.w.taxonKeys, taxa.derived.Len()
	}
	want, taxaN := ingestKeys(1)
	if len(want) != n || slices.Contains(want, 0) {
		t.Fatalf("%d records, keys %v..., want %d keyed", len(want), want[:min(len(want), 5)], n)
	}
	for round := range 3 {
		got, gotN := ingestKeys(8)
		if gotN != taxaN {
			t.Fatalf("round %d: %d taxa minted on 8 workers, %d on one", round, gotN, taxaN)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("round %d: record %d has taxonKey %d on 8 workers, %d on one", round, i+1, got[i], want[i])
			}
		}
	}
}
