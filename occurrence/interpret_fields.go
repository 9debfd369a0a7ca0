package occurrence

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

func (in *interpreter) dates() {
	r := in.r
	y, m, d := atoiOK(in.get(kYear)), atoiOK(in.get(kMonth)), atoiOK(in.get(kDay))
	ev := in.get(kEventDate)
	var dr DateRange
	ok := false
	if ev != "" {
		if dr, ok = ParseDateRange(ev); !ok {
			in.flag(IssueRecordedDateInvalid)
		}
	}
	if !ok && y.ok {
		text := strconv.Itoa(y.v)
		if m.ok {
			text += "-" + twoDigits(m.v)
			if d.ok {
				text += "-" + twoDigits(d.v)
			}
		}
		if dr, ok = ParseDateRange(text); !ok {
			in.flag(IssueRecordedDateInvalid)
		}
	} else if ok && y.ok && (dr.Start.Year() != y.v || m.ok && int(dr.Start.Month()) != m.v && dr.Start.Month() == dr.End.Month()) {
		in.flag(IssueRecordedDateMismatch)
	}
	if !ok {
		return
	}
	if dr.Start.Year() < 1600 || dr.Start.After(in.ds.Now) {
		in.flag(IssueRecordedDateUnlikely)
	}
	r.SetString(iEventDate, dr.Text)
	r.SetInt(iStartDayOfYear, int64(dr.Start.YearDay()))
	r.SetInt(iEndDayOfYear, int64(dr.End.YearDay()))
	r.SetTime(iEventStart, dr.Start)
	r.SetTime(iEventEnd, dr.End)
	s, e := dr.Start, dr.End
	if s.Year() == e.Year() {
		r.SetInt(iYear, int64(s.Year()))
		if s.Month() == e.Month() {
			r.SetInt(iMonth, int64(s.Month()))
			if s.Day() == e.Day() {
				r.SetInt(iDay, int64(s.Day()))
			}
		}
	}
}

// otherDates interprets dateIdentified and modified as GBIF does: the first
// instant of the date, dateIdentified written as a local ISO date-time
// (2020-05-17T00:00:00), modified kept as a UTC timestamp; an unparsable
// value stays null and is flagged.
func (in *interpreter) otherDates() {
	if di := in.get(kDateIdentified); di != "" {
		if dd, ok := ParseDateRange(di); ok {
			in.r.SetString(iDateIdentified, dd.Start.UTC().Format(LayoutLocalDateTime))
		} else {
			in.flag(IssueIdentifiedDateInvalid)
		}
	}
	if m := in.get(kModified); m != "" {
		if dm, ok := ParseDateRange(m); ok {
			in.r.SetTime(iModified, dm.Start)
		} else {
			in.flag(IssueModifiedDateInvalid)
		}
	}
}

// LayoutLocalDateTime is GBIF's text form of dateIdentified: an ISO local
// date-time, no zone.
const LayoutLocalDateTime = "2006-01-02T15:04:05"

// continents are GBIF's Continent values by their normalized names.
var continents = map[string]string{
	"AFRICA": "AFRICA", "ANTARCTICA": "ANTARCTICA", "ASIA": "ASIA", "EUROPE": "EUROPE",
	"NORTHAMERICA": "NORTH_AMERICA", "OCEANIA": "OCEANIA", "AUSTRALIA": "OCEANIA",
	"SOUTHAMERICA": "SOUTH_AMERICA", "AUSTRALASIA": "OCEANIA", "CENTRALAMERICA": "NORTH_AMERICA",
}

// continent maps dwc:continent onto GBIF's Continent vocabulary.
func (in *interpreter) continent() {
	v := in.get(kContinent)
	if v == "" {
		return
	}
	var buf [32]byte
	key := buf[:0]
	for _, c := range strings.ToUpper(v) {
		if c >= 'A' && c <= 'Z' {
			key = append(key, byte(c))
		}
	}
	if c, ok := continents[string(key)]; ok {
		in.r.SetString(iContinent, c)
	} else {
		in.flag(IssueContinentInvalid)
	}
}

type optInt struct {
	v  int
	ok bool
}

func atoiOK(s string) optInt {
	v, ok := parseInt(s)
	return optInt{int(v), ok && int64(int(v)) == v}
}

func twoDigits(v int) string {
	if v < 10 && v >= 0 {
		return "0" + strconv.Itoa(v)
	}
	return strconv.Itoa(v)
}

// measurements interprets elevation and depth ranges as GBIF does: the value
// is the middle of the range and the accuracy half its width.
func (in *interpreter) measurements() {
	in.meterRange(kMinimumElevationInMeters, kMaximumElevationInMeters, iElevation, iElevationAcc,
		IssueElevationNonNumeric, IssueElevationMinMaxSwapped)
	in.meterRange(kMinimumDepthInMeters, kMaximumDepthInMeters, iDepth, iDepthAcc,
		IssueDepthNonNumeric, IssueDepthMinMaxSwapped)
}

