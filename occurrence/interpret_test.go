package occurrence

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

func dwcTerms(kv ...string) Terms {
	t := Terms{}
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i]
		if !strings.Contains(k, "://") {
			k = NSDwC + k
		}
		t[k] = kv[i+1]
	}
	return t
}

func interpret(t *testing.T, core Terms, ext map[string][]Terms) *Record {
	t.Helper()
	rec := NewRecord()
	Interpret(RawRecord{Core: core, Extensions: ext}, DatasetContext{Key: "ds1", Title: "Dataset", License: "CC-BY 4.0",
		Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, rec)
	return rec
}

func get(r *Record, col string) Value { return r.Get(ColumnIndex(col)) }

func hasIssue(r *Record, issue string) bool {
	for _, s := range strings.Split(get(r, ColIssue).S, ";") {
		if s == issue {
			return true
		}
	}
	return false
}

func TestInterpretTypicalRecord(t *testing.T) {
	r := interpret(t, dwcTerms(
		"occurrenceID", "urn:x:1", "basisOfRecord", "PreservedSpecimen", "country", "Denmark",
		"decimalLatitude", "55,68", "decimalLongitude", "12.57", "geodeticDatum", "WGS84",
		"eventDate", "2001-05-01/15", "genus", "Quercus", "specificEpithet", "robur",
		"scientificNameAuthorship", "L.", "taxonRank", "species", "typeStatus", "Holotype of Quercus robur",
		"minimumElevationInMeters", "10", "maximumElevationInMeters", "30 m", "individualCount", "3",
		"coordinateUncertaintyInMeters", "25 m",
	), nil)
	checks := map[string]string{
		ColBasisOfRecord: BasisPreservedSpecimen, ColCountryCode: "DK", ColEventDate: "2001-05-01/2001-05-15",
		ColScientificName: "Quercus robur L.", ColSpecies: "Quercus robur", ColTaxonRank: "SPECIES",
		ColTypeStatus: "Holotype", ColLicense: LicenseCCBY, ColOccurrenceStatus: "PRESENT", ColDatasetKey: "ds1",
	}
	for col, want := range checks {
		if got := get(r, col).S; got != want {
			t.Errorf("%s = %q, want %q", col, got, want)
		}
	}
	if v := get(r, ColDecimalLatitude); !v.Valid || v.F != 55.68 {
		t.Errorf("latitude %+v", v)
	}
	if v := get(r, ColElevation); v.F != 20 || get(r, ColElevationAccuracy).F != 10 {
		t.Errorf("elevation %v ± %v, want 20 ± 10", v.F, get(r, ColElevationAccuracy).F)
	}
	if get(r, ColYear).I != 2001 || get(r, ColMonth).I != 5 || get(r, ColDay).Valid {
		t.Errorf("year/month/day %v/%v/%v: a 15-day interval has no single day", get(r, ColYear), get(r, ColMonth), get(r, ColDay))
	}
	if !get(r, ColHasCoordinate).B || get(r, ColHasGeospatialIssue).B {
		t.Error("coordinates should be valid without geospatial issues")
	}
	if !hasIssue(r, IssueCountryDerivedFromName) {
		t.Errorf("issues %q lack %s", get(r, ColIssue).S, IssueCountryDerivedFromName)
	}
	// The table mints gbifIDs (IDMinter): interpretation leaves the id
	// null, also when the source carries one, and keeps the occurrence key.
	if v := get(r, ColGBIFID); v.Valid {
		t.Errorf("gbifID %d set by interpretation", v.I)
	}
	if v := get(interpret(t, Terms{NSGBIF + "gbifID": "17", NSDwC + "occurrenceID": "urn:x:1"}, nil), ColGBIFID); v.Valid {
		t.Errorf("gbifID %d taken from the source", v.I)
	}
	if k, ok := RecordKey(r); !ok || k != "urn:x:1" {
		t.Errorf("occurrence key %q, %v; want the occurrenceID", k, ok)
	}
}

func TestInterpretFlagsProblems(t *testing.T) {
	cases := []struct {
		terms  Terms
		issue  string
		column string // must be null
	}{
		{dwcTerms("decimalLatitude", "95", "decimalLongitude", "200"), IssueCoordinateOutOfRange, ColDecimalLatitude},
		{dwcTerms("decimalLatitude", "north", "decimalLongitude", "10"), IssueCoordinateInvalid, ColDecimalLatitude},
		{dwcTerms("eventDate", "s.d.-.-s."), IssueRecordedDateInvalid, ColEventDate},
		{dwcTerms("basisOfRecord", "RockSpecimen"), IssueBasisOfRecordInvalid, ""},
		{dwcTerms("countryCode", "XX"), IssueCountryInvalid, ColCountryCode},
		{dwcTerms("individualCount", "many"), IssueIndividualCountInvalid, ColIndividualCount},
		{dwcTerms("decimalLatitude", "0", "decimalLongitude", "0"), IssueZeroCoordinate, ""},
		{dwcTerms("countryCode", "DK", "country", "Sweden"), IssueCountryMismatch, ""},
		{dwcTerms("minimumDepthInMeters", "deep"), IssueDepthNonNumeric, ColDepth},
	}
	for _, c := range cases {
		r := interpret(t, c.terms, nil)
		if !hasIssue(r, c.issue) {
			t.Errorf("%v: issues %q lack %s", c.terms, get(r, ColIssue).S, c.issue)
		}
		if c.column != "" && get(r, c.column).Valid {
			t.Errorf("%v: %s = %+v, want null", c.terms, c.column, get(r, c.column))
		}
	}
	r := interpret(t, dwcTerms("decimalLatitude", "0", "decimalLongitude", "0"), nil)
	if !get(r, ColHasGeospatialIssue).B {
		t.Error("zero coordinates must set hasGeospatialIssues")
	}
	if r := interpret(t, dwcTerms("basisOfRecord", "RockSpecimen"), nil); get(r, ColBasisOfRecord).S != BasisOccurrence {
		t.Errorf("unknown basis of record became %q, want OCCURRENCE", get(r, ColBasisOfRecord).S)
	}
}

// TestInterpretRoundsCoordinates keeps six decimals as GBIF does and flags
// COORDINATE_ROUNDED only when digits were cut.
func TestInterpretRoundsCoordinates(t *testing.T) {
	r := interpret(t, dwcTerms("decimalLatitude", "2.123450678", "decimalLongitude", "-8.123450678"), nil)
	if lat, lon := get(r, ColDecimalLatitude).F, get(r, ColDecimalLongitude).F; lat != 2.123451 || lon != -8.123451 {
		t.Errorf("rounded to %v, %v, want 2.123451, -8.123451", lat, lon)
	}
	if !hasIssue(r, IssueCoordinateRounded) {
		t.Errorf("issues %q lack %s", get(r, ColIssue).S, IssueCoordinateRounded)
	}
	if get(r, ColHasGeospatialIssue).B {
		t.Error("rounding is not a geospatial issue")
	}
	r = interpret(t, dwcTerms("decimalLatitude", "2.123451", "decimalLongitude", "-8.1234510"), nil)
	if hasIssue(r, IssueCoordinateRounded) || get(r, ColDecimalLatitude).F != 2.123451 {
		t.Errorf("six decimals: %v, issues %q", get(r, ColDecimalLatitude).F, get(r, ColIssue).S)
	}
}

func TestInterpretMultimediaAndVerbatim(t *testing.T) {
	ext := map[string][]Terms{
		RowTypeMultimedia: {{NSDC + "identifier": "https://img/1.jpg", NSDC + "format": "image/jpeg"},
			{NSDC + "identifier": "https://snd/1.mp3", NSDC + "format": "audio/mpeg"}},
		RowTypeIdentification: {{NSDwC + "identifiedBy": "A. Person"}},
	}
	r := interpret(t, dwcTerms("occurrenceID", "o1", NSDC+"modified", "2020-01-01"), ext)
	if got := get(r, ColMediaType).S; got != "Sound;StillImage" {
		t.Errorf("mediaType %q", got)
	}
	if mm := get(r, ColMultimedia).S; !strings.Contains(mm, `"identifier":"https://snd/1.mp3"`) || !strings.Contains(mm, `"type":"Sound"`) {
		t.Errorf("multimedia %s", mm)
	}
	if v := get(r, ColVerbatim).S; !strings.Contains(v, `"dcterms:modified":"2020-01-01"`) || !strings.Contains(v, `"occurrenceID":"o1"`) {
		t.Errorf("verbatim %s", v)
	}
	// Every extension row is kept as published, media rows too (for
	// verbatim extension files).
	if e := get(r, ColExtensions).S; !strings.Contains(e, RowTypeIdentification) || !strings.Contains(e, "A. Person") ||
		!strings.Contains(e, `"`+RowTypeMultimedia+`":[{"dcterms:format":"image/jpeg"`) {
		t.Errorf("extensions %s", e)
	}
}

func TestNormalizeLicense(t *testing.T) {
	cases := map[string]string{
		"http://creativecommons.org/publicdomain/zero/1.0/legalcode": LicenseCC0,
		"CC0 1.0": LicenseCC0,
		"https://creativecommons.org/licences/by/4.0": LicenseCCBY, // misspelt in the wild
		"CC-BY 4.0": LicenseCCBY,
		"http://creativecommons.org/licenses/by-nc/4.0/legalcode":      LicenseCCBYNC,
		"Creative Commons Attribution-NonCommercial 4.0 International": LicenseCCBYNC,
		"All rights reserved": LicenseUnspecified,
		"This work is licensed under a Creative Commons Attribution (CC-BY) 4.0 License.": LicenseCCBY,
		"CC_BY_4_0":    LicenseCCBY,
		"CC BY-SA 4.0": LicenseUnspecified,
		"CC-BY-ND":     LicenseUnspecified,
		"Attribution-ShareAlike 4.0 International":          LicenseUnspecified,
		"http://creativecommons.org/licenses/by-nc-nd/4.0/": LicenseUnspecified,
		"CC_BY_NC_4_0": LicenseCCBYNC,
	}
	for in, want := range cases {
		if got, _ := NormalizeLicense(in); got != want {
			t.Errorf("%q -> %q, want %q", in, got, want)
		}
	}
	// A stored value normalizes to itself, by the shortcut and by the rules
	// (the padded copy takes them): ingest hands Interpret the dataset's
	// licence normalized once.
	for _, v := range []string{LicenseCC0, LicenseCCBY, LicenseCCBYNC} {
		for _, in := range []string{v, " " + v} {
			if got, ok := NormalizeLicense(in); got != v || !ok {
				t.Errorf("%q -> %q %v, want itself", in, got, ok)
			}
		}
	}
}

func TestCountryCode(t *testing.T) {
	for in, want := range map[string]string{"DK": "DK", "dnk": "DK", "Denmark": "DK", "Deutschland": "DE",
		"Côte d’Ivoire": "CI", "united states of america": "US", "Eesti": "EE"} {
		if got, ok := CountryCode(in); !ok || got != want {
			t.Errorf("%q -> %q %v, want %q", in, got, ok, want)
		}
	}
	if c, ok := CountryCode("Atlantis"); ok {
		t.Errorf("Atlantis -> %s", c)
	}
	// Withdrawn codes and their names stand for their successors (the
	// RMCA's ABCD sample's "Congo (Kinshasa)" was ZR, which GBIF has not).
	for in, want := range map[string]string{"ZR": "CD", "Zaire": "CD", "Congo (Kinshasa)": "CD", "Congo - Kinshasa": "CD",
		"Democratic Republic of the Congo": "CD", "UK": "GB", "BU": "MM", "TP": "TL", "ZAR": "CD"} {
		if got, ok := CountryCode(in); !ok || got != want {
			t.Errorf("%q -> %q %v, want %q", in, got, ok, want)
		}
	}
}

// TestCountryCodesAreGBIFs: every code CountryCode gives is one of GBIF's
// Country constants, but for regions that ended without one successor
// (SU, YU, CS, AN), or that GBIF counts under another country (IC, EA...),
// which are listed so that a new one shows up here.
func TestCountryCodesAreGBIFs(t *testing.T) {
	notGBIFs := map[string]bool{"AC": true, "AN": true, "CP": true, "CQ": true, "CS": true, "DG": true, "EA": true,
		"EZ": true, "FQ": true, "IC": true, "NT": true, "PC": true, "SU": true, "TA": true, "UN": true, "YU": true}
	seen := map[string]bool{}
	for _, code := range countryIndex() {
		seen[code] = true
		if _, ok := GBIFCountryName(code); !ok && !notGBIFs[code] {
			t.Errorf("CountryCode gives %s, which GBIF's Country has not", code)
		}
	}
	if len(gbifCountries) != 253 {
		t.Errorf("%d GBIF country names; gbif-api's Country has 253 constants", len(gbifCountries))
	}
	for code, c := range gbifCountries {
		if !seen[code] && code != "AA" && code != "XZ" && code != "ZZ" && code != "XK" {
			t.Errorf("GBIF's %s is given for no code or name", code)
		}
		if c.name == "" || c.title == "" {
			t.Errorf("GBIF's %s: name %q, title %q", code, c.name, c.title)
		}
	}
	// Titles, the non-ASCII constants' too (the first list of titles missed
	// them, as the first list of names had).
	for code, want := range map[string]string{"DK": "Denmark", "CI": "Côte d’Ivoire", "BL": "Saint Barthélemy"} {
		if got, ok := GBIFCountryTitle(code); !ok || got != want {
			t.Errorf("GBIFCountryTitle(%s) = %q, %v; want %q", code, got, ok, want)
		}
	}
}

// BenchmarkInterpret interprets a typical specimen record into a reused
// Record, as the ingest pipeline does.
func BenchmarkInterpret(b *testing.B) {
	core := dwcTerms(
		"occurrenceID", "urn:x:1", "basisOfRecord", "PreservedSpecimen", "country", "Denmark",
		"countryCode", "DK", "decimalLatitude", "55,68", "decimalLongitude", "12.57", "geodeticDatum", "WGS84",
		"eventDate", "2001-05-01/15", "genus", "Quercus", "specificEpithet", "robur",
		"scientificNameAuthorship", "L.", "taxonRank", "species", "typeStatus", "Holotype of Quercus robur",
		"minimumElevationInMeters", "10", "maximumElevationInMeters", "30 m", "individualCount", "3",
		"coordinateUncertaintyInMeters", "25 m",
	)
	ds := DatasetContext{Key: "ds1", Title: "Dataset", License: LicenseCCBY, Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	rec := NewRecord()
	b.ReportAllocs()
	for b.Loop() {
		Interpret(RawRecord{Core: core}, ds, rec)
	}
}

// TestAppendJSONObject checks the verbatim encoder against encoding/json,
// byte for byte, on every single byte and on the strings it escapes.
func TestAppendJSONObject(t *testing.T) {
	m := map[string]string{"": "", "dcterms:modified": "2020-01-01", "b<&>": "\u2028\u2029\x7f\xff\xc3",
		"locality": "Near \"the\" river\\creek\n\t\r\b\f\x00\x1f é 日本"}
	for c := 0; c < 256; c++ {
		m["byte"+strconv.Itoa(c)] = "a" + string([]byte{byte(c)}) + "z"
	}
	want, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := appendJSONObject(nil, m); string(got) != string(want) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if got := appendJSONObject(nil, map[string]string{}); string(got) != "{}" {
		t.Fatalf("empty map: %s", got)
	}
	rows := map[string][]map[string]string{RowTypeMeasurement: {m, {}, {"a": "<b>"}}, RowTypeIdentification: {{"identifiedBy": "A. Person"}}}
	if want, _ = json.Marshal(rows[RowTypeMeasurement]); string(appendJSONList(nil, rows[RowTypeMeasurement])) != string(want) {
		t.Fatalf("list: got  %s\nwant %s", appendJSONList(nil, rows[RowTypeMeasurement]), want)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "<a href=\"x\">&amp;</a>", "\u2028\xff\xe2\x80", "tab\there\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(map[string]string{s: s})
		if got := appendJSONObject(nil, map[string]string{s: s}); string(got) != string(want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

func TestInterpretBasisOfRecord(t *testing.T) {
	for in, want := range map[string][2]string{
		"PreservedSpecimen":   {BasisPreservedSpecimen, "PRESENT"},
		"human observation":   {BasisHumanObservation, "PRESENT"},
		"MACHINE_OBSERVATION": {BasisMachineObservation, "PRESENT"},
		"Fossil-Specimen":     {BasisFossilSpecimen, "PRESENT"},
		"AbsenceObservation":  {BasisHumanObservation, "ABSENT"},
		"ſample":              {BasisMaterialSample, "PRESENT"}, // long s upper-cases to S
	} {
		r := interpret(t, dwcTerms("basisOfRecord", in), nil)
		if got := [2]string{get(r, ColBasisOfRecord).S, get(r, ColOccurrenceStatus).S}; got != want || hasIssue(r, IssueBasisOfRecordInvalid) {
			t.Errorf("%q -> %v, issues %q; want %v", in, got, get(r, ColIssue).S, want)
		}
	}
}
