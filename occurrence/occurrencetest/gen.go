// Package occurrencetest holds what every occurrence.Backend is tested with:
// a generator of realistic records and the conformance suite of the backend
// contract (scans, catalog, loading).
package occurrencetest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// countryWeights is a skewed country distribution, roughly the shape of GBIF's
// (a few countries hold most records). Weights are percentages of datasets'
// home countries; NL sits near 5% on purpose (a 5%-selective predicate).
var countryWeights = []struct {
	code      string
	weight    float64
	lat, lon  float64 // a point inside the country
	continent string  // GBIF's Continent
}{
	{"US", 24, 39.5, -98.35, na}, {"FR", 10, 46.6, 2.2, eu}, {"GB", 9, 52.5, -1.5, eu}, {"SE", 8, 62.0, 15.0, eu},
	{"AU", 7, -25.3, 133.8, oc}, {"CA", 6, 56.1, -106.3, na}, {"NL", 5, 52.1, 5.3, eu}, {"DE", 5, 51.2, 10.4, eu},
	{"ES", 4, 40.4, -3.7, eu}, {"DK", 3, 56.0, 9.5, eu}, {"BR", 3, -14.2, -51.9, sa}, {"MX", 2.5, 23.6, -102.5, na},
	{"NO", 2.5, 60.5, 8.5, eu}, {"ZA", 2, -30.6, 22.9, af}, {"IN", 1.5, 20.6, 79.0, as}, {"CO", 1.5, 4.6, -74.3, sa},
	{"CR", 1, 9.7, -83.8, na}, {"JP", 1, 36.2, 138.3, as}, {"NZ", 1, -40.9, 174.9, oc}, {"EE", 1, 58.6, 25.0, eu},
	{"KE", 0.5, -0.02, 37.9, af}, {"PE", 0.5, -9.2, -75.0, sa}, {"TZ", 0.5, -6.4, 34.9, af}, {"MG", 0.5, -18.8, 46.9, af},
}

const (
	af, as, eu, na, oc, sa = "AFRICA", "ASIA", "EUROPE", "NORTH_AMERICA", "OCEANIA", "SOUTH_AMERICA"
)

// Pass-through vocabularies: what publishers write in these terms.
var (
	habitats = strings.Split("deciduous forest|coniferous forest|mixed woodland|grassland|wet meadow|peat bog|"+
		"sand dunes|rocky shore|salt marsh|urban park|garden|arable field|hedgerow|river bank|lake shore|"+
		"alpine meadow|heathland|scrub|mangrove|tropical rainforest|savanna|cave entrance|roadside verge", "|")
	protocols = strings.Split("opportunistic observation|transect count|point count|pitfall trap|"+
		"light trap|mist net|camera trap|herbarium sheet|hand collection|quadrat survey", "|")
	sexes        = []string{"male", "female", "hermaphrodite"}
	lifeStages   = []string{"adult", "juvenile", "larva", "egg", "seedling", "flowering"}
	waterBodies  = []string{"Baltic Sea", "North Sea", "Lake Superior", "Rhine", "Atlantic Ocean", "Pacific Ocean"}
	preparations = []string{"sheet", "skin", "alcohol 70%", "pinned", "skeleton|skull", "DNA extract"}
)

var kingdoms = []string{"Animalia", "Plantae", "Fungi", "Chromista", "Bacteria", "Protozoa", "Archaea"}
var kingdomWeights = []float64{55, 35, 5, 2, 1.5, 1, 0.5}
var bases = []string{occurrence.BasisHumanObservation, occurrence.BasisPreservedSpecimen,
	occurrence.BasisMachineObservation, occurrence.BasisMaterialSample, occurrence.BasisFossilSpecimen,
	occurrence.BasisLivingSpecimen, occurrence.BasisOccurrence}
