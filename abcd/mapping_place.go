package abcd

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// dateValue is the ISO interval Begin/End of an ABCD DateTime element: Begin
// alone when End is missing or equal, End alone when Begin is missing, and
// DateText when neither is given. Values stay verbatim.
func dateValue(dt *node) string {
	b, e := text(dt, "ISODateTimeBegin"), text(dt, "ISODateTimeEnd")
	switch {
	case b != "" && e != "" && b != e:
		return b + "/" + e
	case b != "":
		return b
	case e != "":
		return e
	}
	return text(dt, "DateText")
}

func mapEvent(t terms, g *node) {
	dt := child(g, "DateTime")
	t.set(dwc+"eventDate", dateValue(dt))
	t.set(dwc+"verbatimEventDate", text(dt, "DateText"))
	tb, te := text(dt, "TimeOfDayBegin"), text(dt, "TimeOfDayEnd")
	if tb != "" && te != "" && tb != te {
		tb += "/" + te
	} else if tb == "" {
		tb = te
	}
	t.set(dwc+"eventTime", tb)
	t.set(dwc+"startDayOfYear", text(dt, "DayNumberBegin"))
	t.set(dwc+"endDayOfYear", text(dt, "DayNumberEnd"))
	t.set(dwc+"fieldNumber", text(g, "Code"))
	t.set(dwc+"samplingProtocol", text(g, "Method"))
	t.set(dwc+"habitat", firstText(g, []string{"Biotope", "Text"}, []string{"Biotope", "Name"}))
	mapSynecology(t, g)
	mapAgents(t, g)
}

// mapSynecology sets eventRemarks from Gathering/Notes and then the
// Synecology Comment (the XSD's "comment on synecological features of the
// gathering site", so the event's, not the occurrence's), and associatedTaxa
// from the names of the AssociatedTaxa ("other taxa observed at the
// gathering site"; ABCD gives no relationship, so none is written). The
// Syntaxon, the plant community of the site ("Quercetum ilicis"), follows
// the Biotope in habitat, labelled, since a community's name reads as a
// taxon's.
func mapSynecology(t terms, g *node) {
	syn := child(g, "Synecology")
	t.set(dwc+"eventRemarks", joinValues([]string{text(g, "Notes"), text(syn, "Comment")}))
	t.set(dwc+"associatedTaxa", joinValues(texts(syn, "AssociatedTaxa", "TaxonIdentified", "ScientificName", "FullScientificNameString")))
	if s := text(syn, "Syntaxon"); s != "" {
		t.set(dwc+"habitat", joinValues([]string{t[dwc+"habitat"], "syntaxon: " + s}))
	}
}

type agent struct {
	name    string
	ids     []string
	primary bool
	order   int
}

