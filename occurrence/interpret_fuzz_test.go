package occurrence

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fuzzTerms are the terms FuzzInterpret fills, in the order of its string
// arguments: the ones interpretation parses (numbers, coordinates, dates,
// vocabularies), where a publisher's text meets the parsers.
var fuzzTerms = []string{
	"decimalLatitude", "decimalLongitude", "verbatimLatitude", "eventDate", "year", "month", "day",
	"coordinateUncertaintyInMeters", "minimumElevationInMeters", "maximumDepthInMeters",
	"country", "countryCode", "basisOfRecord", "typeStatus", "individualCount", "occurrenceStatus",
	"scientificName", "dateIdentified",
}

// FuzzInterpret gives interpretation arbitrary text in the terms it parses
// and checks what must hold whatever the input: no panic; coordinates in
// range and set as a pair with hasCoordinate; month, day and uncertainty in
// range; issues from GBIF's vocabulary, each once, hasGeospatialIssues
// agreeing with them; the verbatim document valid JSON holding every
// supplied value as it was; a record reused for another record reads as a
// fresh one (no state left over); and the row read by position (Cells, as
// the DwC-A reader hands it) is interpreted as the same record.
func FuzzInterpret(f *testing.F) {
	seeds := [][]string{
		{"55,68", "12.57", "", "2001-05-01/15", "", "", "", "25 m", "10", "", "Denmark", "", "PreservedSpecimen", "Holotype of Quercus robur", "3", "", "Quercus robur L.", "2002"},
		{"91", "-181", "52°30'N", "2001-13-45", "1999", "13", "32", "-5", "x", "abc", "Neverland", "ZZ", "Photograph", "typo", "-2", "maybe", "", "yesterday"},
		{"0", "0", "", "1800/2100", "2100", "2", "30", "0", "1e309", "NaN", "DK", "DE", "HumanObservation", "", "0", "absent", "Puma concolor", "2010-02-30"},
		{"-45.5", "170.25", "45°30'S", "2010-06", "2010", "6", "", "1e12", "-Inf", "10 ft", "NZ", "nz", "FOSSIL_SPECIMEN", "paratype", "1.5", "PRESENT", "×Agropogon", ""},
		{"\xff\xfe", "1\x00", "\u2028", "2001-05-01T25:61:00Z", "0", "0", "0", "Infinity", "", "", "\t", " ", "\n", "", "", "", "\"quoted\"", "\\"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10], s[11], s[12], s[13], s[14], s[15], s[16], s[17])
	}
	ctx := DatasetContext{Key: "ds1", Title: "Dataset", License: "CC-BY 4.0", Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	other := Terms{NSDwC + "decimalLatitude": "10", NSDwC + "decimalLongitude": "20", NSDwC + "year": "1990",
		NSDwC + "country": "France", NSDwC + "scientificName": "Abies alba Mill.", NSDwC + "habitat": "forest"}
	layoutTerms := make([]string, len(fuzzTerms))
	for i, term := range fuzzTerms {
		layoutTerms[i] = NSDwC + term
	}
	layout := NewLayout(layoutTerms)
	f.Fuzz(func(t *testing.T, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17 string) {
		vals := []string{a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17}
		core := Terms{}
		for i, v := range vals {
			core[NSDwC+fuzzTerms[i]] = v
		}
		fresh := NewRecord()
		Interpret(RawRecord{Core: core}, ctx, fresh)
		checkInterpreted(t, fresh, core)

		reused := NewRecord()
		Interpret(RawRecord{Core: other}, ctx, reused)
		Interpret(RawRecord{Core: core}, ctx, reused)
		for i, c := range columns {
			if got, want := reused.Get(i), fresh.Get(i); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s of a reused record = %+v, of a fresh one %+v", c.Name, got, want)
			}
		}

		byCells := NewRecord()
		Interpret(RawRecord{Cells: &Cells{Layout: layout, Vals: vals}}, ctx, byCells)
		sameRecords(t, "by cells", byCells, fresh)
	})
}

// checkInterpreted checks the invariants FuzzInterpret lists on r, the
// interpretation of core.
func checkInterpreted(t *testing.T, r *Record, core Terms) {
	t.Helper()
	lat, lon := get(r, ColDecimalLatitude), get(r, ColDecimalLongitude)
	if lat.Valid != lon.Valid || get(r, ColHasCoordinate).B != lat.Valid {
		t.Fatalf("latitude set %v, longitude set %v, hasCoordinate %v", lat.Valid, lon.Valid, get(r, ColHasCoordinate).B)
	}
	if lat.Valid && !(lat.F >= -90 && lat.F <= 90) || lon.Valid && !(lon.F >= -180 && lon.F <= 180) {
		t.Fatalf("coordinates out of range: %v, %v", lat.F, lon.F)
	}
	if m := get(r, ColMonth); m.Valid && (m.I < 1 || m.I > 12) {
		t.Fatalf("month %d", m.I)
	}
	if d := get(r, ColDay); d.Valid && (d.I < 1 || d.I > 31) {
		t.Fatalf("day %d", d.I)
	}
	if u := get(r, ColCoordinateUncertaintyInMeters); u.Valid && !(u.F > 0 && !math.IsInf(u.F, 0)) {
		t.Fatalf("coordinateUncertaintyInMeters %v", u.F)
	}
	var issues []string
	if s := get(r, ColIssue).S; s != "" {
		issues = strings.Split(s, ";")
	}
	geo := false
	for i, is := range issues {
		if !slices.Contains(issueValues, is) {
			t.Fatalf("issue %q is not GBIF's (issues %q)", is, issues)
		}
		if slices.Contains(issues[:i], is) {
			t.Fatalf("issue %q twice: %q", is, issues)
		}
		geo = geo || slices.Contains(geospatialIssues, is)
	}
	if get(r, ColHasGeospatialIssue).B != geo {
		t.Fatalf("hasGeospatialIssues %v with issues %q", get(r, ColHasGeospatialIssue).B, issues)
	}
	doc := map[string]string{}
	if err := json.Unmarshal([]byte(get(r, ColVerbatim).S), &doc); err != nil {
		t.Fatalf("verbatim document %q: %v", get(r, ColVerbatim).S, err)
	}
	for term, v := range core {
		if v == "" || !utf8.ValidString(v) {
			continue // empty values are left out; invalid UTF-8 becomes U+FFFD in JSON
		}
		if got, ok := doc[VerbatimKey(term)]; !ok || got != v {
			t.Fatalf("verbatim %s = %q (present %v), supplied %q", VerbatimKey(term), got, ok, v)
		}
	}
}
