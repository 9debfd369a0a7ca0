package web_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/avro/ocf"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// avroDownload makes a download of format for familyPredicate on a new
// server and waits for it to succeed.
func avroDownload(t *testing.T, format string) (*server, string, jobs.Download) {
	t.Helper()
	s := startServer(t, sqliteDSN(t), options{})
	key := s.submit("alice", `{"sendNotification":false,"format":"`+format+`","predicate":`+familyPredicate+`}`)
	d := s.waitStatus(key, 2*time.Minute, jobs.StatusSucceeded, jobs.StatusFailed)
	if d.Status != jobs.StatusSucceeded {
		t.Fatalf("download %s: %s %s", key, d.Status, d.Error)
	}
	return s, key, d
}

// A SIMPLE_AVRO download is GBIF's one .avro file: its link, its file, its
// name and type when served, its checksum line, and the records the API
// counts for the same predicate.
func TestSimpleAvroDownloadAPI(t *testing.T) {
	s, key, d := avroDownload(t, "SIMPLE_AVRO")
	if !strings.HasSuffix(d.DownloadLink, "/v1/occurrence/download/request/"+key+".avro") {
		t.Errorf("downloadLink %q, want GBIF's KEY.avro", d.DownloadLink)
	}
	r := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".avro", "", nil), http.StatusOK)
	if ct, cd := r.header.Get("Content-Type"), r.header.Get("Content-Disposition"); ct != "application/octet-stream" || cd != `attachment; filename="`+key+`.avro"` {
		t.Errorf("served as %q, %q", ct, cd)
	}
	recs := avroRecords(t, bytes.NewReader(r.body))
	for i, rec := range recs {
		if rec["stateProvince"] != "Nigde" {
			t.Fatalf("record %d: stateProvince %v, outside the predicate", i, rec["stateProvince"])
		}
	}
	n := int64(len(recs))
	if want := s.count(familyPredicate).Count; n != want || n == 0 || d.TotalRecords != n {
		t.Errorf("%d records in the file, totalRecords %d, the API counts %d", n, d.TotalRecords, want)
	}
	// pygbif and rgbif ask for the key alone; the checksum names the file.
	if plain := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key, "", nil), http.StatusOK); !bytes.Equal(plain.body, r.body) {
		t.Error("the key alone serves other bytes")
	}
	sum := sha256.Sum256(r.body)
	line := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".avro.sha256", "", nil), http.StatusOK)
	if want := hex.EncodeToString(sum[:]) + "  " + key + ".avro\n"; string(line.body) != want || d.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("checksum %q, want %q (status sha256 %s)", line.body, want, d.SHA256)
	}
}

// A SIMPLE_WITH_VERBATIM_AVRO download is GBIF's zip of one Avro file,
// occurrence.avro/000000, whose records carry the verbatim terms the
// sample's datasets were published with.
func TestSimpleWithVerbatimAvroDownloadAPI(t *testing.T) {
	s, key, d := avroDownload(t, "SIMPLE_WITH_VERBATIM_AVRO")
	if !strings.HasSuffix(d.DownloadLink, "/v1/occurrence/download/request/"+key+".zip") {
		t.Errorf("downloadLink %q, want GBIF's KEY.zip", d.DownloadLink)
	}
	r := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusOK)
	names, files := zipAvro(t, r.body)
	if !slices.Equal(names, []string{"occurrence.avro/000000"}) {
		t.Fatalf("entries %v, want occurrence.avro/000000", names)
	}
	recs := files["occurrence.avro/000000"]
	verbatim := 0
	for i, rec := range recs {
		if rec["stateProvince"] != "Nigde" || rec["v_catalogNumber"] != rec["catalogNumber"] {
			t.Fatalf("record %d: stateProvince %v, catalogNumber %v, v_catalogNumber %v", i, rec["stateProvince"], rec["catalogNumber"], rec["v_catalogNumber"])
		}
		for k, v := range rec {
			if strings.HasPrefix(k, "v_") && v != nil {
				verbatim++
			}
		}
	}
	n := int64(len(recs))
	if want := s.count(familyPredicate).Count; n != want || n == 0 || d.TotalRecords != n {
		t.Errorf("%d records in the file, totalRecords %d, the API counts %d", n, d.TotalRecords, want)
	}
	if verbatim < int(n)*5 {
		t.Errorf("%d verbatim values in %d records", verbatim, n)
	}
}

