package search

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/tidwall/gjson"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// GBIF's occurrence JSON (gbif-api Occurrence and VerbatimOccurrence as
// occurrence-ws serializes them: nulls left out, dates as
// 2006-01-02T15:04:05.000+00:00) is written from the one column list:
// every column appears under its own name, typed by its Kind (numbers,
// booleans, strings; list columns joined with "|" as GBIF's
// getListValueAsString joins them; timestamps as dates), except the
// columns below, which GBIF shows differently or not at all. Verbatim
// terms that are no column follow, as GBIF adds a record's verbatim
// fields that interpretation did not consume.

// hiddenColumns are columns of GBIF's occurrence.txt that are not in its
// occurrence JSON: flags GBIF indexes but does not return, names it keeps
// write-only. The columns after GBIF's (Extra: this table's helpers, the
// verbatim and extension documents, the DNA and geological facts GBIF's
// search index keeps apart) are left out too, but for shownExtras; some
// come back in shapes of their own below (media, extensions,
// dnaSequenceID).
var hiddenColumns = map[string]bool{
	occurrence.ColHasCoordinate: true, occurrence.ColHasGeospatialIssue: true, "taxonomicIssue": true,
	"nonTaxonomicIssue": true, occurrence.ColMediaType: true, "repatriated": true, "isInvasive": true,
	occurrence.ColVerbatimScientificName: true,
}

// shownExtras are the Extra columns GBIF's occurrence JSON has as they are.
var shownExtras = map[string]bool{occurrence.ColPublishingOrgKey: true}

// fromExtensions are columns derived from a record's extension rows: a
// core row's own value of their term (a publisher's measurementType in
// the core) is still a verbatim field of the record.
var fromExtensions = map[string]bool{
	occurrence.ColDwcaExtension: true, occurrence.ColMeasurementType: true, occurrence.ColMeasurementTypeID: true,
}

// gadmColumns fill GBIF's "gadm" object: level -> gid, name.
var gadmColumns = [4][2]string{
	{"level0Gid", "level0Name"}, {"level1Gid", "level1Name"}, {"level2Gid", "level2Name"}, {"level3Gid", "level3Name"},
}

// agentColumns become GBIF's recordedByIDs and identifiedByIDs lists of
// {type, value}.
var agentColumns = map[string]string{"recordedByID": "recordedByIDs", "identifiedByID": "identifiedByIDs"}

// primitiveBools are GBIF boolean properties that are never null (false
// when unknown).
var primitiveBools = map[string]bool{"isSequenced": true}

// removedByInterpretation are the verbatim terms GBIF's TermUtils lists as
// subject to interpretation that no column of this table carries: GBIF
// leaves them out of the interpreted record (gbif/occurrence
// occurrence-common TermUtils.TERMS_SUBJECT_TO_INTERPRETATION).
var removedByInterpretation = map[string]bool{
	occurrence.NSDwC + "verbatimLatitude": true, occurrence.NSDwC + "verbatimLongitude": true,
	occurrence.NSDwC + "verbatimCoordinates": true, occurrence.NSDwC + "geodeticDatum": true,
	occurrence.NSDwC + "country": true, occurrence.NSDwC + "scientificNameAuthorship": true,
	occurrence.NSDwC + "minimumDepthInMeters": true, occurrence.NSDwC + "maximumDepthInMeters": true,
	occurrence.NSDwC + "minimumElevationInMeters": true, occurrence.NSDwC + "maximumElevationInMeters": true,
	occurrence.NSDwC + "associatedMedia": true, occurrence.NSGBIF + "gbifID": true,
}

// knownNamespaces are those whose terms GBIF's TermFactory knows: their
// verbatim fields are named by simple name, others by URI.
var knownNamespaces = []string{occurrence.NSDwC, occurrence.NSDC, occurrence.NSGBIF,
	"http://purl.org/dc/elements/1.1/", "http://rs.tdwg.org/ac/terms/", "http://ns.adobe.com/xap/1.0/"}

// dateLayout is how GBIF's API writes a java.util.Date.
const dateLayout = "2006-01-02T15:04:05.000+00:00"

