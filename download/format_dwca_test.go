package download

import (
	"context"
	"encoding/xml"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

func TestDWCA(t *testing.T) {
	data, res := export(t, ExportSpec{Format: FormatDWCA, Key: "0000001-240506070809000", Snapshot: "snap-1"}, testSource())
	names, content := entries(t, data)
	want := []string{"occurrence.txt", "verbatim.txt", "multimedia.txt", "meta.xml", "metadata.xml"}
	for _, d := range testDatasets[:3] { // the fourth has no EML
		want = append(want, "dataset/"+d.key+".xml")
	}
	want = append(want, "citations.txt", "rights.txt")
	if !slices.Equal(names, want) {
		t.Fatalf("entries\n%v\nwant\n%v", names, want)
	}
	n := testRecordCount()

	occ := table(t, "occurrence.txt", content["occurrence.txt"])
	if occ[0][0] != "gbifID" || len(occ)-1 != n {
		t.Fatalf("occurrence.txt: header starts %q, %d rows", occ[0][0], len(occ)-1)
	}
	for _, h := range occ[0] {
		if h == occurrence.ColVerbatim || h == occurrence.ColMultimedia || h == occurrence.ColEventDateStart {
			t.Errorf("internal column %s in occurrence.txt", h)
		}
	}
	// Timestamps as GBIF writes them: modified to the second
	// (secondsToISO8601), lastInterpreted with three digits of
	// milliseconds (ISO_INSTANT).
	omod, oli := column(t, occ, "modified"), column(t, occ, "lastInterpreted")
	for i, r := range occ[1:] {
		if r[omod] != "2020-01-01T00:00:00Z" || r[oli] != "2024-01-02T03:04:05.006Z" {
			t.Fatalf("occurrence row %d: modified %q, lastInterpreted %q", i, r[omod], r[oli])
		}
	}
	verb := table(t, "verbatim.txt", content["verbatim.txt"])
	if len(verb)-1 != n {
		t.Fatalf("verbatim.txt: %d rows", len(verb)-1)
	}
	hab, loc, mod := column(t, verb, "habitat"), column(t, verb, "locality"), column(t, verb, "modified")
	for i, r := range verb[1:] {
		if r[0] != fmt.Sprint(1000+i) || r[hab] != "forest edge" || r[mod] != "2020-01-01" || r[loc] != dwca.CleanValue(tricky[i%len(tricky)]) {
			t.Errorf("verbatim row %d: id %s habitat %q modified %q locality %q", i, r[0], r[hab], r[mod], r[loc])
		}
	}
	if res.DroppedVerbatimTerms["http://example.org/terms/custom"] != int64(n) {
		t.Errorf("dropped terms %v", res.DroppedVerbatimTerms)
	}
	media := table(t, "multimedia.txt", content["multimedia.txt"])
	wantMedia := 0
	for i := 0; i < n; i += 2 {
		wantMedia++
		if i%4 == 0 {
			wantMedia++
		}
	}
	if !slices.Equal(media[0], append([]string{"gbifID"}, multimediaColumns...)) || len(media)-1 != wantMedia {
		t.Fatalf("multimedia.txt: header %v, %d rows, want %d", media[0], len(media)-1, wantMedia)
	}
	if r := media[1]; r[0] != "1000" || r[1] != "StillImage" || r[3] != "https://img.example.org/0.jpg" || r[5] != dwca.CleanValue(tricky[0]) {
		t.Errorf("multimedia row %q", r)
	}

	m, err := dwca.ParseMeta(strings.NewReader(content["meta.xml"]))
	if err != nil {
		t.Fatal(err)
	}
	if m.Metadata != "metadata.xml" || m.Core.IDIndex != 0 || m.Core.FieldsEnclosedBy != "" || m.Core.FieldsTerminatedBy != "\t" ||
		m.Core.IgnoreHeaderLines != 1 || len(m.Core.Fields) != len(occ[0])+1 || len(m.Extensions) != 2 {
		t.Fatalf("meta.xml: %d core fields for %d columns, %d extensions", len(m.Core.Fields), len(occ[0]), len(m.Extensions))
	}
	// As GBIF's: geodeticDatum is WGS84 for every record (a default field,
	// first), and the list columns are delimitedBy ";".
	if f := m.Core.Fields[0]; f.Index != -1 || f.Default != "WGS84" || f.Term != occurrence.NSDwC+"geodeticDatum" {
		t.Errorf("first core field %+v, want the WGS84 geodeticDatum default", f)
	}
	delimited := 0
	for _, f := range m.Core.Fields {
		if f.Delimiter == ";" {
			delimited++
		}
	}
	if delimited != 17 {
		t.Errorf("%d core fields delimitedBy \";\", GBIF's meta.xml has 17", delimited)
	}
	if m.Extensions[0].Files[0] != "verbatim.txt" || len(m.Extensions[0].Fields) != len(verb[0]) || m.Extensions[1].RowType != occurrence.RowTypeMultimedia {
		t.Errorf("extensions %+v", m.Extensions)
	}
	for _, attr := range []string{`fieldsEnclosedBy=""`, `ignoreHeaderLines="1"`, `encoding="UTF-8"`, `linesTerminatedBy="\n"`, `fieldsTerminatedBy="\t"`} {
		if strings.Count(content["meta.xml"], attr) < 3 {
			t.Errorf("meta.xml lacks %s on every file", attr)
		}
	}

	eml := content["metadata.xml"]
	if err := xml.Unmarshal([]byte(eml), new(struct{})); err != nil {
		t.Fatalf("metadata.xml is not XML: %v", err)
	}
	// GBIF's metadata.xml: the query, then each dataset's record count.
	var doc struct {
		PackageID string `xml:"packageId,attr"`
		Dataset   struct {
			Title    string `xml:"title"`
			Creator  string `xml:"creator>individualName>surName"`
			Abstract string `xml:"abstract>para"`
			Rights   string `xml:"intellectualRights>para"`
			Methods  string `xml:",innerxml"`
		} `xml:"dataset"`
		Citation string `xml:"additionalMetadata>metadata>gbif>citation"`
	}
	if err := xml.Unmarshal([]byte(eml), &doc); err != nil {
		t.Fatal(err)
	}
	wantAbstract := "A dataset containing all occurrences available in Occurrence download service matching the query:\nall records\n" +
		"The dataset includes records from the following constituent datasets. The full metadata for each constituent is also included in this archive:\n" +
		"7 records from Dataset 0 & <friends>\n5 records from Dataset 1 & <friends>\n3 records from Dataset 2 & <friends>\n2 records from Dataset " + testDatasets[3].key + "\n"
	if doc.Dataset.Abstract != wantAbstract || doc.PackageID != "0000001-240506070809000" ||
		doc.Dataset.Title != "Occurrence Download 0000001-240506070809000" || doc.Dataset.Creator != "Occurrence download service" ||
		doc.Citation != "Occurrence download service (6 May 2024) Occurrence Download 0000001-240506070809000" {
		t.Errorf("metadata.xml %+v\nwant abstract %q", doc, wantAbstract)
	}
	// EML 2.2.0's DatasetType is a sequence: contact comes before methods
	// (eml-dataset.xsd); validating readers refuse the other order.
	if c, m := strings.Index(doc.Dataset.Methods, "<contact>"), strings.Index(doc.Dataset.Methods, "<methods>"); c < 0 || m < c {
		t.Errorf("metadata.xml: contact at %d, methods at %d: EML wants contact first", c, m)
	}
	if !strings.HasPrefix(doc.Dataset.Rights, "The data included in this download are provided to the user under a Creative Commons Attribution Non Commercial (CC-BY-NC) 4.0 license (http://creativecommons.org/licenses/by-nc/4.0/legalcode)") ||
		!strings.HasSuffix(doc.Dataset.Rights, "1 dataset has no recognized licence: "+testDatasets[3].key+".") {
		t.Errorf("metadata.xml rights %q", doc.Dataset.Rights)
	}
	for _, s := range []string{"Table snapshot: snap-1.", "Records matching: all records."} {
		if !strings.Contains(doc.Dataset.Methods, s) {
			t.Errorf("metadata.xml methods lack %q", s)
		}
	}
	if !strings.HasPrefix(content["dataset/"+testDatasets[0].key+".xml"], "<?xml") {
		t.Errorf("dataset EML not copied")
	}
	// citations.txt: GBIF's header, the download's citation, each dataset's.
	cit := content["citations.txt"]
	wantCit := "When using this dataset please use the following citation and pay attention to the rights documented in rights.txt:\n" +
		"Occurrence download service (6 May 2024) Occurrence Download 0000001-240506070809000\n\n" +
		"Dataset 0 & <friends>. Occurrence dataset " + testDatasets[0].key + " accessed via Occurrence download service on 2024-05-06.\n"
	if !strings.HasPrefix(cit, wantCit) || strings.Count(cit, "\n") != 3+len(testDatasets) {
		t.Errorf("citations.txt:\n%s\nwant it to start\n%s", cit, wantCit)
	}
	// rights.txt as GBIF's: "Dataset: <title> " then the licence URL.
	rights := content["rights.txt"]
	if !strings.HasPrefix(rights, "Dataset: Dataset 0 & <friends> \nRights as supplied: http://creativecommons.org/licenses/by/4.0/legalcode\n") ||
		!strings.HasSuffix(rights, "Dataset: Dataset "+testDatasets[3].key+" \nRights as supplied: Not supplied\n") {
		t.Errorf("rights.txt:\n%s", rights)
	}
}

func TestDWCAEmpty(t *testing.T) {
	for _, info := range Formats() {
		f := info.Name
		var buf strings.Builder
		x, err := NewExport(t.Context(), &buf, specOf(f), ExportOptions{TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		res, err := x.Close(t.Context())
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if res.Records != 0 || res.License != "" || len(res.Datasets) != 0 {
			t.Errorf("%s: %+v", f, res)
		}
		if !info.zipped() {
			if _, rows := readAvro(t, []byte(buf.String())); len(rows) != 0 {
				t.Errorf("%s: %d records", f, len(rows))
			}
			continue
		}
		names, _ := entries(t, []byte(buf.String()))
		if len(names) == 0 {
			t.Errorf("%s: empty archive has no entries", f)
		}
	}
}

func TestDWCAQueryInWords(t *testing.T) {
	p, err := occurrence.ParseQuery(map[string][]string{"country": {"DK", "SE"}, "year": {"2000,2010"}}, occurrence.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	data, _ := export(t, ExportSpec{Format: FormatDWCA, Predicate: p}, nil)
	_, content := entries(t, data)
	words := p.Describe()
	if words == "" || !strings.Contains(content["metadata.xml"], dwca.EscapeXML("Records matching: "+words+".")) {
		t.Fatalf("metadata.xml lacks the query in words %q:\n%s", words, content["metadata.xml"])
	}
}

// countingCatalog counts Dataset calls per dataset.
type countingCatalog struct {
	memCatalog
	calls map[string]int
}

func (c countingCatalog) Dataset(ctx context.Context, key string) (occurrence.DatasetInfo, error) {
	c.calls[key]++
	return c.memCatalog.Dataset(ctx, key)
}

// TestDWCADescribesDatasetsOnce: the licence, metadata.xml, citations and
// rights come from one catalog lookup per dataset.
func TestDWCADescribesDatasetsOnce(t *testing.T) {
	src := countingCatalog{testSource(), map[string]int{}}
	export(t, ExportSpec{Format: FormatDWCA}, src)
	if len(src.calls) != len(testDatasets) {
		t.Errorf("%d datasets described, want %d", len(src.calls), len(testDatasets))
	}
	for k, n := range src.calls {
		if n != 1 {
			t.Errorf("dataset %s described %d times", k, n)
		}
	}
}

// TestDatasetCitationAsGBIF: a constituent dataset's citation in
// citations.txt is GBIF's (gbif-api CitationGeneratorTest's cases with
// this service as the portal): generated from the EML's parts, the
// publisher leading when no author is named, the dataset key for a missing
// DOI; a citation the metadata gives is kept, with its DOI added when it
// has none and the access date.
func TestDatasetCitationAsGBIF(t *testing.T) {
	x := &Export{opts: ExportOptions{Portal: Portal{Name: "GBIF.org"}}, created: time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)}
	in := occurrence.DatasetInfo{Key: "6eb0c925-06b4-4dec-a153-c4a28cb4eb9d", Title: "Dataset to be cited"}
	full := dwca.CitationParts{Authors: []string{"Doe J D", "Smith", "Mendez"}, Year: "2009", Version: "2.1",
		Publisher: "Cited Organization", DOI: "10.21373/abcd"}
	noAuthors := full
	noAuthors.Authors = nil
	noDOI := full
	noDOI.DOI = ""
	cited := in
	cited.Citation = "Doe J (2009). Dataset to be cited."
	for _, c := range []struct {
		in   occurrence.DatasetInfo
		p    dwca.CitationParts
		want string
	}{
		{in, full, "Doe J D, Smith, Mendez (2009). Dataset to be cited. Version 2.1. Cited Organization. Occurrence dataset https://doi.org/10.21373/abcd accessed via GBIF.org on 2026-12-06."},
		{in, noAuthors, "Cited Organization (2009). Dataset to be cited. Version 2.1. Occurrence dataset https://doi.org/10.21373/abcd accessed via GBIF.org on 2026-12-06."},
		{in, noDOI, "Doe J D, Smith, Mendez (2009). Dataset to be cited. Version 2.1. Cited Organization. Occurrence dataset 6eb0c925-06b4-4dec-a153-c4a28cb4eb9d accessed via GBIF.org on 2026-12-06."},
		{in, dwca.CitationParts{}, "Dataset to be cited. Occurrence dataset 6eb0c925-06b4-4dec-a153-c4a28cb4eb9d accessed via GBIF.org on 2026-12-06."},
		{cited, full, "Doe J (2009). Dataset to be cited. https://doi.org/10.21373/abcd accessed via GBIF.org on 2026-12-06."},
	} {
		if got := datasetCitation(x, c.in, c.p); got != c.want {
			t.Errorf("citation\n got %s\nwant %s", got, c.want)
		}
	}
}
