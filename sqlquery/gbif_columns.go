package sqlquery

import (
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// GBIF's table has columns this one holds otherwise: vocabulary structs
// (sex.concept, typestatus.lineage), values computed from others
// (eventDateLte), and registry data no source here carries. This file
// reads GBIF's names for them.

// DerivedColumn is a column of GBIF's table computed from this table's.
type DerivedColumn struct {
	Name string // lower case, as queries and headers name it
	Type string // Hive's type name, as /describe/sql gives it
	Term string
	Doc  string
	base string            // the table column it is computed from; "" none
	fn   func(Value) Value // the base column's value to the column's
}

// derivedColumns are GBIF's eventDateGte and eventDateLte (the event
// date's first and last second, as pipelines' OccurrenceHdfsRecordConverter
// stores them: epoch seconds of the local date and time) and isInCluster
// (false: no clustering runs here, as the search API says).
var derivedColumns = []DerivedColumn{
	{Name: "eventdategte", Type: "BIGINT", Term: occurrence.NSGBIFInternal + "eventDateGte", base: occurrence.ColEventDateStart, fn: epochSeconds,
		Doc: "the event date's first second, in seconds since 1970 (GBIF_SecondsToLocalISO8601 reads it)"},
	{Name: "eventdatelte", Type: "BIGINT", Term: occurrence.NSGBIFInternal + "eventDateLte", base: occurrence.ColEventDateEnd, fn: epochSeconds,
		Doc: "the event date's last second, in seconds since 1970"},
	{Name: "isincluster", Type: "BOOLEAN", Term: occurrence.NSGBIFInternal + "isInCluster", fn: func(Value) Value { return boolValue(false) },
		Doc: "false: this service runs no clustering of related records"},
}

var derivedByLower = func() map[string]DerivedColumn {
	m := map[string]DerivedColumn{}
	for _, d := range derivedColumns {
		m[d.Name] = d
	}
	return m
}()

// DerivedColumns lists the columns computed from the table's (for
// /describe/sql and docs/sql.md).
func DerivedColumns() []DerivedColumn { return slices.Clone(derivedColumns) }

// epochSeconds is a timestamp's whole seconds since 1970.
func epochSeconds(v Value) Value {
	if v.Kind != Time {
		return nullValue
	}
	s := v.Int / 1000
	if v.Int%1000 < 0 {
		s--
	}
	return intValue(s)
}

// registryColumns are GBIF's table's columns of registry and GRSciColl
// data, which ingest has no source for.
var registryColumns = map[string]bool{"installationkey": true, "hostingorganizationkey": true, "programmeacronym": true,
	"institutionkey": true, "collectionkey": true, "networkkey": true}

// conceptColumn is a column GBIF's table types as a vocabulary struct.
type conceptColumn struct {
	name string
	occurrence.ConceptColumn
}

// conceptColumns are the vocabulary struct columns by lower-case name.
var conceptColumns = func() map[string]conceptColumn {
	m := map[string]conceptColumn{}
	for name, cc := range occurrence.ConceptColumns() {
		m[strings.ToLower(name)] = conceptColumn{name, cc}
	}
	return m
}()

// conceptField reads n as a field of one of GBIF's vocabulary structs,
// "sex.concept", "occurrence.typestatus.concepts", "lifestage.lineage":
// the column's name and the field's, ok false when n is none.
func conceptField(n *ast.ColumnName, qualifiers map[string]bool) (col, field string, ok bool) {
	if n.Schema.O != "" && !qualifiers[n.Schema.L] {
		return "", "", false
	}
	cc, ok := conceptColumns[n.Table.L]
	if !ok {
		return "", "", false
	}
	switch n.Name.L {
	case "concept", "concepts", "lineage":
		return cc.name, n.Name.L, true
	}
	return "", "", false
}

// conceptRef compiles a field of a vocabulary struct whose column ref
// reads: concept (concepts for typeStatus, a list) is the column, lineage
// the concepts' lineages.
func (c *compiler) conceptRef(n *ast.ColumnName, col, field string, ref expr) (expr, error) {
	cc := conceptColumns[strings.ToLower(col)]
	want := "concept"
	if cc.List {
		want = "concepts"
	}
	if field != want && field != "lineage" {
		return nil, invalid(n.OrigColName(), "%s is a struct of %s and lineage in GBIF's table: %s.%s", col, want, n.Table.O, want)
	}
	if field == "lineage" {
		return lineageRef{ref: ref, cc: cc.ConceptColumn}, nil
	}
	return ref, nil
}

// listValued reports whether e is a list: a list column (";"-joined
// text) or a vocabulary struct's lineage.
func (c *compiler) listValued(e expr) bool {
	switch e := e.(type) {
	case columnRef:
		col, _, ok := occurrence.ColumnByName(c.q.cols[e.slot])
		return ok && col.Kind == occurrence.KindMulti
	case lineageRef:
		return true
	}
	return false
}

// qualified reports whether n's table part is the table's name or alias
// (occurrence.sex), not a struct column (sex.concept).
func (c *compiler) qualified(n *ast.ColumnName) bool {
	if n.Table.O == "" {
		return false
	}
	q := n.Table.L
	if n.Schema.O != "" {
		q = n.Schema.L + "." + q
	}
	return c.qualifiers[q]
}
