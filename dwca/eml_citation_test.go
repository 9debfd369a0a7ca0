package dwca

import (
	"archive/zip"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestReadCitationParts reads the parts of GBIF's generated citations from
// a real IPT EML (Canadensys, in the GBIF validator's test archive): its
// creator and metadata provider as GBIF names authors, the pubDate's year,
// packageId's version, the publisher party and the DOI.
func TestReadCitationParts(t *testing.T) {
	zr, err := zip.OpenReader("testdata/gbif-validator-Archive.zip")
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	rc, err := zr.Open("eml.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	p, err := ReadCitationParts(rc)
	if err != nil {
		t.Fatal(err)
	}
	want := CitationParts{Authors: []string{"Sheffield C", "Shorthouse D"}, Year: "2016", Version: "12.2",
		Publisher: "Université de Montréal Biodiversity Centre / Canadensys", DOI: "10.5886/txsd3at3"}
	if !slices.Equal(p.Authors, want.Authors) || p.Year != want.Year || p.Version != want.Version || p.Publisher != want.Publisher || p.DOI != want.DOI {
		t.Fatalf("parts %+v\nwant %+v", p, want)
	}
}

// TestCitationAuthorsAsGBIF: GBIF's CitationGenerator rules (its tests'
// names): initials of every given name, a surname alone, persons without
// a surname left out, each person once, and no authors at all without a
// creator among them; dataset/publisher names the publisher.
func TestCitationAuthorsAsGBIF(t *testing.T) {
	doc := func(parties string) string {
		return `<eml:eml xmlns:eml="https://eml.ecoinformatics.org/eml-2.2.0" packageId="x"><dataset><title>T</title>` + parties +
			`<pubDate>2009-03-01</pubDate><alternateIdentifier>doi:10.21373/ABCD</alternateIdentifier></dataset></eml:eml>`
	}
	person := func(role, given, sur string) string {
		return "<" + role + "><individualName><givenName>" + given + "</givenName><surName>" + sur + "</surName></individualName>" +
			"<organizationName>Org of " + sur + "</organizationName><address><organizationName>not this</organizationName></address></" + role + ">"
	}
	for _, c := range []struct {
		parties   string
		authors   []string
		publisher string
	}{
		{person("creator", "John David", "Doe") + person("metadataProvider", "", "Smith") + person("creator", "", "Mendez"), []string{"Doe J D", "Smith", "Mendez"}, ""},
		{person("creator", "John", "Doe") + person("metadataProvider", "john", "DOE"), []string{"Doe J"}, ""},
		{person("metadataProvider", "John", "Doe"), nil, ""},
		{"<creator><organizationName>Awesome Organization</organizationName></creator>", nil, ""},
		{person("creator", "ana", "Silva") + "<publisher><organizationName>Cited Organization</organizationName></publisher>", []string{"Silva A"}, "Cited Organization"},
	} {
		p, err := ReadCitationParts(strings.NewReader(doc(c.parties)))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.Authors, c.authors) || p.Publisher != c.publisher || p.Year != "2009" || p.DOI != "10.21373/ABCD" {
			t.Errorf("%.80s...: %+v, want authors %q publisher %q", c.parties, p, c.authors, c.publisher)
		}
	}
	for in, want := range map[string]string{"10.5886/txsd3at3": "10.5886/txsd3at3",
		"http://dx.doi.org/10.5886/x": "10.5886/x", "https://doi.org/10.15468/dl.abc": "10.15468/dl.abc",
		"doi: 10.1000/182": "10.1000/182", "6eb0c925-06b4-4dec-a153-c4a28cb4eb9d": "", "http://example.org/10.1/x": ""} {
		if got := DOIName(in); got != want {
			t.Errorf("DOIName(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzReadCitationParts(f *testing.F) {
	f.Add(`<eml packageId="a/v1"><dataset><creator><individualName><givenName>A</givenName><surName>B</surName></individualName></creator><pubDate>2001</pubDate></dataset></eml>`)
	f.Add(`<eml><dataset><associatedParty><organizationName>P</organizationName><role>publisher</role></associatedParty></dataset></eml>`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ReadCitationParts(io.LimitReader(strings.NewReader(s), 1<<16))
		if err != nil {
			return
		}
		for _, a := range p.Authors {
			if strings.TrimSpace(a) == "" {
				t.Fatalf("blank author in %+v", p)
			}
		}
		if p.Year != "" && !yearRE.MatchString(p.Year) || len(p.Year) > 4 {
			t.Fatalf("year %q", p.Year)
		}
		if p.DOI != "" && !strings.HasPrefix(p.DOI, "10.") {
			t.Fatalf("DOI %q", p.DOI)
		}
	})
}
