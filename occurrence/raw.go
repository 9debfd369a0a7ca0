package occurrence

// Well-known row types and term namespaces.
const (
	NSDwC                 = "http://rs.tdwg.org/dwc/terms/"
	NSDC                  = "http://purl.org/dc/terms/"
	NSGBIF                = "http://rs.gbif.org/terms/1.0/"
	NSGBIFInternal        = "http://rs.gbif.org/terms/internal/" // GbifInternalTerm
	RowTypeOccurrence     = "http://rs.tdwg.org/dwc/terms/Occurrence"
	RowTypeEvent          = "http://rs.tdwg.org/dwc/terms/Event"
	RowTypeMultimedia     = "http://rs.gbif.org/terms/1.0/Multimedia"
	RowTypeAudubon        = "http://rs.tdwg.org/ac/terms/Multimedia"
	RowTypeImage          = "http://rs.gbif.org/terms/1.0/Image" // GBIF's older simple image extension
	RowTypeIdentification = "http://rs.tdwg.org/dwc/terms/Identification"
	RowTypeMeasurement    = "http://rs.tdwg.org/dwc/terms/MeasurementOrFact"
)

// Terms is one source row: term URI (for example
// "http://rs.tdwg.org/dwc/terms/country") -> verbatim value. Empty values are
// omitted.
type Terms map[string]string

// RawRecord is one source occurrence before interpretation: its core row and
// the rows of every extension that point at it, grouped by row type URI.
// Readers of DwC-A and ABCD both produce it; Interpret turns it into a stored
// record.
type RawRecord struct {
	// Core is the core row by term; nil when Cells holds it (a DwC-A
	// reader's rows by position): read it with Value or CoreTerms.
	Core       Terms
	Cells      *Cells
	Extensions map[string][]Terms
	// Source locates the record for error messages ("occurrence.txt:17",
	// "response.00003.xml unit 12").
	Source string
}