func (in *interpreter) meterRange(minTerm, maxTerm TermID, col, accCol int, nonNumeric, swapped string) {
	minS, maxS := in.get(minTerm), in.get(maxTerm)
	if minS == "" && maxS == "" {
		return
	}
	lo, okLo := parseMeters(minS)
	hi, okHi := parseMeters(maxS)
	switch {
	case minS != "" && !okLo || maxS != "" && !okHi:
		in.flag(nonNumeric)
		return
	case minS == "":
		lo = hi
	case maxS == "":
		hi = lo
	}
	if lo > hi {
		lo, hi = hi, lo
		in.flag(swapped)
	}
	in.r.SetFloat(col, (lo+hi)/2)
	in.r.SetFloat(accCol, (hi-lo)/2)
}

// typeStatusOf is GBIF's TYPE_STATUS_SEPARATOR: "holotype of Aus bus" is
// looked up as "holotype".
var typeStatusOf = regexp.MustCompile(`(?i)^(.+?) (OF|FOR) `)

// suspectedType are the words that make an unknown type status
// SUSPECTED_TYPE rather than TYPE_STATUS_INVALID (GBIF's
// SUSPECTED_TYPE_STATUS_VALUES, gbif/vocabulary#87).
var suspectedType = []string{"?", "possible", "possibly", "potential", "maybe", "perhaps"}

// typeStatus aligns each "|"-separated part of typeStatus to a concept of
// GBIF's TypeStatus vocabulary, as GBIF's VocabularyInterpreter does: a
// part "X of/for Y" is looked up as X; a part naming no concept flags
// SUSPECTED_TYPE when it hedges ("possible holotype"), else
// TYPE_STATUS_INVALID. Concepts are kept in order, repeats too.
func (in *interpreter) typeStatus() {
	raw := in.get(kTypeStatus)
	if raw == "" {
		return
	}
	var out []string
	for _, part := range strings.Split(raw, "|") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if m := typeStatusOf.FindStringSubmatch(part); m != nil {
			part = m[1]
		}
		if c, ok := conceptsTypeStatus.lookup(part); ok {
			out = append(out, c)
			continue
		}
		lower := strings.ToLower(part)
		if slices.ContainsFunc(suspectedType, func(w string) bool { return strings.Contains(lower, w) }) {
			in.flag(IssueSuspectedType)
		} else {
			in.flag(IssueTypeStatusInvalid)
		}
	}
	in.r.SetString(iTypeStatus, strings.Join(out, ";"))
}

// conceptFields are the single values GBIF aligns to its vocabularies'
// concepts; a value naming none leaves the column empty, as in GBIF.
var conceptFields = []struct {
	term  TermID
	col   int
	vocab *conceptVocabulary
}{
	{kSex, iSex, conceptsSex},
	{kLifeStage, iLifeStage, conceptsLifeStage},
	{kEstablishmentMeans, mustIndex("establishmentMeans"), conceptsEstablishmentMeans},
	{kDegreeOfEstablishment, mustIndex("degreeOfEstablishment"), conceptsDegreeOfEstablishment},
	{kPathway, mustIndex("pathway"), conceptsPathway},
}

// concepts sets the conceptFields ("null" is no value, as GBIF reads it),
// and an empty sex or lifeStage from dynamicProperties as GBIF does.
func (in *interpreter) concepts() {
	for _, f := range conceptFields {
		v := in.get(f.term)
		if v == "" || strings.EqualFold(v, "null") {
			continue
		}
		if c, ok := f.vocab.lookup(v); ok {
			in.r.SetString(f.col, c)
		}
	}
	dp := in.get(kDynamicProperties)
	if dp == "" || strings.EqualFold(dp, "null") {
		return
	}
	lower := strings.ToLower(dp)
	for _, f := range []struct {
		col   int
		vocab *conceptVocabulary
		parse func(string) (string, bool)
	}{
		{iSex, conceptsSex, sexInDynamicProperties},
		{iLifeStage, conceptsLifeStage, lifeStageInDynamicProperties},
	} {
		if in.r.Get(f.col).Valid {
			continue
		}
		if v, ok := f.parse(lower); ok {
			if c, ok := f.vocab.lookup(v); ok {
				in.r.SetString(f.col, c)
			}
		}
	}
}

