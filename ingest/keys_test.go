package ingest

import (
	"archive/zip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/abcd"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

const keylessMeta = `<archive xmlns="http://rs.tdwg.org/dwc/text/" metadata="eml.xml"><core fieldsTerminatedBy="\t" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Occurrence"><files><location>occurrence.txt</location></files><id index="0"/><field index="0" term="http://rs.tdwg.org/dwc/terms/occurrenceID"/><field index="1" term="http://rs.tdwg.org/dwc/terms/scientificName"/></core></archive>`

// keylessEML has a title and no identifier (no packageId, no
// alternateIdentifier).
const keylessEML = `<eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1"><dataset><title>Occurrences</title></dataset></eml:eml>`

// writeDwCA writes a zip named name in a new folder holding meta.xml, an
// EML and data.
func writeDwCA(t *testing.T, name, eml, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, e := range [][2]string{{"meta.xml", keylessMeta}, {"eml.xml", eml}, {"occurrence.txt", data}} {
		w, _ := zw.Create(e[0])
		w.Write([]byte(e[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

func datasetKeys(t *testing.T, s interface {
	Datasets(context.Context) ([]occurrence.DatasetInfo, error)
}) []string {
	t.Helper()
	list, err := s.Datasets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, d := range list {
		keys = append(keys, d.Key)
	}
	return keys
}

// Two different archives, both named dwca.zip with the same title and no
// identifier, are two datasets: the second does not replace the first.
// Each loaded again (from its place, or copied elsewhere) replaces itself.
func TestKeylessArchivesSharingNameAndTitle(t *testing.T) {
	s := openStore(t)
	a := writeDwCA(t, "dwca.zip", keylessEML, "id\tname\na1\tAbies alba\na2\tPicea abies\n")
	b := writeDwCA(t, "dwca.zip", keylessEML, "id\tname\nb1\tQuercus robur\n")
	ra, err := load(t, s, a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := load(t, s, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ra.DatasetKey == rb.DatasetKey || ra.Title != "Occurrences" {
		t.Fatalf("two archives got key %s and %s (title %q)", ra.DatasetKey, rb.DatasetKey, ra.Title)
	}
	if n := count(t, s, ""); n != 3 {
		t.Fatalf("table holds %d records, want 2+1", n)
	}
	// a copy of a, elsewhere and renamed: the same dataset, replaced
	copyA := filepath.Join(t.TempDir(), "renamed.zip")
	data, _ := os.ReadFile(a)
	os.WriteFile(copyA, data, 0o644)
	for _, src := range []string{a, copyA} {
		r, err := load(t, s, src, Options{})
		if err != nil || r.DatasetKey != ra.DatasetKey {
			t.Fatalf("%s again: key %s, %v; want %s", src, r.DatasetKey, err, ra.DatasetKey)
		}
	}
	if keys := datasetKeys(t, s); len(keys) != 2 {
		t.Errorf("datasets %v, want 2", keys)
	}
	ds, err := s.Dataset(context.Background(), ra.DatasetKey)
	if err != nil || ds.Source != copyA || !strings.HasPrefix(ds.Fingerprint, "sha256:") {
		t.Errorf("dataset recorded %+v, %v; want the source %s and a fingerprint", ds, err, copyA)
	}
}

// The same ABCD document under four file names is one dataset, stored once.
func TestSameABCDUnderFourNames(t *testing.T) {
	s := openStore(t)
	doc, err := os.ReadFile(filepath.Join("..", "abcd", "testdata", "dissco-biocase-biologia.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(doc), "DatasetGUID") {
		t.Fatal("the sample must have no DatasetGUID for this test")
	}
	dir := t.TempDir()
	var key string
	for _, name := range []string{"a.xml", "b.xml", "response.00001.xml", "copy of a.xml"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, doc, 0o644)
		res, err := load(t, s, p, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if key == "" {
			key = res.DatasetKey
		} else if res.DatasetKey != key {
			t.Fatalf("%s: key %s, the first copy's %s", name, res.DatasetKey, key)
		}
	}
	if keys := datasetKeys(t, s); len(keys) != 1 {
		t.Fatalf("datasets %v, want one", keys)
	}
}

// A dataset the table holds from one source is not replaced by another
// source of the same key with other content: the error says which dataset
// and where it came from, and the table is unchanged; --replace allows it;
// the first source loaded again is a normal replace.
func TestReplaceFromAnotherOrigin(t *testing.T) {
	s := openStore(t)
	withKey := strings.Replace(keylessEML, "<eml:eml ", `<eml:eml packageId="6f3c3d1e-0b7a-4b4e-9a55-3a1d2c5e7f10/v1" `, 1)
	first := writeDwCA(t, "dwca.zip", withKey, "id\tname\na1\tAbies alba\na2\tPicea abies\n")
	other := writeDwCA(t, "export.zip", withKey, "id\tname\nz1\tZea mays\n")
	if _, err := load(t, s, first, Options{}); err != nil {
		t.Fatal(err)
	}
	_, err := load(t, s, other, Options{})
	var re *ReplaceError
	if !errors.As(err, &re) || !errors.Is(err, ErrReplace) || re.Key != "6f3c3d1e-0b7a-4b4e-9a55-3a1d2c5e7f10" ||
		!strings.Contains(err.Error(), "was loaded from "+first) || !strings.Contains(err.Error(), "loading "+other) ||
		!strings.Contains(err.Error(), "--replace") {
		t.Fatalf("another origin: %v", err)
	}
	if n := count(t, s, ""); n != 2 {
		t.Fatalf("after the refused load the table holds %d records, want the first 2", n)
	}
	if _, err := load(t, s, first, Options{}); err != nil {
		t.Fatalf("the first source again: %v", err)
	}
	if _, err := load(t, s, other, Options{Replace: true}); err != nil {
		t.Fatalf("--replace: %v", err)
	}
	if n := count(t, s, ""); n != 1 {
		t.Fatalf("after --replace the table holds %d records, want 1", n)
	}
	// --dataset-key loads it as another dataset; into an existing key from
	// elsewhere, it is refused too
	if _, err := load(t, s, first, Options{DatasetKey: "other"}); err != nil {
		t.Fatal(err)
	}
	if _, err := load(t, s, other, Options{DatasetKey: "other"}); !errors.Is(err, ErrReplace) {
		t.Fatalf("--dataset-key of another origin's dataset: %v", err)
	}
}

// A table written before keys were derived from content holds keyless
// datasets under a key hashed from title and file name: loading the same
// source keeps that key (and its records' gbifIDs) rather than adding a
// second copy under the new key.
func TestLegacyDerivedKeyKept(t *testing.T) {
	s := openStore(t)
	src := writeDwCA(t, "dwca.zip", keylessEML, "id\tname\na1\tAbies alba\n")
	old := legacyKey("Occurrences", src)
	// what an older version stored: the path as given, no fingerprint
	opened, err := Open(context.Background(), src, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Load(context.Background(), s, legacySource{opened}, Options{DatasetKey: old})
	opened.Close()
	if err != nil {
		t.Fatal(err)
	}
	res, err := load(t, s, src, Options{})
	if err != nil || res.DatasetKey != old {
		t.Fatalf("reload: key %s, %v; want the legacy %s", res.DatasetKey, err, old)
	}
	if keys := datasetKeys(t, s); len(keys) != 1 {
		t.Fatalf("datasets %v, want the legacy one only", keys)
	}
	// loaded again, it records its origin: another archive of that file
	// name and title is then a dataset of its own
	other := writeDwCA(t, "dwca.zip", keylessEML, "id\tname\nb1\tQuercus robur\n")
	if res, err := load(t, s, other, Options{}); err != nil || res.DatasetKey == old {
		t.Fatalf("another archive: key %s, %v", res.DatasetKey, err)
	}
}

// legacySource describes its dataset as older versions recorded it: the
// path as given and no fingerprint.
type legacySource struct{ Source }

func (l legacySource) Dataset() occurrence.DatasetInfo {
	d := l.Source.Dataset()
	d.Fingerprint, d.Source = "", filepath.Base(d.Source)
	return d
}

// The ABCD key without a DatasetGUID comes from identity metadata only:
// revision dates do not change it.
func TestABCDIdentityIgnoresRevisions(t *testing.T) {
	m := abcd.DatasetMeta{Title: "Herbarium", Owners: []abcd.Party{{Organisation: "Museum"}}, Modified: "2020-01-01"}
	k1, d1 := keyOf("", abcdIdentity(m))
	m.Modified, m.Contacts = "2024-05-05", []abcd.Party{{Person: "New curator"}}
	k2, _ := keyOf("", abcdIdentity(m))
	m.Title = "Other herbarium"
	k3, _ := keyOf("", abcdIdentity(m))
	if !d1 || k1 != k2 || k1 == k3 {
		t.Errorf("keys %s %s %s (derived %v)", k1, k2, k3, d1)
	}
	if abcdIdentity(abcd.DatasetMeta{}) != "" {
		t.Error("empty metadata has an identity")
	}
}

// A source without a readable record says why: the first document's error
// (its kind kept) or the first broken rows.
func TestNoRecordsSaysWhy(t *testing.T) {
	s := openStore(t)
	doc := filepath.Join(t.TempDir(), "entities.xml")
	os.WriteFile(doc, []byte("<?xml version=\"1.0\"?>\n<!DOCTYPE DataSets [<!ENTITY x \"boom\">]>\n<DataSets/>\n"), 0o644)
	_, err := load(t, s, doc, Options{})
	var nr *NoRecordsError
	if !errors.As(err, &nr) || !errors.Is(err, ErrNoRecords) || !errors.Is(err, abcd.ErrEntity) ||
		!strings.Contains(err.Error(), "entities.xml:2: entity declarations are not accepted") {
		t.Fatalf("entity document: %v", err)
	}
	// rows without an occurrence key: the error lists them
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "occurrence.csv"), []byte("scientificName,recordedBy\nAbies alba,Ann\nPicea abies,Bo\n"), 0o644)
	_, err = load(t, s, filepath.Join(dir, "occurrence.csv"), Options{})
	if !errors.As(err, &nr) || nr.Broken != 2 || !strings.Contains(err.Error(), occurrence.ErrNoOccurrenceKey.Error()) {
		t.Fatalf("keyless rows: %v", err)
	}
}
