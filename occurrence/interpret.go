package occurrence

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// DatasetContext is what interpretation knows about the record's dataset.
type DatasetContext struct {
	Key              string
	Title            string
	License          string // the dataset's licence as given (URI or text)
	PublishingOrgKey string
	// Protocol is how the records were published, as GBIF's EndpointType
	// names it (DWC_ARCHIVE, BIOCASE, BIOCASE_XML_ARCHIVE); it fills the
	// protocol column.
	Protocol string
	// Now stamps lastInterpreted and bounds plausible dates; zero means
	// time.Now().
	Now time.Time
}

// column indices used by interpretation.
var (
	iGBIFID           = mustIndex(ColGBIFID)
	iDatasetKey       = mustIndex(ColDatasetKey)
	iDatasetName      = mustIndex(ColDatasetName)
	iPublishingOrgKey = mustIndex(ColPublishingOrgKey)
	iOccurrenceID     = mustIndex(ColOccurrenceID)
	iBasisOfRecord    = mustIndex(ColBasisOfRecord)
	iOccStatus        = mustIndex(ColOccurrenceStatus)
	iTaxonRank        = mustIndex(ColTaxonRank)
	iScientificName   = mustIndex(ColScientificName)
	iVerbatimSciName  = mustIndex(ColVerbatimScientificName)
	iVerbatimAuthor   = mustIndex(ColVerbatimScientificNameAuthorship)
	iSpecies          = mustIndex(ColSpecies)
	iGenus            = mustIndex(ColGenus)
	iCountryCode      = mustIndex(ColCountryCode)
	iLat              = mustIndex(ColDecimalLatitude)
	iLon              = mustIndex(ColDecimalLongitude)
	iUncertainty      = mustIndex(ColCoordinateUncertaintyInMeters)
	iPrecision        = mustIndex(ColCoordinatePrecision)
	iHasCoordinate    = mustIndex(ColHasCoordinate)
	iHasGeoIssue      = mustIndex(ColHasGeospatialIssue)
	iEventDate        = mustIndex(ColEventDate)
	iEventStart       = mustIndex(ColEventDateStart)
	iEventEnd         = mustIndex(ColEventDateEnd)
	iYear             = mustIndex(ColYear)
	iMonth            = mustIndex(ColMonth)
	iDay              = mustIndex(ColDay)
	iElevation        = mustIndex(ColElevation)
	iElevationAcc     = mustIndex(ColElevationAccuracy)
	iDepth            = mustIndex(ColDepth)
	iDepthAcc         = mustIndex(ColDepthAccuracy)
	iDateIdentified   = mustIndex(ColDateIdentified)
	iTypeStatus       = mustIndex(ColTypeStatus)
	iSex              = mustIndex("sex")
	iLifeStage        = mustIndex("lifeStage")
	iLicense          = mustIndex(ColLicense)
	iIndividualCount  = mustIndex(ColIndividualCount)
	iMediaType        = mustIndex(ColMediaType)
	iIssue            = mustIndex(ColIssue)
	iLastInterpreted  = mustIndex(ColLastInterpreted)
	iLastParsed       = mustIndex("lastParsed")
	iLastCrawled      = mustIndex("lastCrawled")
	iProtocol         = mustIndex("protocol")
	iModified         = mustIndex("modified")
	iStartDayOfYear   = mustIndex("startDayOfYear")
	iEndDayOfYear     = mustIndex("endDayOfYear")
	iContinent        = mustIndex("continent")
	iNonTaxonIssue    = mustIndex("nonTaxonomicIssue")
	iVerbatim         = mustIndex(ColVerbatim)
	iMultimedia       = mustIndex(ColMultimedia)
	iExtensions       = mustIndex(ColExtensions)
	iIsSequenced      = mustIndex("isSequenced")

	iRelativeOrganismQuantity = mustIndex("relativeOrganismQuantity")
)

// passedColumn is a Passed column and its kind.
type passedColumn struct {
	col  int
	kind Kind
}

