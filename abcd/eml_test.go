package abcd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beevik/etree"
)

func TestWriteEML(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "gbif-crawler-dataset2.xml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReader(f, "dataset2.xml", Options{})
	if _, err := r.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	meta := r.Dataset()
	meta.LicenseURI = "http://creativecommons.org/licenses/by/4.0/"
	meta.Homepage = "https://example.org/phytoplankton"
	var buf bytes.Buffer
	if err := WriteEML(&buf, meta); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("<?xml")) {
		t.Errorf("EML does not start with <?xml")
	}
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(buf.Bytes()); err != nil {
		t.Fatalf("EML is not well-formed: %v\n%s", err, buf.String())
	}
	root := doc.Root()
	if root.FullTag() != "eml:eml" || root.SelectAttrValue("packageId", "") != "http://dx.doi.org/10.1234/doi" {
		t.Errorf("root %s packageId %q", root.FullTag(), root.SelectAttrValue("packageId", ""))
	}
	want := map[string]string{
		"dataset/alternateIdentifier":                      "http://dx.doi.org/10.1234/doi",
		"dataset/title":                                    "Collections of Phytoplankton at BGBM",
		"dataset/creator/organizationName":                 "Botanic Garden and Botanical Museum Berlin-Dahlem",
		"dataset/creator/individualName/surName":           "Dr. Regine Jahn",
		"dataset/creator/electronicMailAddress":            "r.jahn(at)bgbm.org",
		"dataset/metadataProvider/individualName/surName":  "Jörg Holetschek",
		"dataset/contact/individualName/surName":           "Dr. Regine Jahn",
		"dataset/pubDate":                                  "2013-08-30",
		"dataset/intellectualRights/para/ulink/citetitle":  "http://creativecommons.org/licenses/by/4.0/",
		"additionalMetadata/metadata/gbif/citation":        "Jahn, R. (Ed.) 2013+ (continuously updated): Collections of Phytoplankton at BGBM",
		"additionalMetadata/metadata/gbif/resourceLogoUrl": "http://ww3.bgbm.org/providerResources/BGBM.jpg",
	}
	for path, v := range want {
		e := root.FindElement(path)
		if e == nil || strings.TrimSpace(e.Text()) != v {
			t.Errorf("%s = %v, want %q", path, e, v)
		}
	}
	if u := root.FindElement("dataset/distribution[@scope='document']/online/url[@function='information']"); u == nil || u.Text() != meta.Homepage {
		t.Errorf("homepage distribution/online/url = %v, want %q", u, meta.Homepage)
	}
	if a := root.FindElement("dataset/abstract/para"); a == nil || !strings.HasPrefix(a.Text(), "The Phytoplankton Collections at B") {
		t.Errorf("abstract missing")
	}
	if p := root.FindElement("dataset/intellectualRights/para"); p == nil || !strings.Contains(p.Text(), "Intellectual Property Rights of database") {
		t.Errorf("rights text missing")
	}
	// An empty DatasetMeta still gives a valid document with a title.
	buf.Reset()
	if err := WriteEML(&buf, DatasetMeta{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "<title>Untitled ABCD dataset</title>") || !strings.Contains(buf.String(), `packageId="urn:abcd:`) {
		t.Errorf("empty metadata EML:\n%s", buf.String())
	}
}

// TestLanguageTag: xml:lang is a language tag or absent (EML validators
// refuse "IT - ITA - Italiano", which BioCASe providers write); the text
// stays in dataset/language.
func TestLanguageTag(t *testing.T) {
	for in, want := range map[string]string{"en": "en", "IT - ITA - Italiano": "it", "de-AT": "de-AT", "eng": "en",
		"English": "", "": "", "123": "", "Deutsch (German)": ""} {
		if got := languageTag(in); got != want {
			t.Errorf("languageTag(%q) = %q, want %q", in, got, want)
		}
	}
}

