package download

import (
	"context"
	"slices"
	"sort"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// speciesListColumns are GBIF's SPECIES_LIST columns. Ingest fills the
// taxon columns from the table's checklist (or derived taxonomy);
// iucnRedListCategory stays empty (no IUCN data).
var speciesListColumns = []string{
	"taxonKey", "scientificName", "acceptedTaxonKey", "acceptedScientificName",
	"numberOfOccurrences", "taxonRank", "taxonomicStatus", "kingdom", "kingdomKey", "phylum",
	"phylumKey", "class", "classKey", "order", "orderKey", "family", "familyKey", "genus",
	"genusKey", "species", "speciesKey", "iucnRedListCategory",
}

// speciesSource maps SPECIES_LIST columns to table columns; absent ones are
// empty.
var speciesSource = map[string]string{
	"taxonKey": occurrence.ColTaxonKey, "scientificName": occurrence.ColScientificName,
	"acceptedTaxonKey": occurrence.ColAcceptedTaxonKey, "taxonRank": occurrence.ColTaxonRank,
	"kingdom": occurrence.ColKingdom, "kingdomKey": occurrence.ColKingdomKey,
	"phylum": occurrence.ColPhylum, "phylumKey": occurrence.ColPhylumKey,
	"class": occurrence.ColClass, "classKey": occurrence.ColClassKey,
	"order": occurrence.ColOrder, "orderKey": occurrence.ColOrderKey,
	"family": occurrence.ColFamily, "familyKey": occurrence.ColFamilyKey,
	"genus": occurrence.ColGenus, "genusKey": occurrence.ColGenusKey,
	"species": occurrence.ColSpecies, "speciesKey": occurrence.ColSpeciesKey,
	"acceptedScientificName": "acceptedScientificName", "taxonomicStatus": "taxonomicStatus",
	"iucnRedListCategory": "iucnRedListCategory",
}

// taxonRow is one taxon of the list: its first-seen values and its count.
type taxonRow struct {
	values []string // speciesListColumns, count column empty
	count  int64
}

// speciesList is GBIF's SPECIES_LIST: one <key>.csv entry with a row per
// taxon. Taxa are counted in memory (bounded by the number of distinct taxa)
// and written at the end, most occurrences first.
type speciesList struct {
	x    *Export
	taxa map[string]*taxonRow
	cols []string // table columns read, in speciesListColumns order
	fns  []cellFn
	arrs []arrow.Array // the batch's cols
	id   []byte        // the current row's group, reused
}

// FormatSpeciesList is GBIF's SPECIES_LIST download.
const FormatSpeciesList Format = "SPECIES_LIST"

func init() {
	register(FormatInfo{
		Name:        FormatSpeciesList,
		Description: "one tab-separated <key>.csv with a row per taxon and its number of occurrences",
		Extension:   ".zip", ContentType: "application/zip", Dictionaries: true,
		// SPECIES_LIST grows with taxa, not records: a rough guide only.
		BytesPerRecord: 8, CompressionRatio: 5.2, Order: 4,
		open: newSpeciesList,
	})
}

func newSpeciesList(_ context.Context, x *Export) (formatWriter, error) {
	s := &speciesList{x: x, taxa: map[string]*taxonRow{}}
	for _, c := range speciesListColumns {
		if src, ok := speciesSource[c]; ok {
			s.cols = append(s.cols, src)
		}
	}
	return s, nil
}

func (s *speciesList) columns() []string { return s.cols }
func (s *speciesList) abort()            {}

// groupOf appends the group of row i to dst: as GBIF's species list
// query groups, every column of the list but the count (taxonKey, the
// names, rank, status and the classification with its keys), so a taxon
// whose rows disagree on a name is listed once per variant.
func groupOf(dst []byte, arrs []arrow.Array, i int) []byte {
	for _, a := range arrs {
		switch a := a.(type) {
		case *array.Int64:
			if a.IsValid(i) {
				dst = appendInt(dst, a.Value(i))
			}
		default:
			if a != nil {
				dst = append(dst, str(a, i)...)
			}
		}
		dst = append(dst, 0)
	}
	return dst
}

func (s *speciesList) write(b *batch) error {
	s.fns = s.fns[:0]
	for _, c := range speciesListColumns {
		src, ok := speciesSource[c]
		var fn cellFn
		if ok {
			var err error
			if fn, err = cellFor(b.col(src)); err != nil {
				return err
			}
		}
		s.fns = append(s.fns, fn)
	}
	s.arrs = s.arrs[:0]
	for _, c := range s.cols {
		s.arrs = append(s.arrs, b.col(c))
	}
	for i := 0; i < b.n; i++ {
		s.id = groupOf(s.id[:0], s.arrs, i)
		t := s.taxa[string(s.id)] // no allocation for a known taxon
		if t == nil {
			t = &taxonRow{values: make([]string, len(speciesListColumns))}
			for j, fn := range s.fns {
				if fn != nil {
					t.values[j] = string(fn(nil, i))
				}
			}
			s.taxa[string(s.id)] = t
		}
		t.count++
	}
	return nil
}

func (s *speciesList) finish(context.Context, ExportResult, []occurrence.DatasetInfo) error {
	rows := make([]*taxonRow, 0, len(s.taxa))
	for _, t := range s.taxa {
		rows = append(rows, t)
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.count != b.count {
			return a.count > b.count
		}
		for k := range a.values {
			if a.values[k] != b.values[k] {
				return a.values[k] < b.values[k]
			}
		}
		return false
	})
	w, err := s.x.create(s.x.spec.Key + ".csv")
	if err != nil {
		return err
	}
	tw := dwca.NewTextWriter(w)
	tw.WriteHeader(speciesListColumns)
	countAt := slices.Index(speciesListColumns, "numberOfOccurrences")
	for _, t := range rows {
		t.values[countAt] = strconv.FormatInt(t.count, 10)
		if err := tw.WriteRow(t.values); err != nil {
			return err
		}
	}
	return tw.Flush()
}
