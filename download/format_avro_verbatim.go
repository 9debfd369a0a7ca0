package download

import (
	"context"
	"slices"
	"strings"

	"github.com/biodiversity-downloads/downloader/internal/pzip"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// FormatSimpleWithVerbatimAvro is GBIF's SIMPLE_WITH_VERBATIM_AVRO
// download.
const FormatSimpleWithVerbatimAvro Format = "SIMPLE_WITH_VERBATIM_AVRO"

func init() {
	register(FormatInfo{
		Name:        FormatSimpleWithVerbatimAvro,
		Description: "a zip of one Avro file, occurrence.avro/000000 (deflate): GBIF's simple columns and taxon keys, then each verbatim term as v_<term>",
		Extension:   ".zip", ContentType: "application/zip", Dictionaries: true,
		BytesPerRecord: 97, CompressionRatio: 10.6, Order: 3,
		open: newSimpleWithVerbatimAvro,
	})
}

// GBIF's record and entry (gbif/occurrence GenerateHQL.simpleWithVerbatimAvroSchema;
// DownloadArchiver and MultiDirectoryArchiveBuilder name the zip's entries
// <core>.avro/000000, 000001, ...).
const (
	verbatimAvroRecordName = "SimpleWithVerbatimOccurrence"
	verbatimAvroEntry      = "occurrence.avro/000000"
)

// verbatimAvroExtra are the interpreted columns GBIF adds to the simple
// ones in this format (download-tables' DownloadTerms
// ADDITIONAL_SIMPLE_WITH_VERBATIM_DOWNLOAD_TERMS), in its order.
var verbatimAvroExtra = []string{"kingdomKey", "phylumKey", "classKey", "orderKey", "familyKey", "genusKey", "publishingCountry"}

// verbatimAvroRenamed are the simple columns GBIF takes from the verbatim
// record (DownloadTerms' Group.VERBATIM pairs): this format names them as
// its other verbatim fields, v_<term>.
var verbatimAvroRenamed = map[string]string{
	"verbatimScientificName":           occurrence.NSDwC + "scientificName",
	"verbatimScientificNameAuthorship": occurrence.NSDwC + "scientificNameAuthorship",
}

// newSimpleWithVerbatimAvro writes GBIF's SIMPLE_WITH_VERBATIM_AVRO: a
// zip whose one entry, occurrence.avro/000000, is an Avro container of
// record SimpleWithVerbatimOccurrence, deflated as SIMPLE_AVRO's. GBIF's
// zip deflates its Avro parts a second time; this one stores the entry,
// whose blocks are already deflated (any zip reader reads either).
func newSimpleWithVerbatimAvro(_ context.Context, x *Export) (formatWriter, error) {
	fields, err := verbatimAvroFields()
	if err != nil {
		return nil, err
	}
	w, err := x.zw.CreateHeader(&pzip.FileHeader{Name: verbatimAvroEntry, Modified: x.created, Stored: true})
	if err != nil {
		return nil, err
	}
	a, err := newAvroWriter(x, w, verbatimAvroRecordName, fields)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// verbatimAvroFields are the format's fields in GBIF's order
// (GenerateHQL.simpleWithVerbatimAvroSchema): the simple columns, with
// the verbatim scientific name and authorship named v_scientificName and
// v_scientificNameAuthorship; the extra columns; then v_<term> for each of
// GBIF's verbatim terms (those of verbatim.txt) not already named, sorted
// by name as GBIF's TreeMap sorts them. A dataset's terms outside GBIF's
// verbatim list are not in this format (GBIF: "more verbatim terms may be
// added upon request"); a DWCA's verbatim.txt carries them.
func verbatimAvroFields() ([]field, error) {
	fields, err := resolveFields(slices.Concat(simpleCSVColumns, verbatimAvroExtra))
	if err != nil {
		return nil, err
	}
	named := map[string]bool{}
	for i, f := range fields {
		if term, ok := verbatimAvroRenamed[f.header]; ok {
			fields[i].header, fields[i].term = verbatimAvroName(term), term
		}
		named[fields[i].header] = true
	}
	var tail []field
	for _, term := range gbifVerbatimTerms {
		if name := verbatimAvroName(term); !named[name] {
			tail = append(tail, field{header: name, term: term, verbatim: occurrence.VerbatimKey(term)})
		}
	}
	slices.SortFunc(tail, func(a, b field) int { return strings.Compare(a.header, b.header) })
	return append(fields, tail...), nil
}

// verbatimAvroName is a verbatim term's field name: v_ and the term's
// simple name (GBIF's HiveColumns verbatim prefix).
func verbatimAvroName(term string) string { return "v_" + occurrence.SimpleName(term) }