func appendUnique(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// licenseCompact drops the separators licence names are written with; built
// once, as NormalizeLicense runs for every interpreted record.
var licenseCompact = strings.NewReplacer(" ", "", "-", "", "_", "", ".", "", "(", "", ")", "")

// NormalizeLicense maps a licence URI or text to one of the stored licence
// values; ok is false when it names no licence GBIF supports.
func NormalizeLicense(s string) (string, bool) {
	switch s {
	case LicenseCC0, LicenseCCBY, LicenseCCBYNC: // already normalized
		return s, true
	}
	l := strings.ToLower(strings.TrimSpace(s))
	l = strings.ReplaceAll(l, "licences", "licenses")
	compact := licenseCompact.Replace(l)
	switch {
	case l == "":
		return LicenseUnspecified, false
	case strings.Contains(l, "publicdomain/zero") || strings.Contains(compact, "cc0") ||
		strings.Contains(l, "public domain"):
		return LicenseCC0, true
	case strings.Contains(l, "licenses/by-nc/") || strings.Contains(compact, "ccbync") ||
		strings.Contains(l, "attribution-noncommercial") || strings.Contains(l, "attribution non-commercial"):
		if strings.Contains(l, "nd") && strings.Contains(compact, "ncnd") || strings.Contains(compact, "ncsa") {
			return LicenseUnspecified, false
		}
		return LicenseCCBYNC, true
	case strings.Contains(compact, "ccbynd") || strings.Contains(compact, "ccbysa") ||
		strings.Contains(compact, "sharealike") || strings.Contains(compact, "noderiv"):
		return LicenseUnspecified, false // not a licence GBIF supports
	case strings.Contains(l, "licenses/by/") || strings.Contains(compact, "ccby") ||
		strings.Contains(l, "attribution 4.0") || strings.Contains(compact, "creativecommonsattribution"):
		return LicenseCCBY, true
	}
	return LicenseUnspecified, false
}

func (in *interpreter) license() {
	for _, v := range []string{in.raw.Value(kLicense), in.ds.License} {
		if v == "" {
			continue
		}
		if l, ok := NormalizeLicense(v); ok {
			in.r.SetString(iLicense, l)
			return
		}
	}
	in.r.SetString(iLicense, LicenseUnspecified)
}

// multimediaTerms maps extension terms onto GBIF Multimedia simple names.
var multimediaTerms = map[string]string{
	NSDC + "type": "type", "http://purl.org/dc/elements/1.1/type": "type",
	NSDC + "format": "format", "http://purl.org/dc/elements/1.1/format": "format",
	NSDC + "identifier": "identifier", "http://rs.tdwg.org/ac/terms/accessURI": "identifier",
	NSDC + "references": "references", "http://rs.tdwg.org/ac/terms/furtherInformationURL": "references",
	NSDC + "title": "title", NSDC + "description": "description",
	"http://rs.tdwg.org/ac/terms/caption": "description", NSDC + "source": "source",
	NSDC + "audience": "audience", NSDC + "created": "created",
	"http://ns.adobe.com/xap/1.0/CreateDate": "created", NSDC + "creator": "creator",
	"http://purl.org/dc/elements/1.1/creator": "creator", NSDC + "contributor": "contributor",
	NSDC + "publisher": "publisher", NSDC + "license": "license",
	"http://ns.adobe.com/xap/1.0/rights/UsageTerms": "license", NSDC + "rightsHolder": "rightsHolder",
	"http://ns.adobe.com/xap/1.0/rights/Owner": "rightsHolder",
}

// mediaRowTypes are the extensions interpreted into the multimedia column.
var mediaRowTypes = []string{RowTypeMultimedia, RowTypeAudubon, RowTypeImage}

// mediaTypeOf returns GBIF's MediaType for a multimedia row.
func mediaTypeOf(m map[string]string) string {
	t := strings.ToLower(m["type"])
	f := strings.ToLower(m["format"])
	switch {
	case strings.Contains(t, "sound") || strings.HasPrefix(f, "audio/"):
		return "Sound"
	case strings.Contains(t, "moving") || strings.Contains(t, "video") || strings.HasPrefix(f, "video/"):
		return "MovingImage"
	case strings.Contains(t, "interactive") || f == "application/json" || strings.Contains(f, "html"):
		return "InteractiveResource"
	case strings.Contains(t, "image") || strings.HasPrefix(f, "image/") || t == "" && f == "":
		return "StillImage"
	}
	return "StillImage"
}

func (in *interpreter) media(ext map[string][]Terms) {
	var rows []map[string]string
	for _, rt := range mediaRowTypes {
		for _, t := range ext[rt] {
			m := map[string]string{}
			for term, v := range t {
				if name, ok := multimediaTerms[term]; ok && strings.TrimSpace(v) != "" {
					m[name] = strings.TrimSpace(v)
				}
			}
			if len(m) > 0 {
				rows = append(rows, m)
			}
		}
	}
	for _, u := range strings.FieldsFunc(in.get(kAssociatedMedia), func(r rune) bool { return r == '|' || r == ';' || r == ' ' || r == ',' }) {
		if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
			rows = append(rows, map[string]string{"identifier": u})
		} else {
			in.flag(IssueMultimediaURIInvalid)
		}
	}
	if len(rows) == 0 {
		return
	}
	var types []string
	for _, m := range rows {
		mt := mediaTypeOf(m)
		m["type"] = mt
		types = appendUnique(types, mt)
	}
	sort.Strings(types)
	in.r.SetString(iMediaType, strings.Join(types, ";"))
	in.r.SetString(iMultimedia, string(appendJSONList(nil, rows)))
}

