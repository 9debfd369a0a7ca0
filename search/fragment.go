package search

import (
	"slices"
	"unicode/utf16"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/tidwall/gjson"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// fragmentCols are what a fragment reads: the record's source terms and
// its extension rows.
var fragmentCols = []string{occurrence.ColVerbatim, occurrence.ColExtensions}

// appendFragment appends row i of b (a batch with fragmentCols) as GBIF
// writes a Darwin Core Archive record's fragment (pipelines'
// FragmenterPipeline): one JSON object, members in key order, of "id",
// every source term by its simple name, and "extensions": each extension's
// row type URI to its rows, each row its terms by simple name.
//
// GBIF's "id" is the core row's id column; the table keeps the source's
// terms, not that column, so "id" is the record's occurrenceID (the term a
// core's id column almost always carries), and absent without one. GBIF
// answers an ABCD record's fragment as the unit's XML; this table keeps
// such records as the Darwin Core terms they were converted to, so their
// fragment is this JSON too.
func appendFragment(dst []byte, b arrow.RecordBatch, i int) []byte {
	cols := b.Columns()
	core := map[string]string{}
	if v, ok := stringAt(cols[0], i); ok && gjson.Valid(v) {
		gjson.Parse(v).ForEach(func(k, v gjson.Result) bool {
			if v.String() != "" {
				core[occurrence.SimpleName(occurrence.VerbatimTerm(k.String()))] = v.String()
			}
			return true
		})
	}
	type extension struct {
		rowType string
		rows    []map[string]string
	}
	var exts []extension
	if v, ok := stringAt(cols[1], i); ok && gjson.Valid(v) {
		gjson.Parse(v).ForEach(func(rowType, rows gjson.Result) bool {
			e := extension{rowType: rowType.String()}
			rows.ForEach(func(_, row gjson.Result) bool {
				m := map[string]string{}
				row.ForEach(func(k, v gjson.Result) bool {
					m[occurrence.SimpleName(occurrence.VerbatimTerm(k.String()))] = v.String()
					return true
				})
				e.rows = append(e.rows, m)
				return true
			})
			exts = append(exts, e)
			return true
		})
	}
	if id, ok := core["occurrenceID"]; ok {
		core["id"] = id
	}
	names := sortedKeys(core)
	if len(exts) > 0 {
		names = append(names, "extensions")
		slices.SortFunc(names, compareUTF16)
		slices.SortFunc(exts, func(a, b extension) int { return compareUTF16(a.rowType, b.rowType) })
	}
	o := jsonObject{b: dst}
	for _, name := range names {
		if name != "extensions" {
			o.str(name, core[name])
			continue
		}
		o.key(name)
		e := jsonObject{b: o.b}
		for _, ext := range exts {
			e.key(ext.rowType)
			e.b = append(e.b, '[')
			for j, row := range ext.rows {
				if j > 0 {
					e.b = append(e.b, ',')
				}
				r := jsonObject{b: e.b}
				for _, k := range sortedKeys(row) {
					r.str(k, row[k])
				}
				e.b = r.close()
			}
			e.b = append(e.b, ']')
		}
		o.b = e.close()
	}
	return o.close()
}

// sortedKeys returns m's keys in Java's String order (GBIF's TreeMap).
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareUTF16)
	return keys
}

// compareUTF16 orders strings as Java's String.compareTo does, by UTF-16
// code unit: Go's byte order but for characters above U+FFFF, whose
// surrogates sort before U+E000-U+FFFF.
func compareUTF16(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}