// recordPlan says which columns a record's JSON reads and how each is
// written; built once from the column list.
type recordPlan struct {
	cols []string // materialized, in batch order
	// fields are the plain columns: name and batch index.
	fields []planField
	// indices of the special columns in cols (-1 when absent)
	id, country, lat, issue, media, ext, verbatim, dnaID int
	agents                                               []planField
	gadm                                                 [4][2]int
	// columnTerms are the term URIs the columns carry: verbatim fields
	// of these terms are not repeated.
	columnTerms map[string]bool
}

type planField struct {
	name string
	col  int
	kind occurrence.Kind
}

var recordJSON = newRecordPlan()

func newRecordPlan() *recordPlan {
	p := &recordPlan{columnTerms: map[string]bool{}}
	idx := func(name string) int {
		if i := slices.Index(p.cols, name); i >= 0 {
			return i
		}
		p.cols = append(p.cols, name)
		return len(p.cols) - 1
	}
	gadm := map[string]bool{}
	for _, g := range gadmColumns {
		gadm[g[0]], gadm[g[1]] = true, true
	}
	for _, c := range occurrence.Columns() {
		if c.Term != "" && !fromExtensions[c.Name] {
			p.columnTerms[c.Term] = true
		}
		if c.Source != "" {
			p.columnTerms[c.Source] = true
		}
		switch {
		case hiddenColumns[c.Name], c.Extra && !shownExtras[c.Name], gadm[c.Name],
			c.Name == occurrence.ColGBIFID, c.Name == occurrence.ColIssue:
		case agentColumns[c.Name] != "":
			p.agents = append(p.agents, planField{name: agentColumns[c.Name], col: idx(c.Name), kind: c.Kind})
		default:
			p.fields = append(p.fields, planField{name: c.Name, col: idx(c.Name), kind: c.Kind})
		}
	}
	p.id, p.country, p.lat = idx(occurrence.ColGBIFID), idx(occurrence.ColCountryCode), idx(occurrence.ColDecimalLatitude)
	p.issue, p.media, p.ext = idx(occurrence.ColIssue), idx(occurrence.ColMultimedia), idx(occurrence.ColExtensions)
	p.verbatim, p.dnaID = idx(occurrence.ColVerbatim), idx(occurrence.ColDNASequenceID)
	for i, g := range gadmColumns {
		p.gadm[i] = [2]int{idx(g[0]), idx(g[1])}
	}
	return p
}

// jsonObject appends an object's members with their separators.
type jsonObject struct {
	b     []byte
	n     int
	names map[string]bool // names written, when a later member may collide
}

func (o *jsonObject) key(name string) {
	if o.n > 0 {
		o.b = append(o.b, ',')
	} else {
		o.b = append(o.b, '{')
	}
	o.n++
	o.b = occurrence.AppendJSONString(o.b, name)
	o.b = append(o.b, ':')
	if o.names != nil {
		o.names[name] = true
	}
}

func (o *jsonObject) str(name, v string) {
	o.key(name)
	o.b = occurrence.AppendJSONString(o.b, v)
}

func (o *jsonObject) raw(name, v string) {
	o.key(name)
	o.b = append(o.b, v...)
}

func (o *jsonObject) close() []byte {
	if o.n == 0 {
		return append(o.b, '{', '}')
	}
	return append(o.b, '}')
}