// passedByTerm maps a raw term to the Passed column that carries it.
var passedByTerm = func() map[string]passedColumn {
	m := map[string]passedColumn{}
	for i, c := range columns {
		if c.Fill != Passed {
			continue
		}
		src := c.Source
		if src == "" {
			src = c.Term
		}
		m[src] = passedColumn{col: i, kind: c.Kind}
	}
	return m
}()

// gbifKeys are GBIF backbone keys a source may carry (GBIF downloads do).
var gbifKeys = []struct {
	col  int
	term TermID
}{
	{mustIndex(ColTaxonKey), KnownTerm(NSGBIF + "taxonKey")},
	{mustIndex(ColAcceptedTaxonKey), KnownTerm(NSGBIF + "acceptedTaxonKey")},
	{mustIndex(ColKingdomKey), KnownTerm(NSGBIF + "kingdomKey")},
	{mustIndex(ColPhylumKey), KnownTerm(NSGBIF + "phylumKey")},
	{mustIndex(ColClassKey), KnownTerm(NSGBIF + "classKey")},
	{mustIndex(ColOrderKey), KnownTerm(NSGBIF + "orderKey")},
	{mustIndex(ColFamilyKey), KnownTerm(NSGBIF + "familyKey")},
	{mustIndex(ColGenusKey), KnownTerm(NSGBIF + "genusKey")},
	{mustIndex(ColSpeciesKey), KnownTerm(NSGBIF + "speciesKey")},
}

// interpreter carries one record's state through the interpretation steps.
type interpreter struct {
	raw    RawRecord // its Core is not nil when its Cells are
	r      *Record
	ds     DatasetContext
	issues []string // distinct, in the order flagged
}

// get returns a term's value, trimmed.
func (in *interpreter) get(term TermID) string { return strings.TrimSpace(in.raw.Value(term)) }
func (in *interpreter) flag(issue string)      { in.issues = appendUnique(in.issues, issue) }

// setList sets a list column to its values joined with ";", the download
// delimiter; no values leave it empty.
func (in *interpreter) setList(col int, vals []string) {
	if len(vals) > 0 {
		in.r.SetString(col, strings.Join(vals, ";"))
	}
}

// Interpret turns one raw record into an interpreted one the way GBIF does for
// the fields this table keeps, flagging what it could not interpret as issues
// instead of failing. rec is reset first.
func Interpret(raw RawRecord, ds DatasetContext, rec *Record) {
	rec.Reset()
	if ds.Now.IsZero() {
		ds.Now = time.Now()
	}
	if raw.Core == nil && raw.Cells == nil {
		raw.Core = Terms{}
	}
	in := &interpreter{raw: raw, r: rec, ds: ds}
	// One walk of the terms sets the Passed columns and collects the
	// verbatim document's values (written by in.verbatim).
	vs := verbatimPool.Get().(*verbatimScratch)
	defer verbatimPool.Put(vs)
	pass := func(e termEntry, v string) {
		if e.passed {
			in.pass(e.pass, v)
		}
	}
	var tab *verbatimSlots
	if raw.Cells != nil {
		tab = vs.collectCells(raw, pass)
	} else {
		tab = vs.collect(raw.Core, pass)
	}
	if tab == nil {
		for term, v := range raw.CoreTerms() {
			if p, ok := passedByTerm[term]; ok {
				in.pass(p, v)
			}
		}
	}
	for _, k := range gbifKeys {
		if v, ok := parseInt(raw.Value(k.term)); ok {
			rec.SetInt(k.col, v)
		}
	}
	in.identity()
	in.basisOfRecord()
	in.taxonomy()
	in.location()
	in.dates()
	in.otherDates()
	in.continent()
	in.measurements()
	in.typeStatus()
	in.concepts()
	in.geology()
	in.license()
	in.derived(raw.Extensions)
	in.extensionFacts(raw.Extensions)
	in.dna(raw.Extensions[RowTypeDNADerivedData])
	in.media(raw.Extensions)
	in.verbatim(vs, tab, raw)
	rec.SetTime(iLastInterpreted, ds.Now)
	// Records are parsed and "crawled" when the source is ingested.
	rec.SetTime(iLastParsed, ds.Now)
	rec.SetTime(iLastCrawled, ds.Now)
	rec.SetString(iProtocol, ds.Protocol)
	in.finishIssues()
}