// emlOf reads a sample's dataset metadata and returns its EML root.
func emlOf(t *testing.T, name string) *etree.Element {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReader(f, name, Options{})
	if _, err := r.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	return writeAndParseEML(t, r.Dataset())
}

func writeAndParseEML(t *testing.T, meta DatasetMeta) *etree.Element {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteEML(&buf, meta); err != nil {
		t.Fatal(err)
	}
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	return doc.Root()
}

// TestEMLAlwaysHasCreator: EML 2.1.1 requires a creator; without owners it
// falls back to the content contacts, then the technical contacts, then an
// organisation named by the title (gbif-crawler-complete_results has only
// contacts, and had no creator).
func TestEMLAlwaysHasCreator(t *testing.T) {
	if got := emlOf(t, "gbif-crawler-complete_results.xml").FindElement("dataset/creator/individualName/surName"); got == nil || got.Text() != "Pontaurus" {
		t.Errorf("complete_results creator %v, want the content contact Pontaurus", got)
	}
	tech := Party{Person: "Tim Robertson"}
	cases := []struct {
		meta       DatasetMeta
		path, want string
	}{
		{DatasetMeta{TechContact: []Party{tech}}, "dataset/creator/individualName/surName", "Tim Robertson"},
		{DatasetMeta{Title: "Herbarium X"}, "dataset/creator/organizationName", "Herbarium X"},
		{DatasetMeta{}, "dataset/creator/organizationName", "unknown"},
		{DatasetMeta{Creators: "BGBM", TechContact: []Party{tech}}, "dataset/creator/organizationName", "BGBM"},
	}
	for i, c := range cases {
		root := writeAndParseEML(t, c.meta)
		if n := len(root.FindElements("dataset/creator")); n != 1 {
			t.Errorf("case %d: %d creators, want 1", i, n)
		}
		if e := root.FindElement(c.path); e == nil || e.Text() != c.want {
			t.Errorf("case %d: %s = %v, want %q", i, c.path, e, c.want)
		}
	}
}

// TestEMLCoverageCreatedAndRights: the ABCD Coverage (taxonomic and
// stratigraphic text in dissco-biocase-206-response) and DateCreated go to
// additionalInfo, not to a geographicCoverage without the bounding
// coordinates EML requires; a terms-of-use text equal to the licence text
// is written once (dissco-biocase-206-with-media repeated it).
func TestEMLCoverageCreatedAndRights(t *testing.T) {
	root := emlOf(t, "dissco-biocase-206-response.xml")
	if root.FindElement("dataset/coverage") != nil {
		t.Errorf("coverage written without boundingCoordinates")
	}
	if p := root.FindElement("dataset/additionalInfo/para"); p == nil || !strings.HasPrefix(p.Text(), "Coverage: Invertebrate and early vertebrate fossils") {
		t.Errorf("additionalInfo %v, want the Coverage text", p)
	}
	root = emlOf(t, "gbif-crawler-dataset2.xml")
	if p := root.FindElement("dataset/additionalInfo/para"); p == nil || !strings.HasPrefix(p.Text(), "Dataset created: 20") {
		t.Errorf("additionalInfo %v, want DateCreated", p)
	}
	root = emlOf(t, "dissco-biocase-206-with-media.xml")
	p := root.FindElement("dataset/intellectualRights/para")
	if p == nil || strings.Count(p.Text(), "Creative Commons 1.0 Public Domain Dedication waiver") != 1 {
		t.Errorf("intellectualRights %v, want the licence text once", p)
	}
	// dataset/additionalInfo comes before intellectualRights (ResourceGroup order).
	var order []string
	for _, e := range emlOf(t, "dissco-biocase-206-response.xml").FindElement("dataset").ChildElements() {
		order = append(order, e.Tag)
	}
	if s := strings.Join(order, " "); !strings.Contains(s, "additionalInfo intellectualRights") {
		t.Errorf("dataset children %s", s)
	}
}