// verbatim sets the verbatim column from the core values vs collected in
// tab's slots (nil: none, the table was full), and the extensions column.
func (in *interpreter) verbatim(vs *verbatimScratch, tab *verbatimSlots, raw RawRecord) {
	if tab != nil {
		vs.buf = vs.write(vs.buf[:0], tab)
	} else {
		vs.buf = appendVerbatimMap(vs.buf[:0], raw.CoreMap())
	}
	in.r.SetOwned(iVerbatim, vs.buf)
	in.r.SetString(iExtensions, vs.extensionsDoc(raw.Extensions))
}

// appendJSONList appends a non-empty list of rows as json.Marshal writes it.
func appendJSONList(buf []byte, rows []map[string]string) []byte {
	buf = append(buf, '[')
	for i, m := range rows {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONObject(buf, m)
	}
	return append(buf, ']')
}

func (in *interpreter) finishIssues() {
	geo := false
	for _, g := range geospatialIssues {
		geo = geo || slices.Contains(in.issues, g)
	}
	in.r.SetBool(iHasGeoIssue, geo)
	if len(in.issues) == 0 {
		return
	}
	slices.Sort(in.issues)
	in.r.SetString(iIssue, strings.Join(in.issues, ";"))
	// Every issue this interpretation flags is a non-taxonomic one (no
	// checklist matching yet).
	in.r.SetString(iNonTaxonIssue, in.r.Get(iIssue).S)
}

// appendJSONObject appends m as a JSON object, byte for byte as json.Marshal
// writes a map[string]string (keys sorted, HTML-escaped strings) without its
// reflection, which allocated twice per entry of every record's verbatim map.
func appendJSONObject(buf []byte, m map[string]string) []byte {
	return appendJSONMap(buf, m, appendJSONString)
}

// appendJSONMap appends m as json.Marshal writes a map with string keys:
// keys sorted, each value appended by value.
func appendJSONMap[V any](buf []byte, m map[string]V, value func([]byte, V) []byte) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	buf = append(buf, '{')
	for i, k := range keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, k)
		buf = append(buf, ':')
		buf = value(buf, m[k])
	}
	return append(buf, '}')
}

// appendJSONString appends s quoted as encoding/json quotes it with HTML
// escaping on: control characters, <, > and &, invalid UTF-8 (as U+FFFD) and
// U+2028/U+2029 are escaped.
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch b {
			case '\\', '"':
				buf = append(buf, '\\', b)
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// sequenceRowTypes are the extensions whose rows make a record sequenced,
// as GBIF's BasicInterpreter.interpretIsSequenced reads them: DNA-derived
// data and GGBN's amplification, cloning and gel image.
var sequenceRowTypes = []string{
	"http://rs.gbif.org/terms/1.0/DNADerivedData",
	"http://data.ggbn.org/schemas/ggbn/terms/Amplification",
	"http://data.ggbn.org/schemas/ggbn/terms/Cloning",
	"http://data.ggbn.org/schemas/ggbn/terms/GelImage",
}

// derived sets the columns GBIF computes from other terms without a
// reference (pipelines' BasicInterpreter): isSequenced (a sequence
// extension row or associatedSequences), relativeOrganismQuantity
// (organismQuantity / sampleSizeValue when organismQuantityType and
// sampleSizeUnit name the same unit).
func (in *interpreter) derived(ext map[string][]Terms) {
	seq := in.get(kAssociatedSequences) != ""
	for _, rt := range sequenceRowTypes {
		seq = seq || len(ext[rt]) > 0
	}
	in.r.SetBool(iIsSequenced, seq)
	qt, unit := in.get(kOrganismQuantityType), in.get(kSampleSizeUnit)
	if qt != "" && strings.EqualFold(qt, unit) {
		q, errQ := parseNumber(in.get(kOrganismQuantity))
		n, errN := parseNumber(in.get(kSampleSizeValue))
		if r := q / n; errQ == nil && errN == nil && !math.IsNaN(r) && !math.IsInf(r, 0) {
			in.r.SetFloat(iRelativeOrganismQuantity, r)
		}
	}
}