var licenses = []string{occurrence.LicenseCC0, occurrence.LicenseCCBY, occurrence.LicenseCCBYNC}
var syllables = []string{"ba", "ra", "to", "mi", "lu", "ca", "ne", "phy", "sa", "the", "on", "ri", "dae", "go", "pu", "xi", "ver", "ol", "an", "dro"}
var words = strings.Fields("north south east west river creek lake forest meadow ridge valley near road km " +
	"from the of at bridge hill mountain marsh coast bay island old farm village church station park reserve " +
	"upper lower trail edge pine oak birch beech field pasture swamp bog heath dune cliff spring")

// taxon is one species of the generated backbone.
type taxon struct {
	keys  [8]int64 // kingdom, phylum, class, order, family, genus, species, taxon
	names [7]string
}

// Generator produces realistic interpreted occurrence records.
type Generator struct {
	rng      *rand.Rand
	taxa     []taxon
	byKing   [][]int // taxa indices per kingdom
	zipfTaxa *rand.Zipf
	countryW []float64
	verb     verbatimValues
	buf      []byte
}

// NewGenerator builds a generator with a backbone of nSpecies species.
func NewGenerator(seed uint64, nSpecies int) *Generator {
	g := &Generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	g.buildTaxa(nSpecies)
	for _, c := range countryWeights {
		g.countryW = append(g.countryW, c.weight)
	}
	return g
}

func (g *Generator) name(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(syllables[g.rng.IntN(len(syllables))])
	}
	return b.String()
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func (g *Generator) buildTaxa(n int) {
	g.byKing = make([][]int, len(kingdoms))
	next := int64(10)
	key := func() int64 { next++; return next }
	for len(g.taxa) < n {
		k := g.pick(kingdomWeights)
		t := taxon{}
		t.names[0] = kingdoms[k]
		t.keys[0] = int64(k + 1)
		// Higher ranks are shared: derive them from a small pool per kingdom.
		phylum := g.rng.IntN(6)
		class := phylum*5 + g.rng.IntN(5)
		order := class*6 + g.rng.IntN(6)
		family := order*8 + g.rng.IntN(8)
		t.names[1] = capitalize(fmt.Sprintf("%sphyta%d", kingdoms[k][:3], phylum))
		t.names[2] = capitalize(fmt.Sprintf("%sopsida%d", kingdoms[k][:2], class))
		t.names[3] = capitalize(fmt.Sprintf("%sales%d", kingdoms[k][:2], order))
		t.names[4] = capitalize(fmt.Sprintf("%saceae%d", kingdoms[k][:2], family))
		t.keys[1] = int64(k+1)*1000 + int64(phylum)
		t.keys[2] = int64(k+1)*100000 + int64(class)
		t.keys[3] = int64(k+1)*10000000 + int64(order)
		t.keys[4] = int64(k+1)*1000000000 + int64(family)
		t.names[5] = capitalize(g.name(3))
		t.names[6] = t.names[5] + " " + g.name(3)
		t.keys[5] = key()
		t.keys[6] = key()
		t.keys[7] = t.keys[6]
		g.byKing[k] = append(g.byKing[k], len(g.taxa))
		g.taxa = append(g.taxa, t)
	}
	g.zipfTaxa = rand.NewZipf(g.rng, 1.1, 2, uint64(len(g.taxa)-1))
}