// pass sets a Passed column from its raw value: trimmed text, a number or
// a boolean parsed from it (an unparsable value stays null), or the
// "|"-separated parts of a multi-value column joined with ";".
func (in *interpreter) pass(p passedColumn, raw string) {
	v := strings.TrimSpace(raw)
	if v == "" {
		return
	}
	switch p.kind {
	case KindMulti:
		in.r.SetString(p.col, joinParts(v))
	case KindInt32, KindInt64:
		if n, ok := parseInt(v); ok {
			in.r.SetInt(p.col, n)
		}
	case KindFloat64:
		if f, err := parseNumber(v); err == nil {
			in.r.SetFloat(p.col, f)
		}
	case KindBool:
		switch strings.ToLower(v) {
		case "true", "yes", "1":
			in.r.SetBool(p.col, true)
		case "false", "no", "0":
			in.r.SetBool(p.col, false)
		}
	default:
		in.r.SetString(p.col, v)
	}
}

// joinParts splits a multi-value source value at "|" (GBIF's delimiter for
// list terms), trims the parts and joins the non-empty ones with ";", the
// download delimiter. A value without "|" is returned as it is.
func joinParts(v string) string {
	if !strings.Contains(v, "|") {
		return v
	}
	parts := strings.Split(v, "|")
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ";")
}

func (in *interpreter) identity() {
	r, ds := in.r, in.ds
	r.SetString(iDatasetKey, ds.Key)
	r.SetString(iPublishingOrgKey, firstNonEmpty(in.raw.Value(kPublishingOrgKey), ds.PublishingOrgKey))
	r.SetString(iDatasetName, joinParts(firstNonEmpty(in.get(kDatasetName), ds.Title)))
	occID := in.get(kOccurrenceID)
	r.SetString(iOccurrenceID, occID)
	// gbifID stays null: the table mints it from the occurrence key
	// (occurrence.IDMinter), in ingest.
}

