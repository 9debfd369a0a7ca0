package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGeologicalContext ingests fossil records as GBIF's pipelines
// interpret their geological context (testdata/paleo, an archive I wrote:
// a Jurassic dinosaur whose era is given as "Jurassic", a Miocène to
// Pliocene horse, a mammoth whose range is reversed, a graptolite with a
// period given as its epoch and a stage, a record without geology) and a
// BioCASe provider's Ordovician rock specimen (TalTech's ABCD-EFG
// document), then searches and downloads them: GBIF's GEOLOGICAL_TIME,
// LITHOSTRATIGRAPHY and BIOSTRATIGRAPHY, the chronostratigraphy's GeoTime
// concepts in occurrence.txt and the published values in verbatim.txt.
func TestGeologicalContext(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "table")
	runCmd(t, "ingest", "--table", table, "testdata/paleo", "../../abcd/testdata/dissco-biocase-206-response.xml")
	checkCounts(t, table, map[string]string{
		"geologicalTime=Mesozoic":                                      "1", // the Jurassic dinosaur
		"geologicalTime=Cenozoic":                                      "1", // Miocene to Pliocene
		"geologicalTime=Paleozoic":                                     "2", // the Katian graptolite and the Ordovician rock
		"geologicalTime=Ordovician,Silurian":                           "2",
		"geologicalTime=Jurassic,Neogene":                              "2",
		"geologicalTime=*":                                             "4", // not the reversed range, not the living record
		"lithostratigraphy=morrison formation&geologicalTime=Jurassic": "1",
		"biostratigraphy=Dicellograptus complanatus zone":              "1",
		"issue=ERA_OR_ERATHEM_INFERRED_FROM_PARENT_RANK":               "1",
		"issue=PERIOD_OR_SYSTEM_INVALID_RANGE":                         "1",
		"issue=EPOCH_OR_SERIES_RANK_MISMATCH":                          "1",
	})
	path := filepath.Join(dir, "dwca.zip")
	runCmd(t, "export", "--table", table, "--format", "DWCA", "-o", path)
	occ := tsvByID(t, zipEntry(t, path, "occurrence.txt"), "occurrenceID")
	verb := tsvByID(t, zipEntry(t, path, "verbatim.txt"), "occurrenceID")
	for _, c := range []struct{ id, col, interpreted, verbatim string }{
		{"paleo-1", "earliestEraOrLowestErathem", "Mesozoic", "Jurassic"}, // inferred from the period's name
		{"paleo-1", "earliestPeriodOrLowestSystem", "Jurassic", "Jurassic"},
		{"paleo-1", "formation", "Morrison Formation", "Morrison Formation"},
		{"paleo-2", "earliestEpochOrLowestSeries", "Miocene", "Miocène"}, // a French label
		{"paleo-2", "latestEpochOrHighestSeries", "Pliocene", "Pliocene"},
		{"paleo-3", "earliestPeriodOrLowestSystem", "", "Quaternary"}, // the reversed range is left out
		{"paleo-3", "latestPeriodOrHighestSystem", "", "Neogene"},
		{"paleo-4", "earliestEpochOrLowestSeries", "", "Ordovician"}, // a period is no epoch
		{"paleo-4", "earliestAgeOrLowestStage", "Katian", "Katian"},
	} {
		if got := occ[c.id][c.col]; got != c.interpreted {
			t.Errorf("occurrence.txt %s %s = %q, want %q", c.id, c.col, got, c.interpreted)
		}
		if got := verb[c.id][c.col]; got != c.verbatim {
			t.Errorf("verbatim.txt %s %s = %q, want %q", c.id, c.col, got, c.verbatim)
		}
	}
}

// TestMeasurementTypesAndExtensions: the same archive's
// ExtendedMeasurementOrFact rows make GBIF's measurementType and
// measurementTypeID, its row types dwcaExtension, which GBIF's
// MEASUREMENT_TYPE, MEASUREMENT_TYPE_ID and DWCA_EXTENSION search (each
// element, ignoring case); a "null" type is none.
func TestMeasurementTypesAndExtensions(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "table")
	runCmd(t, "ingest", "--table", table, "testdata/paleo")
	checkCounts(t, table, map[string]string{
		"measurementType=femur length": "1",
		"measurementType=SKULL LENGTH": "1",
		"measurementType=*":            "3",
		"measurementType=null":         "0",
		"measurementTypeId=http://vocab.nerc.ac.uk/collection/P01/current/OBSINDLX/": "2",
		"dwcaExtension=http://rs.iobis.org/obis/terms/ExtendedMeasurementOrFact":     "3",
		"dwcaExtension=http://rs.tdwg.org/dwc/terms/MeasurementOrFact":               "0",
	})
}

// checkCounts counts the records of each query string in a table.
func checkCounts(t *testing.T, table string, counts map[string]string) {
	t.Helper()
	for q, want := range counts {
		if out, _ := runCmd(t, "count", "--table", table, "--query", q); strings.TrimSpace(out) != want {
			t.Errorf("count %s = %s, want %s", q, strings.TrimSpace(out), want)
		}
	}
}

// tsvByID reads a download's text entry into rows by the value of its
// id column: column name -> value.
func tsvByID(t *testing.T, data []byte, id string) map[string]map[string]string {
	t.Helper()
	rows := tsvRows(data)
	out := map[string]map[string]string{}
	for _, cells := range rows[1:] {
		if len(cells) != len(rows[0]) {
			t.Fatalf("%d cells in a row of %d columns: %q", len(cells), len(rows[0]), cells)
		}
		row := map[string]string{}
		for i, h := range rows[0] {
			row[h] = cells[i]
		}
		out[row[id]] = row
	}
	return out
}