// appendRecord appends row i of b (a batch with recordJSON.cols) as
// GBIF's occurrence JSON.
func (p *recordPlan) appendRecord(dst []byte, b arrow.RecordBatch, i int) []byte {
	o := jsonObject{b: dst, names: map[string]bool{}}
	cols := b.Columns()
	id := cols[p.id].(*array.Int64).Value(i)
	o.raw("key", strconv.FormatInt(id, 10))
	for _, f := range p.fields {
		p.appendField(&o, f, cols[f.col], i)
	}
	if v, ok := stringAt(cols[p.country], i); ok {
		o.str("country", countryTitle(v))
	}
	if cols[p.lat].IsValid(i) {
		o.str("geodeticDatum", "WGS84")
	}
	o.key("issues")
	o.b = appendList(o.b, cols[p.issue], i)
	for _, f := range p.agents {
		o.key(f.name)
		o.b = appendAgents(o.b, cols[f.col], i)
	}
	o.key("gadm")
	o.b = p.appendGadm(o.b, cols, i)
	o.key("media")
	if v, ok := stringAt(cols[p.media], i); ok && gjson.Valid(v) {
		o.b = append(o.b, v...)
	} else {
		o.b = append(o.b, '[', ']')
	}
	ext, _ := stringAt(cols[p.ext], i)
	o.key("extensions")
	o.b = appendExtensions(o.b, ext)
	o.key("facts")
	o.b = appendFacts(o.b, ext)
	o.raw("identifiers", "[]")
	o.raw("relations", "[]")
	o.raw("isInCluster", "false")
	o.key("dnaSequenceID")
	o.b = appendList(o.b, cols[p.dnaID], i)
	o.str("gbifID", strconv.FormatInt(id, 10))
	if v, ok := stringAt(cols[p.verbatim], i); ok {
		p.appendVerbatimFields(&o, v)
	}
	return o.close()
}

// appendField writes one plain column, leaving a null out.
func (p *recordPlan) appendField(o *jsonObject, f planField, a arrow.Array, i int) {
	if !a.IsValid(i) {
		if primitiveBools[f.name] {
			o.raw(f.name, "false")
		}
		return
	}
	switch f.kind {
	case occurrence.KindInt32:
		o.raw(f.name, strconv.FormatInt(int64(a.(*array.Int32).Value(i)), 10))
	case occurrence.KindInt64:
		o.raw(f.name, strconv.FormatInt(a.(*array.Int64).Value(i), 10))
	case occurrence.KindFloat64:
		v := a.(*array.Float64).Value(i)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		o.key(f.name)
		o.b = appendFloat(o.b, v)
	case occurrence.KindBool:
		o.raw(f.name, strconv.FormatBool(a.(*array.Boolean).Value(i)))
	case occurrence.KindTimestamp:
		o.str(f.name, formatDate(int64(a.(*array.Timestamp).Value(i))))
	case occurrence.KindMulti:
		o.str(f.name, strings.ReplaceAll(a.(*array.String).Value(i), ";", "|"))
	default:
		v := a.(*array.String).Value(i)
		switch f.name {
		case occurrence.ColLicense:
			if v == occurrence.LicenseUnspecified {
				v = "unspecified" // gbif-api LicenseSerde: a licence without a URL, its name in lower case
			}
		case occurrence.ColDateIdentified:
			v = localDate(v)
		}
		o.str(f.name, v)
	}
}

// appendFloat writes a double as a JSON number.
func appendFloat(b []byte, v float64) []byte {
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.AppendFloat(b, v, 'e', -1, 64)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

func formatDate(ms int64) string { return time.UnixMilli(ms).UTC().Format(dateLayout) }

// localDate turns a local ISO date or date-time (dateIdentified as
// interpretation stores it) into GBIF's date form; anything else is kept.
func localDate(v string) string {
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.Format(dateLayout)
		}
	}
	return v
}

func stringAt(a arrow.Array, i int) (string, bool) {
	if !a.IsValid(i) {
		return "", false
	}
	v := a.(*array.String).Value(i)
	return v, v != ""
}

// appendList writes a ";"-joined list column as a JSON array.
func appendList(b []byte, a arrow.Array, i int) []byte {
	b = append(b, '[')
	if v, ok := stringAt(a, i); ok {
		for j, s := range strings.Split(v, ";") {
			if j > 0 {
				b = append(b, ',')
			}
			b = occurrence.AppendJSONString(b, s)
		}
	}
	return append(b, ']')
}