// parseInt parses a trimmed decimal integer. An absent value, the common
// case, returns before strconv, whose error for "" allocates.
func parseInt(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// StableID hashes a dataset key and an identity to a positive 63-bit
// number: the gbifIDs of tables written before ids were minted, and of
// generated test records.
func StableID(datasetKey, identity string) int64 {
	h := sha256.New()
	h.Write([]byte(datasetKey))
	h.Write([]byte{0})
	h.Write([]byte(identity))
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	id := int64(binary.BigEndian.Uint64(sum[:8]) &^ (1 << 63))
	if id == 0 {
		id = 1
	}
	return id
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// basisSynonyms maps normalized (upper-case, letters only) source values to
// GBIF's BasisOfRecord.
var basisSynonyms = map[string]string{
	"PRESERVEDSPECIMEN": BasisPreservedSpecimen, "SPECIMEN": BasisPreservedSpecimen,
	"HERBARIUMSHEET": BasisPreservedSpecimen, "TYPESPECIMEN": BasisPreservedSpecimen,
	"DRIEDSPECIMEN": BasisPreservedSpecimen, "PRESERVED": BasisPreservedSpecimen,
	"FOSSILSPECIMEN": BasisFossilSpecimen, "FOSSILESPECIMEN": BasisFossilSpecimen, "FOSSIL": BasisFossilSpecimen,
	"LIVINGSPECIMEN": BasisLivingSpecimen, "LIVING": BasisLivingSpecimen, "CULTURE": BasisLivingSpecimen,
	"OBSERVATION": BasisObservation, "HUMANOBSERVATION": BasisHumanObservation,
	"FIELDOBSERVATION": BasisHumanObservation, "MACHINEOBSERVATION": BasisMachineObservation,
	"MATERIALSAMPLE": BasisMaterialSample, "SAMPLE": BasisMaterialSample, "DNASAMPLE": BasisMaterialSample,
	"LITERATURE": BasisMaterialCitation, "MATERIALCITATION": BasisMaterialCitation,
	"OCCURRENCE": BasisOccurrence, "ABSENCEOBSERVATION": BasisHumanObservation,
}

func (in *interpreter) basisOfRecord() {
	v := in.get(kBasisOfRecord)
	// The upper-cased letters of v: a stack buffer, not an upper-cased copy
	// and a builder per record.
	var buf [32]byte
	key := buf[:0]
	for _, c := range v {
		if c = unicode.ToUpper(c); c >= 'A' && c <= 'Z' {
			key = append(key, byte(c))
		}
	}
	b, ok := basisSynonyms[string(key)]
	if !ok {
		b = BasisOccurrence
		in.flag(IssueBasisOfRecordInvalid)
	}
	in.r.SetString(iBasisOfRecord, b)
	status := strings.ToUpper(in.get(kOccurrenceStatus))
	switch {
	case status == "PRESENT" || status == "ABSENT":
	case status != "":
		in.flag(IssueOccurrenceStatusUnparsable)
		status = "PRESENT"
	case string(key) == "ABSENCEOBSERVATION":
		status = "ABSENT"
	default:
		status = "PRESENT"
	}
	if ic := in.get(kIndividualCount); ic != "" {
		n, err := strconv.Atoi(ic)
		if err != nil || n < 0 {
			in.flag(IssueIndividualCountInvalid)
		} else {
			in.r.SetInt(iIndividualCount, int64(n))
			if n == 0 && in.get(kOccurrenceStatus) == "" {
				status = "ABSENT"
			}
		}
	}
	in.r.SetString(iOccStatus, status)
}

func (in *interpreter) taxonomy() {
	r := in.r
	sci := in.get(kScientificName)
	author := in.get(kScientificNameAuthorship)
	genus, epithet, infra := in.get(kGenus), in.get(kSpecificEpithet), in.get(kInfraspecificEpithet)
	r.SetString(iVerbatimSciName, sci)
	r.SetString(iVerbatimAuthor, author)
	if sci == "" && genus != "" {
		sci = strings.TrimSpace(strings.Join([]string{genus, epithet, infra, author}, " "))
		sci = strings.Join(strings.Fields(sci), " ")
	}
	r.SetString(iScientificName, sci)
	rank := strings.ToUpper(strings.ReplaceAll(in.get(kTaxonRank), " ", "_"))
	r.SetString(iTaxonRank, rank)
	switch {
	case genus != "" && epithet != "":
		r.SetString(iSpecies, genus+" "+epithet)
	case rank == "SPECIES" || rank == "SUBSPECIES" || rank == "VARIETY" || rank == "FORM" || rank == "" && infra == "":
		if f := strings.Fields(sci); len(f) >= 2 && isCapitalized(f[0]) && isLowerWord(f[1]) {
			r.SetString(iSpecies, f[0]+" "+f[1])
			if genus == "" {
				r.SetString(iGenus, f[0])
			}
		}
	}
}

func isCapitalized(s string) bool {
	return s != "" && s[0] >= 'A' && s[0] <= 'Z' && isLowerWord(s[1:])
}

func isLowerWord(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c == '-') {
			return false
		}
	}
	return true
}

func (in *interpreter) location() {
	r := in.r
	if cc := in.get(kCountryCode); cc != "" {
		if code, ok := CountryCode(cc); ok {
			r.SetString(iCountryCode, code)
		} else {
			in.flag(IssueCountryInvalid)
		}
	}
	if name := in.get(kCountry); name != "" {
		code, ok := CountryCode(name)
		switch {
		case !ok && r.Get(iCountryCode).Valid:
		case !ok:
			in.flag(IssueCountryInvalid)
		case !r.Get(iCountryCode).Valid:
			r.SetString(iCountryCode, code)
			in.flag(IssueCountryDerivedFromName)
		case r.Get(iCountryCode).S != code:
			in.flag(IssueCountryMismatch)
		}
	}
	in.coordinates()
}

