package taxonomy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

func TestDerivedKeysStable(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenDerived(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	puma := Query{ScientificName: "Puma concolor (Linnaeus, 1771)", Kingdom: "Animalia", Phylum: "Chordata", Class: "Mammalia",
		Order: "Carnivora", Family: "Felidae", Genus: "Puma"}
	m, err := d.Match(ctx, puma)
	if err != nil {
		t.Fatal(err)
	}
	if m.Type != MatchExact || m.Usage.CanonicalName != "Puma concolor" || m.Usage.Rank != RankSpecies || len(m.Classification) != 7 {
		t.Fatalf("match %+v %+v %v", m, m.Usage, m.Classification)
	}
	if m.Usage.Authorship != "(Linnaeus, 1771)" {
		t.Errorf("authorship %q", m.Usage.Authorship)
	}
	pumaKey := m.Usage.Key
	genus, _ := m.Ranked(RankGenus)
	// the same species without a classification is the same taxon
	m2, _ := d.Match(ctx, Query{ScientificName: "Puma concolor"})
	if m2.Usage.Key != pumaKey {
		t.Errorf("Puma concolor without classification: key %d, want %d", m2.Usage.Key, pumaKey)
	}
	// a homonym genus in another kingdom is another taxon
	oenA, _ := d.Match(ctx, Query{ScientificName: "Oenanthe", Kingdom: "Animalia", Genus: "Oenanthe"})
	oenP, _ := d.Match(ctx, Query{ScientificName: "Oenanthe aquatica", Kingdom: "Plantae"})
	g, _ := oenP.Ranked(RankGenus)
	if oenA.Usage.Key == g.Key || oenA.Usage.Rank != RankGenus {
		t.Errorf("homonym genera share key %d", g.Key)
	}
	// ambiguous without kingdom: a genus of its own, not one of the two
	oenX, _ := d.Match(ctx, Query{ScientificName: "Oenanthe"})
	if oenX.Usage.Key == g.Key || oenX.Usage.Key == oenA.Usage.Key {
		t.Errorf("kingdom-less Oenanthe took a kingdom's genus")
	}
	if none, _ := d.Match(ctx, Query{}); none.Type != MatchNone || len(none.TaxonKeys()) != 1 || none.TaxonKeys()[0] != 0 {
		t.Errorf("empty query: %+v", none)
	}
	// concurrent callers agree on keys
	var wg sync.WaitGroup
	keys := make([]int64, 8)
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, _ := d.Match(ctx, Query{ScientificName: "Lynx lynx", Kingdom: "Animalia", Family: "Felidae"})
			keys[i] = m.Usage.Key
		}()
	}
	wg.Wait()
	for _, k := range keys {
		if k != keys[0] {
			t.Fatalf("concurrent matches minted different keys: %v", keys)
		}
	}
	n := d.Len()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	// a torn last line (a crash while appending) is dropped on open
	f, _ := os.OpenFile(filepath.Join(dir, derivedName), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("999\t1\tSPECIES\tANIMALIA\tTorn")
	f.Close()
	d2, err := OpenDerived(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if d2.Len() != n {
		t.Fatalf("reopened: %d taxa, want %d", d2.Len(), n)
	}
	m3, _ := d2.Match(ctx, puma)
	if m3.Usage.Key != pumaKey {
		t.Errorf("after reopening Puma concolor has key %d, want %d", m3.Usage.Key, pumaKey)
	}
	if g2, _ := m3.Ranked(RankGenus); g2.Key != genus.Key {
		t.Errorf("genus key changed: %d, want %d", g2.Key, genus.Key)
	}
	// new taxa get new keys, never old ones
	m4, _ := d2.Match(ctx, Query{ScientificName: "Felis catus", Kingdom: "Animalia", Family: "Felidae"})
	if m4.Usage.Key <= int64(n) {
		t.Errorf("new taxon got key %d, want > %d", m4.Usage.Key, n)
	}
	if ch := d2.Children(genus.Key); len(ch) != 1 || ch[0].Key != pumaKey {
		t.Errorf("children of Puma: %v", ch)
	}
	if s := d2.Suggest("pum", 5); len(s) != 2 || s[0].CanonicalName != "Puma" {
		t.Errorf("suggest pum: %v", s)
	}
}

// TestDerivedFindMintsNothing: Find answers what Match minted and
// ErrUnminted for the rest, leaving the taxonomy as it was; a kingdom-less
// name that only Match's "the only taxon of that name" rule resolves is
// left to Match (which taxa exist at that moment decides it).
func TestDerivedFindMintsNothing(t *testing.T) {
	d, err := OpenDerived(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	lynx := Query{ScientificName: "Lynx lynx", Kingdom: "Animalia", Family: "Felidae"}
	if _, err := d.Find(ctx, lynx); !errors.Is(err, ErrUnminted) || d.Len() != 0 {
		t.Fatalf("Find of a new taxon: %v, %d taxa; want ErrUnminted and none minted", err, d.Len())
	}
	m, err := d.Match(ctx, lynx)
	if err != nil {
		t.Fatal(err)
	}
	f, err := d.Finder().Match(ctx, lynx)
	if err != nil || f.Usage.Key != m.Usage.Key {
		t.Fatalf("Find after Match: %v key %v, want %d", err, f.Usage, m.Usage.Key)
	}
	bare := Query{ScientificName: "Lynx lynx"}
	if _, err := d.Find(ctx, bare); !errors.Is(err, ErrUnminted) {
		t.Errorf("Find of a kingdom-less name: %v, want ErrUnminted", err)
	}
	if mb, _ := d.Match(ctx, bare); mb.Usage.Key != m.Usage.Key {
		t.Errorf("Match of a kingdom-less name: key %d, want the only Lynx lynx %d", mb.Usage.Key, m.Usage.Key)
	}
	if none, err := d.Find(ctx, Query{}); err != nil || none.Type != MatchNone {
		t.Errorf("Find of an empty query: %+v %v, want MatchNone", none, err)
	}
}

// MatchUnminted mints from the levels Find parsed what Match mints from
// the query: the same keys, classification and names, in two taxonomies
// fed the same queries in the same order.
func TestDerivedMatchUnmintedAsMatch(t *testing.T) {
	ctx := context.Background()
	queries := []Query{
		{ScientificName: "Lynx lynx (Linnaeus, 1758)", Kingdom: "Animalia", Family: "Felidae"},
		{ScientificName: "Lynx pardinus", Kingdom: "Animalia", Family: "Felidae"},
		{ScientificName: "Puma concolor couguar", Kingdom: "Animalia"},
		{ScientificName: "Lynx lynx"},
		{Genus: "Abies", SpecificEpithet: "alba", Kingdom: "Plantae"},
		{ScientificName: "Felidae", Rank: "family"},
	}
	byMatch, err := OpenDerived(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer byMatch.Close()
	byLevels, err := OpenDerived(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer byLevels.Close()
	minted := 0
	for _, q := range queries {
		want, err := byMatch.Match(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := byLevels.Find(ctx, q)
		var ue *UnmintedError
		if errors.As(err, &ue) {
			minted++
			got, err = byLevels.MatchUnminted(ctx, ue)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: by levels %+v, by Match %+v", q, got, want)
		}
	}
	if minted < 4 || byLevels.Len() != byMatch.Len() {
		t.Errorf("%d queries minted by levels, %d and %d taxa", minted, byLevels.Len(), byMatch.Len())
	}
}

// appendLower lowers as strings.ToLower does, ASCII or not.
func TestAppendLower(t *testing.T) {
	for _, s := range []string{"", "Puma concolor", "ABIES", "Ærodramus", "Šarkia × İris", "a|b"} {
		if got := string(appendLower([]byte("x"), s)); got != "x"+strings.ToLower(s) {
			t.Errorf("appendLower(%q) = %q", s, got)
		}
	}
}

// TestDerivedTaxaCopyNames: a taxon minted from a record keeps copies of
// its names, not the record's row they were cut from (which would stay in
// memory as long as the taxonomy).
func TestDerivedTaxaCopyNames(t *testing.T) {
	d, err := OpenDerived(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	row := strings.Repeat("x", 4096) + "\tLynx lynx (Linnaeus, 1758)\tAnimalia\tFelidae\t" + strings.Repeat("y", 4096)
	cells := strings.Split(row, "\t")
	q := Query{ScientificName: cells[1], Kingdom: cells[2], Family: cells[3]}
	if _, err := d.Match(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	start := uintptr(unsafe.Pointer(unsafe.StringData(row)))
	inRow := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		return s != "" && p >= start && p < start+uintptr(len(row))
	}
	if d.Len() == 0 {
		t.Fatal("nothing minted")
	}
	for i, tx := range d.taxa {
		if inRow(tx.name) || inRow(tx.sci) || inRow(tx.kingdom) {
			t.Errorf("taxon %d (%s %q) keeps the record's row", i+1, tx.rank, tx.sci)
		}
	}
}