// mapAgents sets recordedBy from the gathering agents: primary collectors
// first, then by the sequence attribute, then in document order; names joined
// " | ". GatheringAgentsText is used only when no agent carries a name.
func mapAgents(t terms, g *node) {
	var agents []agent
	for i, ga := range all(g, "Agents", "GatheringAgent") {
		a := agent{
			name:    firstText(ga, []string{"Person", "FullName"}, []string{"AgentText"}, []string{"Organisation", "Name", "Representation", "Text"}),
			ids:     append(texts(ga, "ResourceURIs", "ResourceURI"), texts(ga, "Person", "ResourceURIs", "ResourceURI")...),
			primary: isTrue(attr(ga, "primarycollector")),
			order:   1<<30 + i,
		}
		if seq := attr(ga, "sequence"); seq != "" { // Atoi("") allocates its error
			if n, err := strconv.Atoi(seq); err == nil {
				a.order = n
			}
		}
		agents = append(agents, a)
	}
	slices.SortStableFunc(agents, func(a, b agent) int {
		if a.primary != b.primary {
			if a.primary {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.order, b.order)
	})
	var names, ids []string
	for _, a := range agents {
		names = append(names, a.name)
		ids = append(ids, a.ids...)
	}
	by := joinValues(names)
	if by == "" {
		by = text(g, "Agents", "GatheringAgentsText")
	}
	t.set(dwc+"recordedBy", by)
	t.set(dwc+"recordedByID", joinValues(ids))
}

// areaTerm maps a lower-cased NamedArea/AreaClass to a Darwin Core term.
var areaTerm = map[string]string{
	"continent": "continent", "ocean": "waterBody", "sea": "waterBody", "water body": "waterBody",
	"waterbody": "waterBody", "island group": "islandGroup", "archipelago": "islandGroup",
	"islandgroup": "islandGroup", "island": "island", "state": "stateProvince",
	"province": "stateProvince", "state/province": "stateProvince", "stateprovince": "stateProvince",
	"state or province": "stateProvince", "region": "stateProvince", "county": "county",
	"district": "county", "municipality": "municipality", "community": "municipality",
}

// classifiedNames returns the nameTag texts of elems joined " | ", and sets
// for each element the term table gives its (lower-cased) classTag, unless
// an earlier element set it: HigherTaxon ranks, NamedArea classes.
func classifiedNames(t terms, elems []*node, nameTag, classTag string, table map[string]string) string {
	var names []string
	for _, e := range elems {
		name := text(e, nameTag)
		names = append(names, name)
		if term, ok := table[strings.ToLower(text(e, classTag))]; ok {
			t.setDefault(dwc+term, name)
		}
	}
	return joinValues(names)
}

func mapPlace(t terms, g *node) {
	t.set(dwc+"locality", text(g, "LocalityText"))
	t.set(dwc+"locationRemarks", text(g, "AreaDetail"))
	country := firstText(g, []string{"Country", "NameDerived"}, []string{"Country", "Name"})
	t.set(dwc+"country", country)
	t.set(dwc+"countryCode", text(g, "Country", "ISO3166Code"))
	t.set(dwc+"higherGeography", classifiedNames(t, all(g, "NamedAreas", "NamedArea"), "AreaName", "AreaClass", areaTerm))
	mapCoordinates(t, g)
	mapRange(t, child(g, "Altitude"), "Elevation", "minimumElevationInMeters", "maximumElevationInMeters")
	mapAccuracy(t, child(g, "Altitude"), "elevationAccuracy")
	mapRange(t, child(g, "Depth"), "Depth", "minimumDepthInMeters", "maximumDepthInMeters")
	mapAccuracy(t, child(g, "Depth"), "depthAccuracy")
	mapRange(t, child(g, "Height"), "", "minimumDistanceAboveSurfaceInMeters", "maximumDistanceAboveSurfaceInMeters")
}

// mapCoordinates maps the coordinate set pickCoordinates chooses.
func mapCoordinates(t terms, g *node) {
	sc := pickCoordinates(all(g, "SiteCoordinateSets", "SiteCoordinates"))
	if sc == nil {
		return
	}
	ll := child(sc, "CoordinatesLatLong")
	t.set(dwc+"decimalLatitude", text(ll, "LatitudeDecimal"))
	t.set(dwc+"decimalLongitude", text(ll, "LongitudeDecimal"))
	t.set(dwc+"verbatimLatitude", text(ll, "VerbatimLatitude"))
	t.set(dwc+"verbatimLongitude", text(ll, "VerbatimLongitude"))
	t.set(dwc+"geodeticDatum", firstText(sc, []string{"CoordinatesLatLong", "SpatialDatum"}, []string{"CoordinatesUTM", "UTMDatum"}))
	t.set(dwc+"coordinateUncertaintyInMeters", text(ll, "CoordinateErrorDistanceInMeters"))
	t.set(dwc+"georeferenceRemarks", joinValues([]string{text(ll, "AccuracyStatement"), text(sc, "GeoreferenceRemarks")}))
	t.set(dwc+"georeferenceProtocol", text(sc, "CoordinateMethod"))
	t.set(dwc+"georeferenceSources", text(sc, "GeoreferenceSources"))
	t.set(dwc+"georeferenceVerificationStatus", text(sc, "GeoreferenceVerificationStatus"))
	if v := text(ll, "CoordinatesText"); v != "" {
		t.set(dwc+"verbatimCoordinates", v)
	} else if utm := child(sc, "CoordinatesUTM"); utm != nil {
		mapUTM(t, utm)
	}
}

// pickCoordinates is the first coordinate set that has both latitude and
// longitude, else the first set; nil when there is none.
func pickCoordinates(sets []*node) *node {
	for _, s := range sets {
		if text(s, "CoordinatesLatLong", "LatitudeDecimal") != "" && text(s, "CoordinatesLatLong", "LongitudeDecimal") != "" {
			return s
		}
	}
	if len(sets) == 0 {
		return nil
	}
	return sets[0]
}

// mapUTM writes UTM coordinates as verbatim coordinates: UTMText, else
// "ZONE EASTING NORTHING" from the atomised values (zone = UTMZoneFull,
// else UTMZone and UTMSubzone: "33U 389000 5819000"; UTMNS, the
// hemisphere, follows in parentheses), with verbatimCoordinateSystem "UTM"
// and verbatimSRS = UTMDatum. Nothing is converted to decimal degrees.
func mapUTM(t terms, utm *node) {
	v := text(utm, "UTMText")
	if e, n := text(utm, "UTMEasting"), text(utm, "UTMNorthing"); v == "" && (e != "" || n != "") {
		zone := text(utm, "UTMZoneFull")
		if zone == "" {
			zone = text(utm, "UTMZone") + text(utm, "UTMSubzone")
		}
		v = strings.Join(slices.DeleteFunc([]string{zone, e, n}, func(s string) bool { return s == "" }), " ")
		if ns := text(utm, "UTMNS"); ns != "" {
			v += " (" + ns + ")"
		}
	}
	if v == "" {
		return
	}
	t.set(dwc+"verbatimCoordinates", v)
	t.set(dwc+"verbatimCoordinateSystem", "UTM")
	t.set(dwc+"verbatimSRS", text(utm, "UTMDatum"))
}

// mapRange maps an ABCD MeasurementOrFact range (Altitude, Depth, Height):
// LowerValue/UpperValue in metres (feet and kilometres converted; a unit
// written into the value, "1700 m", is understood) to the minimum/maximum
// terms; the text form, or an atomised value that is not plain metres, to
// verbatim<kind>. A text such as "0-1,5" or "100 m" is parsed when there is
// no atomised value. Values that are not numbers stay only verbatim.
func mapRange(t terms, m *node, verbatim, minTerm, maxTerm string) {
	if m == nil {
		return
	}
	txt := text(m, "MeasurementOrFactText")
	at := child(m, "MeasurementOrFactAtomised")
	lo, hi, unit := text(at, "LowerValue"), text(at, "UpperValue"), text(at, "UnitOfMeasurement")
	var min, max string
	ok := true
	raw := lo
	if hi == "" { // a range written into LowerValue: "2600-3000"
		if l, h, u := parseRangeText(lo); h != "" {
			lo, hi = l, h
			if u != "" {
				unit = u
			}
		}
	}
	if lo != "" || hi != "" {
		min, ok = metres(lo, unit)
		if hi != "" {
			var ok2 bool
			max, ok2 = metres(hi, unit)
			ok = ok && ok2
		}
		if txt == "" && (!ok || !isMetres(unit) || raw != lo) {
			txt = raw
			if raw == lo && hi != "" {
				txt += "-" + hi
			}
			if unit != "" && raw == lo {
				txt += " " + unit
			}
		}
	} else if txt != "" {
		l, h, u := parseRangeText(txt)
		min, ok = metres(l, u)
		if h != "" {
			max, _ = metres(h, u)
		}
	}
	if verbatim != "" {
		t.set(dwc+"verbatim"+verbatim, txt)
	}
	if ok {
		t.set(dwc+minTerm, min)
		t.set(dwc+maxTerm, max)
	}
}

// mapAccuracy maps the Accuracy of an Altitude or Depth to the GBIF term
// (elevationAccuracy, depthAccuracy, as GBIF's ABCD indexing does), in
// metres with the unit of the value (UnitOfMeasurement, else one written
// into LowerValue); left out when it is not a number in a known unit.
func mapAccuracy(t terms, m *node, term string) {
	at := child(m, "MeasurementOrFactAtomised")
	acc := text(at, "Accuracy")
	if acc == "" {
		return
	}
	unit := text(at, "UnitOfMeasurement")
	if _, _, u := parseRangeText(text(at, "LowerValue")); unit == "" && u != "?" {
		unit = u
	}
	if v, ok := metres(acc, unit); ok {
		t.set(gbif+term, v)
	}
}

// metres converts a value (optionally with its own unit) to metres.
func metres(v, unit string) (string, bool) {
	if v == "" {
		return "", true
	}
	num := strings.ReplaceAll(v, ",", ".")
	if m := rangeText.FindStringSubmatch(v); m != nil && m[2] == "" {
		num = strings.ReplaceAll(m[1], ",", ".")
		if m[3] != "" {
			unit = m[3]
		}
	}
	n, err := strconv.ParseFloat(num, 64)
	f := metreFactor(unit)
	if err != nil || f == 0 {
		return "", false
	}
	if f == 1 {
		return num, true
	}
	return strconv.FormatFloat(round2(n*f), 'f', -1, 64), true
}

func isMetres(u string) bool { return metreFactor(u) == 1 }

func metreFactor(u string) float64 {
	switch strings.ToLower(strings.TrimSuffix(strings.TrimSpace(u), ".")) {
	case "", "m", "meter", "meters", "metre", "metres", "mt", "mtr", "msl", "m a.s.l", "m asl":
		return 1
	case "ft", "feet", "foot":
		return 0.3048
	case "km":
		return 1000
	}
	return 0
}

func round2(x float64) float64 {
	if x < 0 {
		return -round2(-x)
	}
	return float64(int64(x*100+0.5)) / 100
}

var rangeText = regexp.MustCompile(`^\s*(-?\d+(?:[.,]\d+)?)\s*(?:(?:-|–|to)\s*(-?\d+(?:[.,]\d+)?))?\s*([a-zA-Z.]*)\s*$`)

// parseRangeText reads "114", "0-1,5", "100 - 200 m", "300ft".
func parseRangeText(s string) (lo, hi, unit string) {
	m := rangeText.FindStringSubmatch(s)
	if m == nil {
		return "", "", "?"
	}
	return strings.ReplaceAll(m[1], ",", "."), strings.ReplaceAll(m[2], ",", "."), m[3]
}

// chronoTerms maps an EFG chronostratigraphic division to the Darwin Core
// earliest/latest term pair.
var chronoTerms = map[string][2]string{
	"eonothem": {"earliestEonOrLowestEonothem", "latestEonOrHighestEonothem"},
	"eon":      {"earliestEonOrLowestEonothem", "latestEonOrHighestEonothem"},
	"erathem":  {"earliestEraOrLowestErathem", "latestEraOrHighestErathem"},
	"era":      {"earliestEraOrLowestErathem", "latestEraOrHighestErathem"},
	"system":   {"earliestPeriodOrLowestSystem", "latestPeriodOrHighestSystem"},
	"period":   {"earliestPeriodOrLowestSystem", "latestPeriodOrHighestSystem"},
	"series":   {"earliestEpochOrLowestSeries", "latestEpochOrHighestSeries"},
	"epoch":    {"earliestEpochOrLowestSeries", "latestEpochOrHighestSeries"},
	"stage":    {"earliestAgeOrLowestStage", "latestAgeOrHighestStage"},
	"age":      {"earliestAgeOrLowestStage", "latestAgeOrHighestStage"},
}

var lithoTerms = map[string]string{"group": "group", "formation": "formation", "member": "member", "bed": "bed"}

// icsRank is the rank of the eons, eras and periods of the International
// Chronostratigraphic Chart (with British spellings and the informal
// Tertiary), for chronostratigraphic terms that do not name their rank.
// Series and stages are too many and too often regional to list.
var icsRank = map[string]string{
	"phanerozoic": "eon", "proterozoic": "eon", "archean": "eon", "archaean": "eon", "hadean": "eon",
	"cenozoic": "era", "cainozoic": "era", "mesozoic": "era", "paleozoic": "era", "palaeozoic": "era",
	"neoproterozoic": "era", "mesoproterozoic": "era", "paleoproterozoic": "era", "palaeoproterozoic": "era",
	"neoarchean": "era", "neoarchaean": "era", "mesoarchean": "era", "mesoarchaean": "era",
	"paleoarchean": "era", "palaeoarchaean": "era", "eoarchean": "era", "eoarchaean": "era",
	"quaternary": "period", "neogene": "period", "paleogene": "period", "palaeogene": "period",
	"tertiary": "period", "cretaceous": "period", "jurassic": "period", "triassic": "period",
	"permian": "period", "carboniferous": "period", "devonian": "period", "silurian": "period",
	"ordovician": "period", "cambrian": "period", "ediacaran": "period", "cryogenian": "period",
	"tonian": "period", "stenian": "period", "ectasian": "period", "calymmian": "period",
	"statherian": "period", "orosirian": "period", "rhyacian": "period", "siderian": "period",
}

// mapStratigraphy maps EFG stratigraphic attributions (UnitExtension) and
// ABCD's Gathering/Stratigraphy: lithostratigraphic terms, chronostrati-
// graphic terms by rank, a biostratigraphic zone, and what has no term
// (StratigraphyText, a chronostratigraphic term of unknown rank or a second
// one of a rank, several zones) as labelled locationRemarks.
func mapStratigraphy(t terms, g, u *node) {
	mapEFGStratigraphy(t, child(u, "UnitExtension", "EarthScienceSpecimen", "UnitStratigraphicDetermination"))
	strat := child(g, "Stratigraphy")
	t.set(dwc+"lithostratigraphicTerms", joinValues(texts(strat, "LithostratigraphicTerms", "LithostratigraphicTerm", "Term")))
	remarks := []string{t[dwc+"locationRemarks"]}
	for _, c := range all(strat, "ChronostratigraphicTerms", "ChronostratigraphicTerm") {
		if !mapChronoTerm(t, c) {
			remarks = append(remarks, "chronostratigraphy: "+text(c, "Term"))
		}
	}
	remarks = append(remarks, mapBiozones(t, texts(strat, "BiostratigraphicTerms", "BiostratigraphicTerm", "Term"))...)
	if s := text(strat, "StratigraphyText"); s != "" {
		remarks = append(remarks, "stratigraphy: "+s)
	}
	t.set(dwc+"locationRemarks", joinValues(remarks))
}

// mapBiozones maps ABCD's biostratigraphic zone terms: one zone is both
// the lowest and the highest (DwC's pair bounds the horizon by zones).
// ABCD lists several in no stated order, so several do not say which is
// lowest: they are returned as locationRemarks, "biostratigraphy: ZONE".
func mapBiozones(t terms, zones []string) []string {
	switch len(zones) {
	case 0:
		return nil
	case 1:
		t.set(dwc+"lowestBiostratigraphicZone", zones[0])
		t.set(dwc+"highestBiostratigraphicZone", zones[0])
		return nil
	}
	out := make([]string, len(zones))
	for i, z := range zones {
		out[i] = "biostratigraphy: " + z
	}
	return out
}

// mapEFGStratigraphy maps an EFG UnitStratigraphicDetermination: each
// chronostratigraphic attribution by its division, lithostratigraphic
// group/formation/member/bed by element.
func mapEFGStratigraphy(t terms, det *node) {
	for _, a := range all(det, "ChronostratigraphicAttributions", "ChronostratigraphicAttribution") {
		pair, ok := chronoTerms[strings.ToLower(text(a, "ChronoStratigraphicDivision"))]
		name := text(a, "ChronostratigraphicName")
		if ok && name != "" {
			t.setDefault(dwc+pair[0], name)
			t.setDefault(dwc+pair[1], name)
		}
	}
	for _, a := range all(det, "LithostratigraphicAttributions", "LithostratigraphicAttribution") {
		for c := range a.children() {
			if term, ok := lithoTerms[strings.ToLower(c.tag)]; ok {
				t.setDefault(dwc+term, c.value())
			}
		}
	}
}

// mapChronoTerm sets the earliest and latest terms of a Gathering
// ChronostratigraphicTerm's rank to its name; it reports false when the
// rank is unknown or already holds another name (the term then belongs in
// the remarks).
func mapChronoTerm(t terms, c *node) bool {
	pair, name := chronoRank(c)
	switch {
	case name == "":
		return true
	case pair == [2]string{}:
		return false
	case t[dwc+pair[0]] == name || t[dwc+pair[1]] == name:
		return true
	case t[dwc+pair[0]] != "" || t[dwc+pair[1]] != "":
		return false
	}
	t.set(dwc+pair[0], name)
	t.set(dwc+pair[1], name)
	return true
}

// chronoRank finds the rank of a ChronostratigraphicTerm: its Domain when
// that is a rank ("System"), else a rank closing the Term ("Jurassic
// Period", the name is then "Jurassic"), else icsRank. The pair is zero
// when the rank is unknown.
func chronoRank(c *node) (pair [2]string, name string) {
	name = text(c, "Term")
	if p, ok := chronoTerms[strings.ToLower(text(c, "Domain"))]; ok {
		return p, name
	}
	if i := strings.LastIndexByte(name, ' '); i > 0 {
		if p, ok := chronoTerms[strings.ToLower(name[i+1:])]; ok {
			return p, strings.TrimSpace(name[:i])
		}
	}
	return chronoTerms[icsRank[strings.ToLower(name)]], name
}
