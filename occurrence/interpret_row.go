package occurrence

import (
	"iter"
	"sync"
	"sync/atomic"
)

// Rows by position. A Darwin Core Archive's rows of one file carry the
// same fields in the same order, so a reader can hand a row over as its
// values by field (Cells) with the file's term list (Layout) built once,
// instead of a map keyed by term URI per row: interpretation then reads
// the terms it needs by position (TermID: a term registered once per
// process, resolved once per Layout), and the verbatim document finds
// each field's slot once per file, not per record. Other sources (ABCD,
// CSV) keep handing Terms maps; RawRecord's methods read either.

// TermID is a term registered with KnownTerm: a Layout resolves each to
// its field once, so reading it from a row costs no hashing.
type TermID int32

var (
	knownMu    sync.Mutex
	knownTerms []string // by TermID
	knownIDs   = map[string]TermID{}
	// sealed is set by the first Layout: the terms registered then are
	// what every Layout resolves.
	sealed atomic.Bool
)

// KnownTerm registers a term URI that interpretation reads and returns its
// id (the same id for the same term). Call it only from package-level
// variable initialization: it panics once a Layout has been built.
func KnownTerm(term string) TermID {
	knownMu.Lock()
	defer knownMu.Unlock()
	if id, ok := knownIDs[term]; ok {
		return id
	}
	if sealed.Load() {
		panic("occurrence: KnownTerm(" + term + ") called after a Layout was built")
	}
	id := TermID(len(knownTerms))
	knownTerms = append(knownTerms, term)
	knownIDs[term] = id
	return id
}

// URI is the term's URI.
func (id TermID) URI() string { return knownTerms[id] }

// Layout is the term of each field of a file's rows, in field order,
// shared by every row of the file (and safe for concurrent use).
type Layout struct {
	terms []string
	known []int32 // by TermID: the field, -1 when the file has none
	// verbatim is the fields' entries in the verbatim slot table they
	// were resolved against (a new table re-resolves them).
	verbatim atomic.Pointer[layoutSlots]
}

// layoutSlots is a Layout's fields resolved in one verbatim slot table.
type layoutSlots struct {
	tab     *verbatimSlots
	entries []termEntry // by field
	known   []bool      // by field: the table has the term
}

// NewLayout returns the layout of rows whose field i holds terms[i]; nil
// when a term repeats (such rows are read as Terms maps, whose merging of
// the repeated fields the map builder decides).
func NewLayout(terms []string) *Layout {
	sealed.Store(true)
	knownMu.Lock()
	defer knownMu.Unlock()
	l := &Layout{terms: terms, known: make([]int32, len(knownTerms))}
	for i := range l.known {
		l.known[i] = -1
	}
	seen := make(map[string]bool, len(terms))
	for i, t := range terms {
		if seen[t] {
			return nil
		}
		seen[t] = true
		if id, ok := knownIDs[t]; ok {
			l.known[id] = int32(i)
		}
	}
	return l
}

// Len is the number of fields.
func (l *Layout) Len() int { return len(l.terms) }

// Term is the term of field i.
func (l *Layout) Term(i int) string { return l.terms[i] }

// slots returns the fields' entries in the current verbatim slot table.
func (l *Layout) slots() *layoutSlots {
	tab := verbatimTable.Load()
	if ls := l.verbatim.Load(); ls != nil && ls.tab == tab {
		return ls
	}
	ls := &layoutSlots{tab: tab, entries: make([]termEntry, len(l.terms)), known: make([]bool, len(l.terms))}
	for i, t := range l.terms {
		ls.entries[i], ls.known[i] = tab.term[t]
	}
	l.verbatim.Store(ls)
	return ls
}

// Cells is one row by position: Vals[i] is the value of the layout's
// field i, "" for none (a reader applies defaults and null markers).
type Cells struct {
	Layout *Layout
	Vals   []string
}

// get returns the value of a registered term.
func (c *Cells) get(id TermID) string {
	if int(id) >= len(c.Layout.known) {
		return ""
	}
	if i := c.Layout.known[id]; i >= 0 {
		return c.Vals[i]
	}
	return ""
}

// Value returns the record's core value of a registered term, untrimmed.
func (r RawRecord) Value(id TermID) string {
	if r.Cells != nil {
		return r.Cells.get(id)
	}
	return r.Core[knownTerms[id]]
}

