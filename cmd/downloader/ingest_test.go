package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ingest of an ABCD document it cannot read says why, as convert does (the
// document, line and problem), not only that there were no records.
func TestIngestReportsDocumentProblems(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "entities.xml")
	os.WriteFile(doc, []byte("<?xml version=\"1.0\"?>\n<!DOCTYPE DataSets [<!ENTITY x \"boom\">]>\n<DataSets><DataSet><Units><Unit><UnitID>&x;</UnitID></Unit></Units></DataSet></DataSets>\n"), 0o644)
	code, _, convErr := runCode("convert", "--from", "abcd", "-o", filepath.Join(dir, "out.zip"), doc)
	m := regexp.MustCompile(`failed: (.*) \(0 units kept\)`).FindStringSubmatch(convErr)
	if code != 1 || m == nil {
		t.Fatalf("convert: exit %d, %q", code, convErr)
	}
	want := m[1] // "read DIR/entities.xml:2: entity declarations are not accepted: ..."
	if !strings.Contains(want, "entities.xml:2: entity declarations are not accepted") {
		t.Fatalf("convert's reason %q", want)
	}
	code, _, stderr := runCode("ingest", "--table", filepath.Join(dir, "table"), doc)
	if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "no occurrence records") {
		t.Errorf("ingest: exit %d, stderr %q; want the reason convert gives, %q", code, stderr, want)
	}
}

// A dataset loaded from one archive is not replaced by another archive of
// the same key without --replace; the refusal names the dataset and where
// it came from, and leaves the table as it was.
func TestIngestReplaceNeedsFlag(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "table")
	meta := `<archive xmlns="http://rs.tdwg.org/dwc/text/" metadata="eml.xml"><core fieldsTerminatedBy="\t" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Occurrence"><files><location>occurrence.txt</location></files><id index="0"/><field index="0" term="http://rs.tdwg.org/dwc/terms/occurrenceID"/><field index="1" term="http://rs.tdwg.org/dwc/terms/scientificName"/></core></archive>`
	eml := `<eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" packageId="2d3e4f50-1111-4222-8333-944455556666/v3"><dataset><title>Trees</title></dataset></eml:eml>`
	write := func(name, rows string) string {
		p := filepath.Join(dir, name)
		f, _ := os.Create(p)
		zw := zip.NewWriter(f)
		for _, e := range [][2]string{{"meta.xml", meta}, {"eml.xml", eml}, {"occurrence.txt", "id\tname\n" + rows}} {
			w, _ := zw.Create(e[0])
			w.Write([]byte(e[1]))
		}
		zw.Close()
		f.Close()
		return p
	}
	first := write("trees.zip", "t1\tAbies alba\nt2\tPicea abies\n")
	second := write("trees-2025.zip", "x1\tQuercus robur\n")
	runCmd(t, "ingest", "--table", table, first)
	code, _, stderr := runCode("ingest", "--table", table, second)
	if code != 1 || !strings.Contains(stderr, `dataset 2d3e4f50-1111-4222-8333-944455556666 ("Trees", 2 records) was loaded from `+first) ||
		!strings.Contains(stderr, "give --replace") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if out, _ := runCmd(t, "count", "--table", table); out != "2\n" {
		t.Fatalf("after the refusal count is %q, want the first archive's 2", out)
	}
	runCmd(t, "ingest", "--table", table, first) // the same source: a normal replace
	runCmd(t, "ingest", "--table", table, "--replace", second)
	if out, _ := runCmd(t, "count", "--table", table); out != "1\n" {
		t.Fatalf("after --replace count is %q, want 1", out)
	}
}