func (g *Generator) pick(weights []float64) int {
	var total float64
	for _, w := range weights {
		total += w
	}
	x := g.rng.Float64() * total
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// Dataset is one generated dataset and the traits its records share.
type Dataset struct {
	Info           occurrence.DatasetInfo
	Records        int
	country        int
	basis          string
	yearMin, years int
	kingdom        int
	// global datasets (the large citizen-science ones) span every country;
	// the others are national.
	global bool
	// terms are the LoadStats.Terms the suite commits the dataset with.
	terms map[string][]string
}

// Datasets plans n datasets holding total records, sizes Zipf-distributed.
func (g *Generator) Datasets(total, n int) []Dataset {
	weights := make([]float64, n)
	var sum float64
	for i := range weights {
		weights[i] = 1 / math.Pow(float64(i+1), 0.9)
		sum += weights[i]
	}
	out := make([]Dataset, n)
	left := total
	for i := range out {
		size := int(float64(total) * weights[i] / sum)
		if i == n-1 || size > left {
			size = left
		}
		left -= size
		key := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", g.rng.Uint32(), g.rng.IntN(1<<16), g.rng.IntN(1<<12), g.rng.IntN(1<<12), g.rng.Uint64()>>16)
		basis := bases[g.pick([]float64{50, 30, 6, 5, 3, 3, 3})]
		yearMin := 1950 + g.rng.IntN(60)
		if basis == occurrence.BasisPreservedSpecimen {
			yearMin = 1800 + g.rng.IntN(150)
		}
		out[i] = Dataset{
			Info: occurrence.DatasetInfo{Key: key, Title: "Generated dataset " + strconv.Itoa(i+1),
				License: licenses[g.pick([]float64{40, 45, 15})]},
			Records: size, country: g.pick(g.countryW), basis: basis,
			yearMin: yearMin, years: 1 + g.rng.IntN(2025-yearMin), kingdom: g.pick(kingdomWeights),
			global: i == 0 || g.rng.IntN(100) < 15,
		}
	}
	return out
}

var epoch = time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)