// CoreTerms yields the record's core terms with a non-empty value, from
// its Cells or its Core map.
func (r RawRecord) CoreTerms() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		if c := r.Cells; c != nil {
			for i, v := range c.Vals {
				if v != "" && !yield(c.Layout.terms[i], v) {
					return
				}
			}
			return
		}
		for t, v := range r.Core {
			if v != "" && !yield(t, v) {
				return
			}
		}
	}
}

// CoreMap returns the record's core terms as a map: Core itself, or a new
// map of its Cells' non-empty values.
func (r RawRecord) CoreMap() Terms {
	if r.Cells == nil {
		return r.Core
	}
	t := Terms{}
	for k, v := range r.CoreTerms() {
		t[k] = v
	}
	return t
}

// The terms interpretation reads, resolved by position in a Layout.
var (
	kAssociatedMedia               = KnownTerm(NSDwC + "associatedMedia")
	kAssociatedSequences           = KnownTerm(NSDwC + "associatedSequences")
	kBasisOfRecord                 = KnownTerm(NSDwC + "basisOfRecord")
	kContinent                     = KnownTerm(NSDwC + "continent")
	kCoordinatePrecision           = KnownTerm(NSDwC + "coordinatePrecision")
	kCoordinateUncertaintyInMeters = KnownTerm(NSDwC + "coordinateUncertaintyInMeters")
	kCountry                       = KnownTerm(NSDwC + "country")
	kCountryCode                   = KnownTerm(NSDwC + "countryCode")
	kDatasetName                   = KnownTerm(NSDwC + "datasetName")
	kDateIdentified                = KnownTerm(NSDwC + "dateIdentified")
	kDay                           = KnownTerm(NSDwC + "day")
	kDecimalLatitude               = KnownTerm(NSDwC + "decimalLatitude")
	kDecimalLongitude              = KnownTerm(NSDwC + "decimalLongitude")
	kEventDate                     = KnownTerm(NSDwC + "eventDate")
	kGenus                         = KnownTerm(NSDwC + "genus")
	kGeodeticDatum                 = KnownTerm(NSDwC + "geodeticDatum")
	kIndividualCount               = KnownTerm(NSDwC + "individualCount")
	kInfraspecificEpithet          = KnownTerm(NSDwC + "infraspecificEpithet")
	kLicense                       = KnownTerm(NSDC + "license")
	kMaximumDepthInMeters          = KnownTerm(NSDwC + "maximumDepthInMeters")
	kMaximumElevationInMeters      = KnownTerm(NSDwC + "maximumElevationInMeters")
	kMinimumDepthInMeters          = KnownTerm(NSDwC + "minimumDepthInMeters")
	kMinimumElevationInMeters      = KnownTerm(NSDwC + "minimumElevationInMeters")
	kModified                      = KnownTerm(NSDC + "modified")
	kMonth                         = KnownTerm(NSDwC + "month")
	kOccurrenceID                  = KnownTerm(NSDwC + "occurrenceID")
	kOccurrenceStatus              = KnownTerm(NSDwC + "occurrenceStatus")
	kOrganismQuantity              = KnownTerm(NSDwC + "organismQuantity")
	kOrganismQuantityType          = KnownTerm(NSDwC + "organismQuantityType")
	kPublishingOrgKey              = KnownTerm(NSGBIF + "publishingOrgKey")
	kSampleSizeUnit                = KnownTerm(NSDwC + "sampleSizeUnit")
	kSampleSizeValue               = KnownTerm(NSDwC + "sampleSizeValue")
	kScientificName                = KnownTerm(NSDwC + "scientificName")
	kScientificNameAuthorship      = KnownTerm(NSDwC + "scientificNameAuthorship")
	kSpecificEpithet               = KnownTerm(NSDwC + "specificEpithet")
	kTaxonRank                     = KnownTerm(NSDwC + "taxonRank")
	kTypeStatus                    = KnownTerm(NSDwC + "typeStatus")
	kSex                           = KnownTerm(NSDwC + "sex")
	kLifeStage                     = KnownTerm(NSDwC + "lifeStage")
	kEstablishmentMeans            = KnownTerm(NSDwC + "establishmentMeans")
	kDegreeOfEstablishment         = KnownTerm(NSDwC + "degreeOfEstablishment")
	kPathway                       = KnownTerm(NSDwC + "pathway")
	kDynamicProperties             = KnownTerm(NSDwC + "dynamicProperties")
	kVerbatimLatitude              = KnownTerm(NSDwC + "verbatimLatitude")
	kVerbatimLongitude             = KnownTerm(NSDwC + "verbatimLongitude")
	kYear                          = KnownTerm(NSDwC + "year")
)