// appendAgents writes recordedByID or identifiedByID as GBIF's
// AgentIdentifier list: ORCID and Wikidata identifiers typed, others
// OTHER.
func appendAgents(b []byte, a arrow.Array, i int) []byte {
	b = append(b, '[')
	if v, ok := stringAt(a, i); ok {
		for j, s := range strings.Split(v, ";") {
			if j > 0 {
				b = append(b, ',')
			}
			typ := "OTHER"
			switch l := strings.ToLower(s); {
			case strings.Contains(l, "orcid.org/"):
				typ = "ORCID"
			case strings.Contains(l, "wikidata.org/"):
				typ = "WIKIDATA"
			}
			b = append(b, `{"type":"`...)
			b = append(b, typ...)
			b = append(b, `","value":`...)
			b = occurrence.AppendJSONString(b, s)
			b = append(b, '}')
		}
	}
	return append(b, ']')
}

func (p *recordPlan) appendGadm(b []byte, cols []arrow.Array, i int) []byte {
	o := jsonObject{b: b}
	for level, c := range p.gadm {
		gid, ok := stringAt(cols[c[0]], i)
		if !ok {
			continue
		}
		o.key("level" + strconv.Itoa(level))
		f := jsonObject{b: o.b}
		f.str("gid", gid)
		if name, ok := stringAt(cols[c[1]], i); ok {
			f.str("name", name)
		}
		o.b = f.close()
	}
	return o.close()
}

// appendExtensions writes the extensions column ({rowType: [{verbatim key:
// value}]}) as GBIF's extensions: row type -> rows keyed by term URI.
func appendExtensions(b []byte, ext string) []byte {
	o := jsonObject{b: b}
	if ext == "" || !gjson.Valid(ext) {
		return o.close()
	}
	gjson.Parse(ext).ForEach(func(rowType, rows gjson.Result) bool {
		o.key(rowType.String())
		o.b = append(o.b, '[')
		n := 0
		rows.ForEach(func(_, row gjson.Result) bool {
			if n > 0 {
				o.b = append(o.b, ',')
			}
			n++
			r := jsonObject{b: o.b}
			row.ForEach(func(k, v gjson.Result) bool {
				r.str(occurrence.VerbatimTerm(k.String()), v.String())
				return true
			})
			o.b = r.close()
			return true
		})
		o.b = append(o.b, ']')
		return true
	})
	return o.close()
}

// factTerms map the MeasurementOrFact extension's terms onto GBIF's
// MeasurementOrFact properties (its "facts" list).
var factTerms = []struct{ term, name string }{
	{"measurementID", "id"}, {"measurementType", "type"}, {"measurementValue", "value"},
	{"measurementUnit", "unit"}, {"measurementAccuracy", "accuracy"}, {"measurementMethod", "method"},
	{"measurementDeterminedBy", "determinedBy"}, {"measurementDeterminedDate", "determinedDate"},
	{"measurementRemarks", "remarks"},
}

// appendFacts writes the record's MeasurementOrFact rows as GBIF's facts.
func appendFacts(b []byte, ext string) []byte {
	b = append(b, '[')
	if ext != "" {
		rows := gjson.Get(ext, gjson.Escape(occurrence.RowTypeMeasurement))
		n := 0
		rows.ForEach(func(_, row gjson.Result) bool {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			o := jsonObject{b: b}
			for _, f := range factTerms {
				if v := row.Get(f.term); v.Exists() && v.String() != "" {
					o.str(f.name, v.String())
				}
			}
			b = o.close()
			return true
		})
	}
	return append(b, ']')
}

// appendVerbatimFields adds the record's verbatim terms that no column
// carries and interpretation did not consume, named as GBIF names them:
// by simple name for terms of the namespaces GBIF knows (by URI when a
// member of that name exists already), by URI otherwise.
func (p *recordPlan) appendVerbatimFields(o *jsonObject, verbatim string) {
	if !gjson.Valid(verbatim) {
		return
	}
	type field struct{ name, value string }
	var extra []field
	gjson.Parse(verbatim).ForEach(func(k, v gjson.Result) bool {
		term := occurrence.VerbatimTerm(k.String())
		if p.columnTerms[term] || removedByInterpretation[term] || v.String() == "" {
			return true
		}
		name := term
		for _, ns := range knownNamespaces {
			if simple, ok := strings.CutPrefix(term, ns); ok && !o.names[simple] {
				name = simple
				break
			}
		}
		extra = append(extra, field{name, v.String()})
		return true
	})
	slices.SortFunc(extra, func(a, b field) int { return strings.Compare(a.name, b.name) })
	for _, f := range extra {
		if !o.names[f.name] {
			o.str(f.name, f.value)
		}
	}
}