// A MAP_OF_LIFE download is GBIF's one .avro file of the MapOfLife
// record, with the sample's ingested values: the predicate's records, the
// verbatim scientific name as published, the event date's start.
func TestMapOfLifeDownloadAPI(t *testing.T) {
	s, key, d := avroDownload(t, "MAP_OF_LIFE")
	if !strings.HasSuffix(d.DownloadLink, "/v1/occurrence/download/request/"+key+".avro") || d.Request.Format != "MAP_OF_LIFE" {
		t.Errorf("downloadLink %q, format %s", d.DownloadLink, d.Request.Format)
	}
	r := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".avro", "", nil), http.StatusOK)
	recs := avroRecords(t, bytes.NewReader(r.body))
	dated := 0
	for i, rec := range recs {
		if rec["stateProvince"] != "Nigde" || rec["verbatimScientificName"] == nil || rec["gbifID"] == nil {
			t.Fatalf("record %d: stateProvince %v, verbatimScientificName %v", i, rec["stateProvince"], rec["verbatimScientificName"])
		}
		if v, ok := rec["eventDateGte"].(string); ok && len(v) == len("2006-01-02T15:04:05") {
			dated++
		}
	}
	n := int64(len(recs))
	if want := s.count(familyPredicate).Count; n != want || n == 0 || d.TotalRecords != n {
		t.Errorf("%d records in the file, totalRecords %d, the API counts %d", n, d.TotalRecords, want)
	}
	if dated == 0 {
		t.Error("no record has an eventDateGte")
	}
	// The published values, which MAP_OF_LIFE reads from the columns that
	// keep them, are those SIMPLE_WITH_VERBATIM_AVRO reads from each
	// record's verbatim object.
	vkey := s.submit("alice", `{"sendNotification":false,"format":"SIMPLE_WITH_VERBATIM_AVRO","predicate":`+familyPredicate+`}`)
	if v := s.waitStatus(vkey, 2*time.Minute, jobs.StatusSucceeded, jobs.StatusFailed); v.Status != jobs.StatusSucceeded {
		t.Fatalf("download %s: %s %s", vkey, v.Status, v.Error)
	}
	vr := expect(t, s.do("GET", "/v1/occurrence/download/request/"+vkey+".zip", "", nil), http.StatusOK)
	_, vfiles := zipAvro(t, vr.body)
	verbatim := map[any]map[string]any{}
	for _, rec := range vfiles["occurrence.avro/000000"] {
		verbatim[rec["gbifID"]] = rec
	}
	compared := 0
	for _, rec := range recs {
		v := verbatim[rec["gbifID"]]
		for mol, published := range map[string]string{"verbatimScientificName": "v_scientificName",
			"verbatimScientificNameAuthorship": "v_scientificNameAuthorship", "verbatimVernacularName": "v_vernacularName",
			"verbatimLocality": "v_verbatimLocality", "verbatimEventDate": "v_verbatimEventDate", "verbatimElevation": "v_verbatimElevation",
			"verbatimDepth": "v_verbatimDepth", "verbatimTaxonRank": "v_verbatimTaxonRank", "verbatimCoordinateSystem": "v_verbatimCoordinateSystem",
			"verbatimSRS": "v_verbatimSRS"} {
			if rec[mol] != v[published] {
				t.Errorf("record %v: %s %#v, SIMPLE_WITH_VERBATIM_AVRO's %s %#v", rec["gbifID"], mol, rec[mol], published, v[published])
			}
			if rec[mol] != nil {
				compared++
			}
		}
	}
	if compared < len(recs) {
		t.Errorf("%d published values compared in %d records", compared, len(recs))
	}
}

// A BIONOMIA download is GBIF's zip of four Avro files: the predicate's
// records with a collector or an identifier (as many as the API counts
// for the predicate and that condition), and their gbifIDs grouped by
// agent, family and agent ID, every gbifID among the records.
func TestBionomiaDownloadAPI(t *testing.T) {
	s, key, d := avroDownload(t, "BIONOMIA")
	r := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusOK)
	names, files := zipAvro(t, r.body)
	if !slices.Equal(names, []string{"occurrence.avro/000000", "agents.avro/000000", "families.avro/000000", "identifiers.avro/000000"}) {
		t.Fatalf("entries %v", names)
	}
	ids := map[string]bool{}
	for _, rec := range files["occurrence.avro/000000"] {
		if rec["v_recordedBy"] == nil && rec["v_identifiedBy"] == nil {
			t.Fatalf("record %v has neither a collector nor an identifier", rec["gbifID"])
		}
		ids[rec["gbifID"].(string)] = true
	}
	agents := `{"type":"or","predicates":[{"type":"isNotNull","parameter":"RECORDED_BY"},{"type":"isNotNull","parameter":"IDENTIFIED_BY"}]}`
	n := int64(len(files["occurrence.avro/000000"]))
	if want := s.count(`{"type":"and","predicates":[` + familyPredicate + `,` + agents + `]}`).Count; n != want || n == 0 || d.TotalRecords != n {
		t.Errorf("%d records in the file, totalRecords %d, the API counts %d", n, d.TotalRecords, want)
	}
	grouped := 0
	for _, rec := range files["agents.avro/000000"] {
		for _, col := range []string{"gbifIDsRecordedBy", "gbifIDsIdentifiedBy"} {
			l, _ := rec[col].([]any)
			for _, id := range l {
				if !ids[id.(string)] {
					t.Errorf("agent %v: gbifID %v is not a record of the download", rec["agent"], id)
				}
				grouped++
			}
		}
	}
	if grouped < int(n) || len(files["families.avro/000000"]) == 0 {
		t.Errorf("%d gbifIDs grouped by agent for %d records, %d families", grouped, n, len(files["families.avro/000000"]))
	}
}

