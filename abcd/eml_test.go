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
