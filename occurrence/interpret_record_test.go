package occurrence

import (
	"strings"
	"testing"
	"time"
)

// Every Passed column carries its term's value: text as given (trimmed),
// list terms split at "|" and joined with ";", numbers parsed; a value
// that does not parse stays null.
func TestInterpretPassesEveryTerm(t *testing.T) {
	raw := Terms{}
	want := map[int]string{}
	for i, c := range columns {
		if c.Fill != Passed {
			continue
		}
		src := c.Term
		if c.Source != "" {
			src = c.Source
		}
		switch c.Kind {
		case KindMulti:
			raw[src] = " first " + c.Name + " | second |  "
			want[i] = "first " + c.Name + ";second"
		case KindFloat64:
			raw[src] = " 12.5 "
			want[i] = "12.5"
		case KindInt32, KindInt64:
			raw[src] = "42"
			want[i] = "42"
		default:
			raw[src] = "  value of " + c.Name + " "
			want[i] = "value of " + c.Name
		}
	}
	if len(want) < 140 {
		t.Fatalf("only %d Passed columns", len(want))
	}
	rec := NewRecord()
	Interpret(RawRecord{Core: raw}, DatasetContext{Key: "d", Protocol: "DWC_ARCHIVE"}, rec)
	b := NewBuilder()
	defer b.Release()
	b.Append(rec)
	batch := b.NewBatch()
	defer batch.Release()
	for i, w := range want {
		if got := batch.Column(i).ValueStr(0); got != w {
			t.Errorf("column %s = %q, want %q", columns[i].Name, got, w)
		}
	}
	if got := rec.Get(mustIndex("protocol")).S; got != "DWC_ARCHIVE" {
		t.Errorf("protocol %q", got)
	}
	// An unparsable number stays null.
	Interpret(RawRecord{Core: Terms{NSDwC + "organismQuantity": "a dozen"}}, DatasetContext{Key: "d"}, rec)
	if rec.Get(mustIndex("organismQuantity")).Valid {
		t.Error("an unparsable organismQuantity was kept")
	}
}

// The dates GBIF interprets beside eventDate, and continent.
func TestInterpretOtherDatesAndContinent(t *testing.T) {
	rec := NewRecord()
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	Interpret(RawRecord{Core: Terms{
		NSDwC + "eventDate": "2020-02-03/2020-03-01", NSDwC + "dateIdentified": "2019-07",
		NSDC + "modified": "2021-05-06 07:08:09", NSDwC + "continent": "north america",
	}}, DatasetContext{Key: "d", Now: now}, rec)
	get := func(name string) Value { return rec.Get(mustIndex(name)) }
	if get("startDayOfYear").I != 34 || get("endDayOfYear").I != 61 {
		t.Errorf("day of year %d..%d, want 34..61", get("startDayOfYear").I, get("endDayOfYear").I)
	}
	if got := get(ColDateIdentified).S; got != "2019-07-01T00:00:00" {
		t.Errorf("dateIdentified %q, want GBIF's local ISO form 2019-07-01T00:00:00", got)
	}
	if m := get("modified"); !m.Valid || time.UnixMilli(m.I).UTC().Format(time.RFC3339) != "2021-05-06T07:08:09Z" {
		t.Errorf("modified %+v", m)
	}
	if got := get("continent").S; got != "NORTH_AMERICA" {
		t.Errorf("continent %q", got)
	}
	if get("lastParsed").I != now.UnixMilli() || get("lastCrawled").I != now.UnixMilli() {
		t.Error("lastParsed/lastCrawled are not the interpretation time")
	}
	Interpret(RawRecord{Core: Terms{NSDwC + "dateIdentified": "sometime", NSDC + "modified": "later", NSDwC + "continent": "Atlantis"}},
		DatasetContext{Key: "d", Now: now}, rec)
	issues := get(ColIssue).S
	for _, is := range []string{IssueIdentifiedDateInvalid, IssueModifiedDateInvalid, IssueContinentInvalid} {
		if !strings.Contains(issues, is) {
			t.Errorf("issues %q lack %s", issues, is)
		}
	}
	if get(ColDateIdentified).Valid || get("modified").Valid || get("continent").Valid {
		t.Error("unparsable values were kept (GBIF leaves them empty)")
	}
	if get("nonTaxonomicIssue").S != issues {
		t.Errorf("nonTaxonomicIssue %q, issue %q", get("nonTaxonomicIssue").S, issues)
	}
}

// isSequenced and relativeOrganismQuantity as GBIF's BasicInterpreter
// computes them.
func TestInterpretDerivedColumns(t *testing.T) {
	rec := NewRecord()
	get := func(name string) Value { return rec.Get(mustIndex(name)) }
	cases := []struct {
		raw       RawRecord
		sequenced bool
		relative  float64 // 0: none
	}{
		{RawRecord{Core: Terms{NSDwC + "organismQuantity": "12", NSDwC + "organismQuantityType": "individuals",
			NSDwC + "sampleSizeValue": "48", NSDwC + "sampleSizeUnit": "Individuals"}}, false, 0.25},
		{RawRecord{Core: Terms{NSDwC + "organismQuantity": "12", NSDwC + "organismQuantityType": "individuals",
			NSDwC + "sampleSizeValue": "2", NSDwC + "sampleSizeUnit": "square metres"}}, false, 0},
		{RawRecord{Core: Terms{NSDwC + "organismQuantity": "3", NSDwC + "organismQuantityType": "%",
			NSDwC + "sampleSizeValue": "0", NSDwC + "sampleSizeUnit": "%"}}, false, 0},
		{RawRecord{Core: Terms{NSDwC + "associatedSequences": "GenBank:MN908947"}}, true, 0},
		{RawRecord{Core: Terms{}, Extensions: map[string][]Terms{"http://rs.gbif.org/terms/1.0/DNADerivedData": {{"x": "y"}}}}, true, 0},
	}
	for i, c := range cases {
		Interpret(c.raw, DatasetContext{Key: "d"}, rec)
		if s := get("isSequenced"); !s.Valid || s.B != c.sequenced {
			t.Errorf("case %d: isSequenced %+v, want %v", i, s, c.sequenced)
		}
		if r := get("relativeOrganismQuantity"); r.Valid != (c.relative != 0) || r.F != c.relative {
			t.Errorf("case %d: relativeOrganismQuantity %+v, want %v", i, r, c.relative)
		}
	}
}
