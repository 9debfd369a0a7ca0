package abcd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

func sample(t *testing.T, name string) []occurrence.RawRecord {
	t.Helper()
	recs, _ := readAll(t, filepath.Join("testdata", name))
	return recs
}

// Preferred identification first in the core, the others in the
// Identification extension, one record per unit.
func TestMultipleIdentifications(t *testing.T) {
	cases := []struct {
		file, core string
		others     []string
	}{
		// PreferredFlag 0 then 1 (unbound abcd: prefix): the flagged one wins.
		{"cdmlib-MultipleIdentificationsPreferredFlag.xml", "Campanula tymphaea Hausskn.", []string{"Campanula flagellaris Halácsy"}},
		// PreferredFlag 0 then 1, default namespace, CRLF.
		{"gbif-pipelines-abcd206_id_latin.xml", "Closterium acerosum var. minus Hantzsch in Rabenhorst 1868", []string{"Closterium acerosum var. angustum Hantzsch 1862"}},
		// Both 0: the first goes to the core (GBIF would emit two records).
		{"gbif-pipelines-abcd206_multi_ids_preferred_false.xml", "Schistidium agassizii Sull. & Lesq. in Sull.", []string{"Grimmia alpicola Sw. ex Hedw."}},
		// No flag at all: the first.
		{"gbif-pipelines-abcd206_images.xml", "Sheppardia bocagei chapini (Benson, 1955)", []string{"Cossypha bocagei hallae Prigogine, 1969"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			recs := sample(t, c.file)
			if len(recs) != 1 {
				t.Fatalf("%d records, want 1 per unit", len(recs))
			}
			if got := coreOf(recs[0])["scientificName"]; got != c.core {
				t.Errorf("core scientificName %q, want %q", got, c.core)
			}
			ext := extOf(recs[0], occurrence.RowTypeIdentification)
			var names []string
			for _, e := range ext {
				names = append(names, e["scientificName"])
			}
			if strings.Join(names, "|") != strings.Join(c.others, "|") {
				t.Errorf("extension %q, want %q", names, c.others)
			}
		})
	}
	// 46 units of the Berlin herbarium page carry several identifications;
	// the preferred (flag 1) is in the core of every one of them.
	recs := sample(t, "dissco-biocase-206-with-media.xml")
	multi := 0
	for _, r := range recs {
		if len(r.Extensions[occurrence.RowTypeIdentification]) > 0 {
			multi++
		}
	}
	if multi != 46 {
		t.Errorf("%d units with identification history, want 46", multi)
	}
	if got := coreOf(recs[0]); got["scientificName"] != "Bignonia chica Humb. & Bonpl." || got["genus"] != "Bignonia" {
		t.Errorf("first unit core identification %q / %q, want the flagged Bignonia chica", got["scientificName"], got["genus"])
	}
}

func TestNoCoordinates(t *testing.T) {
	for _, f := range []string{"dissco-biocase-206-with-media.xml", "gbif-crawler-complete_results.xml", "dissco-biocase-culture-collection-of-algae.xml"} {
		for i, r := range sample(t, f) {
			if c := coreOf(r); c["decimalLatitude"] != "" || c["decimalLongitude"] != "" || c["geodeticDatum"] != "" {
				t.Fatalf("%s record %d has coordinates %q,%q", f, i+1, c["decimalLatitude"], c["decimalLongitude"])
			}
		}
	}
	// and the biologia page has them on every unit, datum verbatim "4326"
	for i, r := range sample(t, "dissco-biocase-biologia.xml") {
		if c := coreOf(r); c["decimalLatitude"] == "" || c["geodeticDatum"] != "4326" {
			t.Fatalf("biologia record %d: lat %q datum %q", i+1, c["decimalLatitude"], c["geodeticDatum"])
		}
	}
}

