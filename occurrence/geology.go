package occurrence

import (
	"strconv"
	"strings"
)

// A record's geological context as GBIF's pipelines interpret it
// (GeologicalContextInterpreter, gbif/pipelines sdks/core at 5add677):
// the ten chronostratigraphy terms, earliest and latest eon, era, period,
// epoch and age, hold concepts of GBIF's GeoTime vocabulary (the
// International Chronostratigraphic Chart: 176 concepts with their rank
// and their start and end ages in millions of years). A value naming a
// concept of a lower rank than its term names that concept's ancestor of
// the term's rank ("Miocene" as an era is the Cenozoic), flagged as
// inferred; a concept of a higher rank is refused and flagged as a rank
// mismatch. A pair whose latest bound is older than its earliest is left
// empty and flagged as an invalid range; a pair outside the span of the
// nearest higher pair is flagged as a mismatch with it. The record's
// geological time is the span of the lowest rank given: GBIF's
// geologicalTime, which GEOLOGICAL_TIME searches, kept here in
// geologicalStartAge and geologicalEndAge.

// Geological context issues, GBIF's OccurrenceIssue names.
const (
	IssueEraInferredFromParentRank    = "ERA_OR_ERATHEM_INFERRED_FROM_PARENT_RANK"
	IssuePeriodInferredFromParentRank = "PERIOD_OR_SYSTEM_INFERRED_FROM_PARENT_RANK"
	IssueEpochInferredFromParentRank  = "EPOCH_OR_SERIES_INFERRED_FROM_PARENT_RANK"
	IssueAgeInferredFromParentRank    = "AGE_OR_STAGE_INFERRED_FROM_PARENT_RANK"
	IssueEonRankMismatch              = "EON_OR_EONOTHEM_RANK_MISMATCH"
	IssueEraRankMismatch              = "ERA_OR_ERATHEM_RANK_MISMATCH"
	IssuePeriodRankMismatch           = "PERIOD_OR_SYSTEM_RANK_MISMATCH"
	IssueEpochRankMismatch            = "EPOCH_OR_SERIES_RANK_MISMATCH"
	IssueAgeRankMismatch              = "AGE_OR_STAGE_RANK_MISMATCH"
	IssueEonInvalidRange              = "EON_OR_EONOTHEM_INVALID_RANGE"
	IssueEraInvalidRange              = "ERA_OR_ERATHEM_INVALID_RANGE"
	IssuePeriodInvalidRange           = "PERIOD_OR_SYSTEM_INVALID_RANGE"
	IssueEpochInvalidRange            = "EPOCH_OR_SERIES_INVALID_RANGE"
	IssueAgeInvalidRange              = "AGE_OR_STAGE_INVALID_RANGE"
	IssueEonEraMismatch               = "EON_OR_EONOTHEM_AND_ERA_OR_ERATHEM_MISMATCH"
	IssueEraPeriodMismatch            = "ERA_OR_ERATHEM_AND_PERIOD_OR_SYSTEM_MISMATCH"
	IssuePeriodEpochMismatch          = "PERIOD_OR_SYSTEM_AND_EPOCH_OR_SERIES_MISMATCH"
	IssueEpochAgeMismatch             = "EPOCH_OR_SERIES_AND_AGE_OR_STAGE_MISMATCH"
)

// conceptsGeoTime is GBIF's GeoTime vocabulary.
var conceptsGeoTime = newConceptVocabulary("GeoTime", nil)

// geoTime is a GeoTime concept's rank ("eon" ... "age", or another such
// as "super era"), parent and span in millions of years before present.
type geoTime struct {
	name, rank, parent string
	start, end         float64
}

// geoTimes are the GeoTime concepts by name. Every concept of GBIF's
// export has both ages; one without would be a broken export, refused
// when the program starts (GBIF's interpreter would leave a bound open).
var geoTimes = func() map[string]geoTime {
	m := map[string]geoTime{}
	for _, c := range conceptData["GeoTime"] {
		g := geoTime{name: c.name, parent: c.parent}
		var hasStart, hasEnd bool
		for _, t := range c.tags {
			k, v, ok := strings.Cut(t, ":")
			if !ok {
				continue
			}
			v = strings.ToLower(strings.TrimSpace(v))
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "rank":
				g.rank = v
			case "startage":
				g.start, hasStart = parseAge(v)
			case "endage":
				g.end, hasEnd = parseAge(v)
			}
		}
		if !hasStart || !hasEnd {
			panic("occurrence: GeoTime concept " + c.name + " lacks its start or end age")
		}
		m[c.name] = g
	}
	return m
}()