// zipAvro reads a zip of Avro files: its entry names in order and each
// entry's records.
func zipAvro(t *testing.T, body []byte) ([]string, map[string][]map[string]any) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	var names []string
	files := map[string][]map[string]any{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name] = avroRecords(t, rc)
		rc.Close()
		names = append(names, f.Name)
	}
	return names, files
}

// avroRecords reads every record of an Avro container (twmb/avro).
func avroRecords(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	rd, err := ocf.NewReader(r)
	if err != nil {
		t.Fatalf("not an Avro file: %v", err)
	}
	var recs []map[string]any
	for {
		var rec map[string]any
		err := rd.Decode(&rec)
		if errors.Is(err, io.EOF) {
			return recs
		}
		if err != nil {
			t.Fatalf("record %d: %v", len(recs), err)
		}
		recs = append(recs, rec)
	}
}

// A FASTA_ARCHIVE request is taken as GBIF's: the job runs and its zip
// has the FASTA archive's entries. The samples hold no DNA-derived data,
// so it holds no record (download's and cmd's tests cover the content).
func TestFastaArchiveDownloadAPI(t *testing.T) {
	s, key, d := avroDownload(t, "FASTA_ARCHIVE")
	r := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusOK)
	zr, err := zip.NewReader(bytes.NewReader(r.body), int64(len(r.body)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	for _, want := range []string{"occurrence.txt", "verbatim/dnaderiveddata.txt", "sequences.fasta", "sequences.txt", "meta.xml", "citations.txt"} {
		if !slices.Contains(names, want) {
			t.Errorf("no %s in %v", want, names)
		}
	}
	if d.TotalRecords != 0 || d.Request.Format != "FASTA_ARCHIVE" || !slices.Equal(d.Request.VerbatimExtensions, []string{"http://rs.gbif.org/terms/1.0/DNADerivedData"}) {
		t.Errorf("totalRecords %d, format %s, verbatimExtensions %v (GBIF adds the DNA-derived data)", d.TotalRecords, d.Request.Format, d.Request.VerbatimExtensions)
	}
}

// A DWCA request with GBIF's interpretedExtensions DNA_DERIVED_DATA runs
// and its archive has dnaderiveddata.txt; the download shows the row type.
func TestInterpretedExtensionsDownloadAPI(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{})
	key := s.submit("alice", `{"sendNotification":false,"format":"DWCA","interpretedExtensions":["DNA_DERIVED_DATA"],"predicate":`+familyPredicate+`}`)
	d := s.waitStatus(key, 2*time.Minute, jobs.StatusSucceeded, jobs.StatusFailed)
	if d.Status != jobs.StatusSucceeded || !slices.Equal(d.Request.InterpretedExtensions, []string{"http://rs.gbif.org/terms/1.0/DNADerivedData"}) {
		t.Fatalf("download %s: %s %s, interpretedExtensions %v", key, d.Status, d.Error, d.Request.InterpretedExtensions)
	}
	r := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusOK)
	zr, err := zip.NewReader(bytes.NewReader(r.body), int64(len(r.body)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	found := false
	for _, f := range zr.File {
		found = found || f.Name == "dnaderiveddata.txt"
	}
	if !found {
		t.Errorf("no dnaderiveddata.txt in the archive")
	}
	expect(t, s.do("POST", "/v1/occurrence/download/request", "alice", `{"format":"SIMPLE_CSV","interpretedExtensions":["DNA_DERIVED_DATA"]}`), http.StatusBadRequest)
}