func TestTypeSpecimens(t *testing.T) {
	expect(t, "type-specimen", coreOf(sample(t, "dissco-biocase-type-specimen.xml")[0]), map[string]string{
		"typeStatus": "holotype", "gbif:typifiedName": "", "recordedBy": "Fricke, Ronald | Troschel, Hans-Julius",
		"decimalLatitude": "48.27694", "decimalLongitude": "9.76222", "countryCode": "BRD",
		"dcterms:license": "https://creativecommons.org/licences/by/4.0", "scientificName": "Gobio gobio (Linnaeus, 1758)",
	})
	expect(t, "id_latin", coreOf(sample(t, "gbif-pipelines-abcd206_id_latin.xml")[0]), map[string]string{
		"typeStatus": "Holotype", "gbif:typifiedName": "Fake species Linnaeus, 1771", "basisOfRecord": "Specimen",
	})
	expect(t, "images", coreOf(sample(t, "gbif-pipelines-abcd206_images.xml")[0]), map[string]string{
		"typeStatus": "Holotype", "gbif:typifiedName": "Sheppardia bocagei chapini (Benson, 1955)", "basisOfRecord": "Type specimen",
	})
	n := 0
	for _, r := range sample(t, "gbif-pipelines-7ef15372-1387-11e2-bb2e-00145eb45e9a.abcda") {
		if r.Core[dwc+"typeStatus"] != "" {
			n++
		}
	}
	if n != 7 {
		t.Errorf("abcda: %d records with typeStatus, want 7", n)
	}
}

func TestMultimedia(t *testing.T) {
	rows := extOf(sample(t, "gbif-pipelines-abcd206_images.xml")[0], occurrence.RowTypeMultimedia)
	if len(rows) != 7 {
		t.Fatalf("%d multimedia rows, want 7", len(rows))
	}
	expect(t, "audio", rows[0], map[string]string{"dcterms:type": "Sound", "dcterms:format": "audio/mp3",
		"dcterms:license":    "http://creativecommons.org/licenses/by-nc-nd/3.0/",
		"dcterms:identifier": "http://www.tierstimmenarchiv.de/recordings/Ailuroedus_buccoides_V2010_04_short.mp3"})
	expect(t, "thumbnail", rows[2], map[string]string{"dcterms:description": "thumbnail", "dcterms:type": ""})
	total, iiif := 0, 0
	for _, r := range sample(t, "dissco-biocase-206-with-media.xml") {
		for _, m := range extOf(r, occurrence.RowTypeMultimedia) {
			total++
			if m["dcterms:format"] == "application/json" {
				iiif++
				if m["dcterms:type"] != "" || !strings.HasSuffix(m["dcterms:identifier"], "manifest.json") {
					t.Errorf("IIIF manifest row %v", m)
				}
			}
		}
	}
	if total < 200 || iiif != 100 {
		t.Errorf("with-media: %d multimedia rows, %d IIIF manifests; want >= 200 and one manifest per unit", total, iiif)
	}
}

func TestEFG(t *testing.T) {
	expect(t, "EFG rock", coreOf(sample(t, "dissco-biocase-206-response.xml")[0]), map[string]string{
		"scientificName": "sedimentary rocks", "higherClassification": "rocks", "basisOfRecord": "RockSpecimen",
		"earliestPeriodOrLowestSystem": "Ordovician", "latestPeriodOrHighestSystem": "Ordovician",
		"minimumDepthInMeters": "843", "maximumDepthInMeters": "845.8", "verbatimElevation": "114",
		"minimumElevationInMeters": "114", "eventDate": "1961", "country": "Latvia", "countryCode": "", "decimalLatitude": "",
	})
}