func (in *interpreter) coordinates() {
	r := in.r
	latS, lonS := in.get(kDecimalLatitude), in.get(kDecimalLongitude)
	if latS == "" && lonS == "" {
		latS, lonS = in.get(kVerbatimLatitude), in.get(kVerbatimLongitude)
	}
	if u := in.get(kCoordinateUncertaintyInMeters); u != "" {
		v, ok := parseMeters(u)
		if ok && v > 0 && v < 5_000_000 {
			r.SetFloat(iUncertainty, v)
		} else {
			in.flag(IssueCoordinateUncertaintyInvalid)
		}
	}
	if p := in.get(kCoordinatePrecision); p != "" {
		if v, err := parseNumber(p); err == nil && v >= 0 && v <= 1 {
			r.SetFloat(iPrecision, v)
		}
	}
	r.SetBool(iHasCoordinate, false)
	r.SetBool(iHasGeoIssue, false)
	if latS == "" || lonS == "" {
		if latS != "" || lonS != "" {
			in.flag(IssueCoordinateInvalid)
		}
		return
	}
	lat, err1 := parseCoordinate(latS)
	lon, err2 := parseCoordinate(lonS)
	switch {
	case err1 != nil || err2 != nil:
		in.flag(IssueCoordinateInvalid)
		return
	case lat < -90 || lat > 90 || lon < -180 || lon > 180:
		if lon >= -90 && lon <= 90 && lat >= -180 && lat <= 180 && (lat < -90 || lat > 90) {
			in.flag(IssuePresumedSwappedCoordinate)
			lat, lon = lon, lat
		} else {
			in.flag(IssueCoordinateOutOfRange)
			return
		}
	}
	// GBIF keeps six decimals (~0.1 m) and says so when it cut some.
	if rl, rn := roundCoordinate(lat), roundCoordinate(lon); rl != lat || rn != lon {
		in.flag(IssueCoordinateRounded)
		lat, lon = rl, rn
	}
	if lat == 0 && lon == 0 {
		in.flag(IssueZeroCoordinate)
	}
	if in.get(kGeodeticDatum) == "" {
		in.flag(IssueGeodeticDatumAssumedWGS84)
	}
	r.SetFloat(iLat, lat)
	r.SetFloat(iLon, lon)
	r.SetBool(iHasCoordinate, true)
}

// roundCoordinate rounds to six decimals, halves up as GBIF's Java does.
func roundCoordinate(v float64) float64 {
	return math.Floor(v*1e6+0.5) / 1e6
}

// parseNumber accepts a decimal comma as well as a point.
func parseNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if strings.Count(s, ",") == 1 && !strings.Contains(s, ".") {
		s = strings.Replace(s, ",", ".", 1)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		return 0, strconv.ErrSyntax
	}
	return v, err
}

// parseCoordinate accepts decimal degrees, with an optional hemisphere letter
// (N/S/E/W) and degree sign.
func parseCoordinate(s string) (float64, error) {
	s = strings.TrimSpace(strings.ReplaceAll(s, "°", ""))
	sign := 1.0
	if n := len(s); n > 1 {
		switch s[n-1] {
		case 'S', 's', 'W', 'w':
			sign, s = -1, strings.TrimSpace(s[:n-1])
		case 'N', 'n', 'E', 'e':
			s = strings.TrimSpace(s[:n-1])
		}
	}
	v, err := parseNumber(s)
	return sign * v, err
}

// parseMeters accepts "25", "25 m", "25m", "25.5 metres".
func parseMeters(s string) (float64, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, suffix := range []string{"meters", "metres", "meter", "metre", "m"} {
		if t, ok := strings.CutSuffix(s, suffix); ok {
			s = strings.TrimSpace(t)
			break
		}
	}
	v, err := parseNumber(s)
	return v, err == nil
}