// Fill sets rec to record number i of dataset ds.
func (g *Generator) Fill(rec *occurrence.Record, ds *Dataset, i int) {
	rec.Reset()
	r := g.rng
	set := func(col, v string) { rec.SetString(occurrence.ColumnIndex(col), v) }
	setI := func(col string, v int64) { rec.SetInt(occurrence.ColumnIndex(col), v) }
	setF := func(col string, v float64) { rec.SetFloat(occurrence.ColumnIndex(col), v) }
	occID := fmt.Sprintf("urn:catalog:%s:%d", ds.Info.Key[:8], i)
	setI(occurrence.ColGBIFID, occurrence.StableID(ds.Info.Key, "occurrenceID:"+occID))
	set(occurrence.ColDatasetKey, ds.Info.Key)
	set(occurrence.ColDatasetName, ds.Info.Title)
	set(occurrence.ColOccurrenceID, occID)
	set(occurrence.ColInstitutionCode, "INST"+ds.Info.Key[:3])
	set(occurrence.ColCollectionCode, "COLL")
	set(occurrence.ColCatalogNumber, fmt.Sprintf("C-%07d", i))
	set(occurrence.ColBasisOfRecord, ds.basis)
	set(occurrence.ColOccurrenceStatus, "PRESENT")
	// 80% of a dataset's records come from its focal kingdom.
	var t *taxon
	if r.IntN(10) < 8 && len(g.byKing[ds.kingdom]) > 0 {
		list := g.byKing[ds.kingdom]
		t = &g.taxa[list[int(g.zipfTaxa.Uint64())%len(list)]]
	} else {
		t = &g.taxa[g.zipfTaxa.Uint64()]
	}
	for j, col := range []string{occurrence.ColKingdom, occurrence.ColPhylum, occurrence.ColClass, occurrence.ColOrder, occurrence.ColFamily, occurrence.ColGenus, occurrence.ColSpecies} {
		set(col, t.names[j])
	}
	for j, col := range []string{occurrence.ColKingdomKey, occurrence.ColPhylumKey, occurrence.ColClassKey, occurrence.ColOrderKey, occurrence.ColFamilyKey, occurrence.ColGenusKey, occurrence.ColSpeciesKey, occurrence.ColTaxonKey} {
		setI(col, t.keys[j])
	}
	setI(occurrence.ColAcceptedTaxonKey, t.keys[7])
	set(occurrence.ColTaxonRank, "SPECIES")
	set(occurrence.ColScientificName, t.names[6]+" L.")
	set(occurrence.ColVerbatimScientificName, t.names[6])
	// National datasets keep 98% of their records at home; global ones follow
	// the overall country distribution.
	c := countryWeights[ds.country]
	switch {
	case ds.global:
		c = countryWeights[g.pick(g.countryW)]
	case r.IntN(50) == 0:
		c = countryWeights[r.IntN(len(countryWeights))]
	}
	set(occurrence.ColCountryCode, c.code)
	province := capitalize(g.name(2))
	set(occurrence.ColStateProvince, province)
	set(occurrence.ColLocality, g.locality())
	hasCoord := r.IntN(100) >= 15
	rec.SetBool(occurrence.ColumnIndex(occurrence.ColHasCoordinate), hasCoord)
	rec.SetBool(occurrence.ColumnIndex(occurrence.ColHasGeospatialIssue), false)
	var issues []string
	var lat, lon float64
	if hasCoord {
		// Interpreted coordinates keep at most six decimals (GBIF rounds
		// and flags COORDINATE_ROUNDED); sources publish 2 to 15.
		digits := []float64{1e2, 1e4, 1e5, 1e6, 1e6, 1e6}[r.IntN(6)]
		rounded := digits == 1e6 && r.IntN(2) == 0
		lat = math.Round(clamp(c.lat+r.NormFloat64()*3, -90, 90)*digits) / digits
		lon = math.Round(clamp(c.lon+r.NormFloat64()*4, -180, 180)*digits) / digits
		setF(occurrence.ColDecimalLatitude, lat)
		setF(occurrence.ColDecimalLongitude, lon)
		setF(occurrence.ColCoordinateUncertaintyInMeters, float64(10*(1+r.IntN(500))))
		if rounded {
			issues = append(issues, occurrence.IssueCoordinateRounded)
		}
		if r.IntN(5) == 0 {
			issues = append(issues, occurrence.IssueGeodeticDatumAssumedWGS84)
		}
	}
	year := ds.yearMin + int(math.Abs(r.NormFloat64())*float64(ds.years)/2)%ds.years
	if year > 2024 {
		year = 2024
	}
	month, day := 1+r.IntN(12), 1+r.IntN(28)
	start := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	if r.IntN(20) == 0 {
		set(occurrence.ColEventDate, fmt.Sprintf("%04d-%02d", year, month))
		rec.SetTime(occurrence.ColumnIndex(occurrence.ColEventDateStart), time.Date(year, time.Month(month), 1, 0, 0, 0, 0, time.UTC))
		rec.SetTime(occurrence.ColumnIndex(occurrence.ColEventDateEnd), time.Date(year, time.Month(month)+1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Millisecond))
		setI(occurrence.ColYear, int64(year))
		setI(occurrence.ColMonth, int64(month))
	} else {
		set(occurrence.ColEventDate, start.Format("2006-01-02"))
		rec.SetTime(occurrence.ColumnIndex(occurrence.ColEventDateStart), start)
		rec.SetTime(occurrence.ColumnIndex(occurrence.ColEventDateEnd), start.Add(24*time.Hour-time.Millisecond))
		setI(occurrence.ColYear, int64(year))
		setI(occurrence.ColMonth, int64(month))
		setI(occurrence.ColDay, int64(day))
	}
	if r.IntN(4) == 0 {
		setF(occurrence.ColElevation, float64(r.IntN(3000)))
	}
	collector := capitalize(g.name(2)) + ", " + strings.ToUpper(g.name(1)[:1]) + "."
	set(occurrence.ColRecordedBy, collector)
	set(occurrence.ColIdentifiedBy, collector)
	set(occurrence.ColLicense, ds.Info.License)
	if ds.basis == occurrence.BasisPreservedSpecimen && r.IntN(200) == 0 {
		set(occurrence.ColTypeStatus, "Holotype")
	}
	if r.IntN(8) == 0 {
		set(occurrence.ColMediaType, "StillImage")
		mm, _ := json.Marshal([]map[string]string{{"type": "StillImage", "format": "image/jpeg",
			"identifier": "https://media.example.org/" + occID + ".jpg", "license": ds.Info.License}})
		set(occurrence.ColMultimedia, string(mm))
	}
	if r.IntN(3) == 0 {
		setI(occurrence.ColIndividualCount, int64(1+r.IntN(20)))
	}
	if len(issues) > 0 {
		set(occurrence.ColIssue, strings.Join(issues, ";"))
	}
	rec.SetTime(occurrence.ColumnIndex(occurrence.ColLastInterpreted), epoch)
	v := &g.verb
	clear(v.values[:])
	v.set("occurrenceID", occID)
	v.set("basisOfRecord", ds.basis)
	v.set("scientificName", t.names[6]+" L.")
	v.set("countryCode", c.code)
	v.set("eventDate", start.Format("2006-01-02"))
	v.set("recordedBy", collector)
	v.set("identifiedBy", collector)
	v.set("locality", "see interpreted")
	v.set("catalogNumber", fmt.Sprintf("C-%07d", i))
	v.set("institutionCode", "INST"+ds.Info.Key[:3])
	v.set("collectionCode", "COLL")
	v.set("kingdom", t.names[0])
	v.set("family", t.names[4])
	v.set("taxonRank", "species")
	v.set("occurrenceStatus", "present")
	v.set("stateProvince", province)
	if hasCoord {
		v.set("decimalLatitude", strconv.FormatFloat(lat, 'f', -1, 64))
		v.set("decimalLongitude", strconv.FormatFloat(lon, 'f', -1, 64))
		v.set("geodeticDatum", "WGS84")
	}
	g.fillPassThrough(rec, ds, t, c.continent, start, i)
	set(occurrence.ColVerbatim, string(v.appendJSON(g.buf[:0])))
}