func TestDatesAgentsAndRanges(t *testing.T) {
	with := sample(t, "dissco-biocase-206-with-media.xml")
	expect(t, "interval", coreOf(with[0]), map[string]string{"eventDate": "1800-05-20/1800-06-18", "verbatimEventDate": "20.5.-18.6.1800"})
	ids := 0
	for _, r := range with {
		c := coreOf(r)
		if c["recordedByID"] != "" {
			ids++
			if c["recordedBy"] == "" || !strings.Contains(c["recordedByID"], "viaf.org/viaf/") || !strings.Contains(c["recordedByID"], " | ") {
				t.Errorf("ABCD 3.0 agent: recordedBy %q recordedByID %q", c["recordedBy"], c["recordedByID"])
			}
		}
	}
	if c := coreOf(with[8]); c["recordedBy"] != "Willdenow" || !strings.HasSuffix(c["recordedByID"], "https://bionomia.net/Q76353") {
		t.Errorf("unit 9: recordedBy %q recordedByID %q, want Willdenow with 4 URIs", c["recordedBy"], c["recordedByID"])
	}
	if ids != 19 {
		t.Errorf("%d records with recordedByID from abcd3:ResourceURIs, want 19", ids)
	}
	expect(t, "end only", coreOf(sample(t, "dissco-biocase-culture-collection-of-algae.xml")[0]), map[string]string{"eventDate": "31.12.1978"})
	expect(t, "dataset2", coreOf(sample(t, "gbif-crawler-dataset2.xml")[0]), map[string]string{
		"verbatimDepth": "0-1,5", "minimumDepthInMeters": "0", "maximumDepthInMeters": "1.5", "minimumElevationInMeters": "33",
		"coordinateUncertaintyInMeters": "1500", "georeferenceRemarks": "GoogleEarth", "datasetID": "http://dx.doi.org/10.1234/doi",
	})
	expect(t, "all simple fields", coreOf(sample(t, "gbif-pipelines-abcd206_all_simple_fields.xml")[0]), map[string]string{
		"occurrenceID": "0123456789ABCD", "associatedSequences": "112358", "geodeticDatum": "GDA94",
		"identifiedByID":           "http://purl.oclc.org/net/edu.harvard.huh/guid/uuid/d5fea488-5786-4106-af90-396ef452c3aa | http://viaf.org/viaf/100383596 | http://www.wikidata.org/entity/Q78738",
		"minimumElevationInMeters": "400", "maximumElevationInMeters": "500", "dcterms:modified": "06/06/1978",
	})
	expect(t, "triplet", coreOf(sample(t, "gbif-crawler-dropped_records_response.xml")[0]), map[string]string{
		"occurrenceID": "urn:catalog:21:21:142316220", "basisOfRecord": "",
	})
}

func TestAgentOrder(t *testing.T) {
	doc := `<DataSets><DataSet><Units><Unit><UnitID>1</UnitID><Gathering><Agents>
	<GatheringAgent sequence="3"><Person><FullName>C</FullName></Person></GatheringAgent>
	<GatheringAgent sequence="1"><AgentText>A</AgentText></GatheringAgent>
	<GatheringAgent primarycollector="true" sequence="9"><Person><FullName>P</FullName></Person></GatheringAgent>
	<GatheringAgentsText>ignored when agents have names</GatheringAgentsText>
	</Agents></Gathering></Unit></Units></DataSet></DataSets>`
	r := NewReader(strings.NewReader(doc), "agents.xml", Options{})
	rec, err := r.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Core[dwc+"recordedBy"]; got != "P | A | C" {
		t.Errorf("recordedBy %q, want primary first then by sequence", got)
	}
}

func TestDroppedAndEmpty(t *testing.T) {
	_, src := readAll(t, filepath.Join("testdata", "gbif-crawler-dropped_records_response.xml"))
	if st := src.Stats(); st.Dropped != 9 || st.Records != 1 {
		t.Errorf("dropped page: %+v, want 1 record and 9 dropped", st)
	}
	f, err := os.Open(filepath.Join("testdata", "protocol", "no_results.xml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReader(f, "no_results.xml", Options{})
	if _, err := r.Next(context.Background()); err != io.EOF {
		t.Fatalf("empty result: %v, want io.EOF", err)
	}
	p := r.Protocol()
	if !p.IsResponse || !p.HasContent || p.RecordCount != 0 || p.TotalSearchHits != 0 || len(p.Diagnostics) == 0 {
		t.Errorf("empty result protocol info %+v", p)
	}
	if p.Diagnostics[len(p.Diagnostics)-1].Text != "time to execute request is 0.068174123764" {
		t.Errorf("last diagnostic %q", p.Diagnostics[len(p.Diagnostics)-1].Text)
	}
}

func TestDatasetMetadata(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "gbif-crawler-dataset2.xml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReader(f, "dataset2.xml", Options{})
	if _, err := r.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := r.Dataset()
	if m.GUID != "http://dx.doi.org/10.1234/doi" || m.Title != "Collections of Phytoplankton at BGBM" ||
		len(m.Owners) != 1 || m.Owners[0].Person != "Dr. Regine Jahn" || m.Owners[0].LogoURI != "http://ww3.bgbm.org/providerResources/BGBM.jpg" ||
		len(m.Contacts) != 1 || m.Contacts[0].Person != "Dr. Regine Jahn" || len(m.TechContact) != 1 ||
		!strings.HasPrefix(m.Citation, "Jahn, R. (Ed.) 2013+") || !strings.Contains(m.Rights, "Intellectual Property Rights") ||
		m.Modified != "2013-08-30T00:00:00" {
		t.Errorf("metadata %+v", m)
	}
}