// verbatimCols are what GBIF's verbatim record reads.
var verbatimCols = []string{occurrence.ColGBIFID, occurrence.ColDatasetKey, occurrence.ColPublishingOrgKey,
	"publishingCountry", "protocol", "lastCrawled", "lastParsed", occurrence.ColVerbatim, occurrence.ColExtensions}

// appendVerbatim appends row i of b (a batch with verbatimCols) as GBIF's
// VerbatimOccurrence JSON: the record's keys and crawl facts, its
// extensions, then every verbatim term keyed by URI.
func appendVerbatim(dst []byte, b arrow.RecordBatch, i int) []byte {
	o := jsonObject{b: dst}
	cols := b.Columns()
	id := cols[0].(*array.Int64).Value(i)
	o.raw("key", strconv.FormatInt(id, 10))
	for j, name := range verbatimCols[1:5] {
		if v, ok := stringAt(cols[j+1], i); ok {
			o.str(name, v)
		}
	}
	for j, name := range verbatimCols[5:7] {
		if a := cols[j+5]; a.IsValid(i) {
			o.str(name, formatDate(int64(a.(*array.Timestamp).Value(i))))
		}
	}
	ext, _ := stringAt(cols[8], i)
	o.key("extensions")
	o.b = appendExtensions(o.b, ext)
	type field struct{ term, value string }
	fields := []field{{occurrence.NSGBIF + "gbifID", strconv.FormatInt(id, 10)}}
	if v, ok := stringAt(cols[7], i); ok && gjson.Valid(v) {
		gjson.Parse(v).ForEach(func(k, v gjson.Result) bool {
			if t := occurrence.VerbatimTerm(k.String()); t != fields[0].term && v.String() != "" {
				fields = append(fields, field{t, v.String()})
			}
			return true
		})
	}
	slices.SortFunc(fields, func(a, b field) int { return strings.Compare(a.term, b.term) })
	for _, f := range fields {
		o.str(f.term, f.value)
	}
	return o.close()
}

// RecordField is one member of the occurrence JSON and its JSON type
// (integer, number, boolean, string, array, object; Format date-time for
// dates), for the OpenAPI document.
type RecordField struct {
	Name, Type, Format string
}

// RecordFields lists the members an occurrence's JSON can have, from the
// column list (verbatim terms beyond the columns are not listed).
func RecordFields() []RecordField {
	p := recordJSON
	out := []RecordField{{Name: "key", Type: "integer"}}
	for _, f := range p.fields {
		rf := RecordField{Name: f.name, Type: "string"}
		switch f.kind {
		case occurrence.KindInt32, occurrence.KindInt64:
			rf.Type = "integer"
		case occurrence.KindFloat64:
			rf.Type = "number"
		case occurrence.KindBool:
			rf.Type = "boolean"
		case occurrence.KindTimestamp:
			rf.Format = "date-time"
		}
		if f.name == occurrence.ColDateIdentified {
			rf.Format = "date-time"
		}
		out = append(out, rf)
	}
	out = append(out, RecordField{Name: "country", Type: "string"}, RecordField{Name: "geodeticDatum", Type: "string"},
		RecordField{Name: "issues", Type: "array"})
	for _, f := range p.agents {
		out = append(out, RecordField{Name: f.name, Type: "array"})
	}
	return append(out, RecordField{Name: "gadm", Type: "object"}, RecordField{Name: "media", Type: "array"},
		RecordField{Name: "extensions", Type: "object"}, RecordField{Name: "facts", Type: "array"},
		RecordField{Name: "identifiers", Type: "array"}, RecordField{Name: "relations", Type: "array"},
		RecordField{Name: "isInCluster", Type: "boolean"}, RecordField{Name: "dnaSequenceID", Type: "array"},
		RecordField{Name: "gbifID", Type: "string"})
}