func parseAge(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// geoTimeSpan returns the span of the GeoTime concept a value names (any
// of its names and labels), in millions of years: start is the older
// bound. ok is false when it names none.
func geoTimeSpan(value string) (name string, start, end float64, ok bool) {
	n, found := conceptsGeoTime.lookup(value)
	if !found {
		return "", 0, 0, false
	}
	g := geoTimes[n]
	return n, g.start, g.end, true
}

// geoRanks are the ranks of the chronostratigraphy pairs, highest first.
var geoRanks = []string{"eon", "era", "period", "epoch", "age"}

func geoRankIndex(rank string) int {
	for i, r := range geoRanks {
		if r == rank {
			return i
		}
	}
	return -1
}

// geoPair is one chronostratigraphy pair, its columns and the issues it
// raises ("" where GBIF's interpreter has none).
type geoPair struct {
	rank                                     string
	earliest, latest                         TermID
	iEarliest, iLatest                       int
	inferred, mismatch, invalid, parentIssue string
}

// newGeoPair is the pair of the two columns named, which carry the
// Darwin Core terms of their names.
func newGeoPair(rank, earliest, latest, inferred, mismatch, invalid, parentIssue string) geoPair {
	return geoPair{rank: rank, earliest: KnownTerm(NSDwC + earliest), latest: KnownTerm(NSDwC + latest),
		iEarliest: mustIndex(earliest), iLatest: mustIndex(latest),
		inferred: inferred, mismatch: mismatch, invalid: invalid, parentIssue: parentIssue}
}

var geoPairs = [...]geoPair{
	newGeoPair("eon", "earliestEonOrLowestEonothem", "latestEonOrHighestEonothem",
		"", IssueEonRankMismatch, IssueEonInvalidRange, ""),
	newGeoPair("era", "earliestEraOrLowestErathem", "latestEraOrHighestErathem",
		IssueEraInferredFromParentRank, IssueEraRankMismatch, IssueEraInvalidRange, IssueEonEraMismatch),
	newGeoPair("period", "earliestPeriodOrLowestSystem", "latestPeriodOrHighestSystem",
		IssuePeriodInferredFromParentRank, IssuePeriodRankMismatch, IssuePeriodInvalidRange, IssueEraPeriodMismatch),
	newGeoPair("epoch", "earliestEpochOrLowestSeries", "latestEpochOrHighestSeries",
		IssueEpochInferredFromParentRank, IssueEpochRankMismatch, IssueEpochInvalidRange, IssuePeriodEpochMismatch),
	newGeoPair("age", "earliestAgeOrLowestStage", "latestAgeOrHighestStage",
		IssueAgeInferredFromParentRank, IssueAgeRankMismatch, IssueAgeInvalidRange, IssueEpochAgeMismatch),
}

var (
	iGeologicalStartAge = mustIndex(ColGeologicalStartAge)
	iGeologicalEndAge   = mustIndex(ColGeologicalEndAge)
)

// geoSpan is a pair's span (ok false: the pair gave none).
type geoSpan struct {
	start, end float64
	ok         bool
}

// geology interprets the chronostratigraphy pairs and sets the record's
// geological time, as GeologicalContextInterpreter.interpretChronostratigraphy.
func (in *interpreter) geology() {
	var spans [len(geoPairs)]geoSpan
	for i, p := range geoPairs {
		var parent geoSpan
		for j := i - 1; j >= 0 && !parent.ok; j-- { // the nearest higher pair given
			parent = spans[j]
		}
		spans[i] = in.geoPair(p, parent)
	}
	for i := len(spans) - 1; i >= 0; i-- { // the lowest rank given
		if s := spans[i]; s.ok {
			in.r.SetFloat(iGeologicalStartAge, s.start)
			in.r.SetFloat(iGeologicalEndAge, s.end)
			return
		}
	}
}

// geoPair interprets one pair against the span of the nearest higher one:
// from the earliest concept's start (else the latest's) to the latest
// concept's end (else the earliest's).
func (in *interpreter) geoPair(p geoPair, parent geoSpan) geoSpan {
	e, eok := in.geoConcept(p.earliest, p)
	l, lok := in.geoConcept(p.latest, p)
	switch {
	case !eok && !lok:
		return geoSpan{}
	case eok && lok && (l.start > e.start || l.end > e.end):
		in.flag(p.invalid)
		return geoSpan{}
	}
	s := geoSpan{ok: true}
	if eok {
		in.r.SetString(p.iEarliest, e.name)
		s.start, s.end = e.start, e.end
	}
	if lok {
		in.r.SetString(p.iLatest, l.name)
		if !eok {
			s.start = l.start
		}
		s.end = l.end
	}
	if p.parentIssue != "" && parent.ok && (s.start > parent.start || s.end < parent.end) {
		in.flag(p.parentIssue)
	}
	return s
}

// geoConcept looks up one chronostratigraphy term's value: the concept of
// the pair's rank it names, or that concept's ancestor of the pair's rank.
func (in *interpreter) geoConcept(term TermID, p geoPair) (geoTime, bool) {
	v := in.get(term)
	if v == "" || strings.EqualFold(v, "null") {
		return geoTime{}, false
	}
	n, ok := conceptsGeoTime.lookup(v)
	if !ok {
		return geoTime{}, false
	}
	g := geoTimes[n]
	if g.rank == p.rank {
		return g, true
	}
	if geoRankIndex(g.rank) <= geoRankIndex(p.rank) {
		in.flag(p.mismatch)
		return geoTime{}, false
	}
	for a, ok := geoTimes[g.parent]; ok; a, ok = geoTimes[a.parent] {
		if a.rank == p.rank {
			if p.inferred != "" {
				in.flag(p.inferred)
			}
			return a, true
		}
	}
	return geoTime{}, false
}