// fillPassThrough sets the terms GBIF passes through (or lightly
// interprets) at the rates publishers fill them, and their verbatim
// values: a generated record has about 35 verbatim terms and 55 filled
// columns, as typical published records.
func (g *Generator) fillPassThrough(rec *occurrence.Record, ds *Dataset, t *taxon, continent string, start time.Time, i int) {
	r, v := g.rng, &g.verb
	both := func(col, val string) {
		rec.SetString(occurrence.ColumnIndex(col), val)
		v.set(col, val)
	}
	some := func(pct int, col string, val func() string) {
		if r.IntN(100) < pct {
			both(col, val())
		}
	}
	pick := func(list []string) func() string { return func() string { return list[r.IntN(len(list))] } }
	rec.SetString(occurrence.ColumnIndex("continent"), continent)
	if r.IntN(3) == 0 {
		v.set("continent", continent)
	}
	genus, epithet, _ := strings.Cut(t.names[6], " ")
	both("genericName", genus)
	both("specificEpithet", epithet)
	both("taxonomicStatus", "ACCEPTED")
	rec.SetString(occurrence.ColumnIndex("acceptedScientificName"), t.names[6]+" L.")
	both("eventID", fmt.Sprintf("%s:ev:%d", ds.Info.Key[:8], i/8))
	both("type", []string{"Event", "PhysicalObject"}[btoi(ds.basis == occurrence.BasisPreservedSpecimen)])
	both("language", "en")
	both("rightsHolder", "Institute "+strings.ToUpper(ds.Info.Key[:3]))
	both("institutionID", "https://ror.org/0"+ds.Info.Key[:8])
	some(40, "collectionID", func() string { return "urn:collection:" + ds.Info.Key[9:13] })
	some(50, "references", func() string { return "https://records.example.org/" + ds.Info.Key[:8] + "/" + strconv.Itoa(i) })
	some(60, "habitat", pick(habitats))
	some(70, "samplingProtocol", pick(protocols))
	some(25, "occurrenceRemarks", g.locality)
	some(20, "sex", pick(sexes))
	some(20, "lifeStage", pick(lifeStages))
	some(5, "waterBody", pick(waterBodies))
	some(50, "county", func() string { return capitalize(g.name(2)) })
	some(40, "municipality", func() string { return capitalize(g.name(3)) })
	some(50, "recordNumber", func() string { return strconv.Itoa(1 + r.IntN(20000)) })
	some(20, "fieldNumber", func() string { return "F" + strconv.Itoa(r.IntN(5000)) })
	some(30, "verbatimEventDate", func() string { return start.Format("2 Jan 2006") })
	some(30, "georeferencedBy", func() string { return capitalize(g.name(2)) })
	some(20, "georeferenceProtocol", func() string { return "GEOLocate" })
	some(20, "vernacularName", func() string { return capitalize(g.name(2)) + " " + g.name(2) })
	some(15, "ownerInstitutionCode", func() string { return "OWN" + ds.Info.Key[:2] })
	if ds.basis == occurrence.BasisPreservedSpecimen {
		some(80, "preparations", pick(preparations))
	}
	doy := int64(start.YearDay())
	rec.SetInt(occurrence.ColumnIndex("startDayOfYear"), doy)
	rec.SetInt(occurrence.ColumnIndex("endDayOfYear"), doy)
	if r.IntN(100) < 40 {
		d := start.AddDate(r.IntN(3), r.IntN(12), 0)
		rec.SetString(occurrence.ColumnIndex("dateIdentified"), d.Format("2006-01-02T15:04:05"))
		v.set("dateIdentified", d.Format("2006-01-02"))
	}
	mod := epoch.AddDate(0, 0, -r.IntN(3000))
	rec.SetTime(occurrence.ColumnIndex("modified"), mod)
	v.set("dcterms:modified", mod.Format("2006-01-02"))
	rec.SetString(occurrence.ColumnIndex("protocol"), "DWC_ARCHIVE")
	rec.SetTime(occurrence.ColumnIndex("lastParsed"), epoch)
	rec.SetTime(occurrence.ColumnIndex("lastCrawled"), epoch)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// verbatimKeys are the terms a generated record's verbatim column can hold,
// in key order, so that it encodes as the interpreter's map[string]string
// would without sorting a map per record.
var verbatimKeys = func() []string {
	keys := strings.Fields("occurrenceID basisOfRecord scientificName countryCode eventDate recordedBy identifiedBy " +
		"locality catalogNumber institutionCode collectionCode kingdom family taxonRank occurrenceStatus stateProvince " +
		"decimalLatitude decimalLongitude geodeticDatum continent genericName specificEpithet taxonomicStatus eventID type " +
		"language rightsHolder institutionID collectionID references habitat samplingProtocol occurrenceRemarks sex lifeStage " +
		"waterBody county municipality recordNumber fieldNumber verbatimEventDate georeferencedBy georeferenceProtocol " +
		"vernacularName ownerInstitutionCode preparations dateIdentified dcterms:modified")
	slices.Sort(keys)
	return keys
}()

var verbatimIndex = func() map[string]int {
	m := map[string]int{}
	for i, k := range verbatimKeys {
		m[k] = i
	}
	return m
}()

// verbatimValues is one record's verbatim terms, by verbatimKeys.
type verbatimValues struct {
	values [64]string
}

func (v *verbatimValues) set(key, val string) { v.values[verbatimIndex[key]] = val }

// appendJSON appends the non-empty values as a JSON object in key order.
// Generated values are printable ASCII without <, > or &, which Go's
// quoting writes as encoding/json does.
func (v *verbatimValues) appendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	for i, k := range verbatimKeys {
		if v.values[i] == "" {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = strconv.AppendQuote(append(strconv.AppendQuote(b, k), ':'), v.values[i])
	}
	return append(b, '}')
}

func (g *Generator) locality() string {
	n := 4 + g.rng.IntN(10)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[g.rng.IntN(len(words))]
	}
	return capitalize(strings.Join(parts, " "))
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// Reseed restarts the generator's random stream (the backbone is kept), so
// that several goroutines can fill records from one plan independently.
func (g *Generator) Reseed(seed uint64) {
	g.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g.zipfTaxa = rand.NewZipf(g.rng, 1.1, 2, uint64(len(g.taxa)-1))
}

// Terms returns the terms generated records can carry in their verbatim
// column, by row type, as a load commits them (occurrence.LoadStats.Terms).
func Terms() map[string][]string {
	terms := make([]string, len(verbatimKeys))
	for i, k := range verbatimKeys {
		terms[i] = occurrence.VerbatimTerm(k)
	}
	slices.Sort(terms)
	return map[string][]string{occurrence.RowTypeOccurrence: terms}
}
