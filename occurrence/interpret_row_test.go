package occurrence

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// rowOf returns terms as Cells, fields in reverse term order (a bare
// "country" after dwc:country), then the extra fields.
func rowOf(t Terms, extra ...string) RawRecord {
	var terms []string
	for term := range t {
		terms = append(terms, term)
	}
	slices.Sort(terms)
	slices.Reverse(terms)
	terms = append(terms, extra...)
	l := NewLayout(terms)
	c := &Cells{Layout: l, Vals: make([]string, len(terms))}
	for i, term := range terms {
		c.Vals[i] = t[term]
	}
	return RawRecord{Cells: c}
}

// sameRecords compares every column of two interpreted records.
func sameRecords(t *testing.T, what string, got, want *Record) {
	t.Helper()
	for i := range columns {
		if g, w := got.Get(i), want.Get(i); g != w {
			t.Errorf("%s: column %s = %+v, want %+v", what, columns[i].Name, g, w)
		}
	}
}

// A record read by position (Cells) is interpreted as the same record
// read as a Terms map: every Passed column, the interpreted ones, the
// gbif keys a source carries, the verbatim document (a bare "country"
// beside dwc:country sharing its key, a term no table knew) and the
// issues; also once the verbatim slot table is full.
func TestInterpretCellsAsTerms(t *testing.T) {
	terms := Terms{
		NSDwC + "occurrenceID": "o1", NSDwC + "basisOfRecord": "specimen", NSDwC + "scientificName": "Puma concolor (Linnaeus, 1771)",
		NSDwC + "genus": "Puma", NSDwC + "specificEpithet": "concolor", NSDwC + "taxonRank": "species",
		NSDwC + "countryCode": "se", "country": "Norway", NSDwC + "country": "Sweden",
		NSDwC + "decimalLatitude": " 59.1234567 ", NSDwC + "decimalLongitude": "18.5", NSDwC + "eventDate": "2020-05-17",
		NSDwC + "year": "2020", NSDwC + "minimumElevationInMeters": "10", NSDwC + "maximumElevationInMeters": "20 m",
		NSDC + "license": "CC-BY 4.0", NSDC + "modified": "2021-01-02", NSGBIF + "taxonKey": "2435099",
		NSDwC + "associatedMedia": "https://example.org/a.jpg", NSDwC + "typeStatus": "holotype of Puma concolor",
		NSDwC + "individualCount": "3", NSDwC + "recordedBy": "A | B", NSDwC + "continent": "Europe",
		"urn:test:cells-only-term": "x",
	}
	ds := DatasetContext{Key: "d", Title: "T", Protocol: "DWC_ARCHIVE", Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	want, got := NewRecord(), NewRecord()
	Interpret(RawRecord{Core: terms}, ds, want)
	raw := rowOf(terms, NSDwC+"locality") // a field without a value
	Interpret(raw, ds, got)
	sameRecords(t, "by cells", got, want)
	if v := got.Get(iCountryCode); v.S != "SE" {
		t.Fatalf("countryCode %+v: the record was not interpreted", v)
	}
	if got, want := raw.Value(kScientificName), terms[NSDwC+"scientificName"]; got != want {
		t.Errorf("Value(scientificName) = %q, want %q", got, want)
	}
	if got := raw.Value(kDay); got != "" {
		t.Errorf("Value of a term without a field = %q", got)
	}

	// The table full: a new term sends both forms down the slow path.
	defer func(n int) { maxVerbatimSlots = n }(maxVerbatimSlots)
	maxVerbatimSlots = len(verbatimTable.Load().term)
	terms["urn:test:cells-table-full"] = "y"
	Interpret(RawRecord{Core: terms}, ds, want)
	Interpret(rowOf(terms), ds, got)
	sameRecords(t, "table full", got, want)
	if v := got.Get(iVerbatim).S; v == "" || !strings.Contains(v, "cells-table-full") {
		t.Errorf("verbatim document %q lacks the new term", v)
	}
}

// A layout whose fields repeat a term is refused: maps decide how the
// repeated fields merge.
func TestNewLayoutRepeatedTerm(t *testing.T) {
	if l := NewLayout([]string{NSDwC + "locality", NSDwC + "year", NSDwC + "locality"}); l != nil {
		t.Error("a layout repeating a term")
	}
	l := NewLayout([]string{NSDwC + "locality", NSDwC + "year"})
	if l == nil || l.Len() != 2 || l.Term(1) != NSDwC+"year" {
		t.Fatalf("layout %+v", l)
	}
	if got := (RawRecord{Cells: &Cells{Layout: l, Vals: []string{"", "1999"}}}).Value(kYear); got != "1999" {
		t.Errorf("year %q", got)
	}
}
