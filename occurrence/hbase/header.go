package hbase

import (
	"encoding/binary"
	"hash/fnv"
	"math"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Next to the record, in its own column family, each row has a small cell
// with a fixed-layout header of the columns predicates use most, encoded so
// that byte order is value order: a version byte, then the fields below.
// Region servers test it with SingleColumnValueFilter and
// BinaryComponentComparator at fixed offsets; with on-demand column family
// loading they read the record family only for rows that pass, and unmatched
// rows never leave the server. (The header has its own small cell because
// the comparator copies the whole cell value for every row it tests.)
//
//	strings  4-byte FNV-1a hash, 0 = null (equality only; a superset)
//	booleans 1 byte: 0 null, 1 false, 2 true
//	int32    presence byte (1) + 4 bytes big-endian, sign bit flipped
//	int64    presence byte (1) + 8 bytes big-endian, sign bit flipped
//	float64  presence byte (1) + 8 bytes, IEEE 754 made order-preserving
type headerKind int

const (
	hString headerKind = iota
	hBool
	hInt32
	hInt64
	hFloat
)

func (k headerKind) width() int {
	switch k {
	case hString:
		return 4
	case hBool:
		return 1
	case hInt32:
		return 5
	default:
		return 9
	}
}

// headerField is one column of the header.
type headerField struct {
	col    int // index in occurrence.Columns()
	kind   headerKind
	offset int // from the start of the cell value
	since  int // the header version that added it
}

// headerVersions are the header's columns, by version from version 2.
// Predicates on a search key whose columns are all here are pushed to the
// servers, so a string column must be one that its keys match exactly (its
// hash answers only exact equality). A version only appends columns, so
// every version's offsets hold in the later ones; rows written before a
// version end earlier, so a predicate on its columns is pushed only when
// every dataset of the snapshot has headers of that version
// (datasetState.Header).
var headerVersions = [][]headerCol{
	{ // version 2
		{occurrence.ColCountryCode, hString}, {occurrence.ColDatasetKey, hString},
		{occurrence.ColBasisOfRecord, hString}, {occurrence.ColLicense, hString},
		{occurrence.ColOccurrenceStatus, hString}, {occurrence.ColPublishingOrgKey, hString},
		{occurrence.ColHasCoordinate, hBool}, {occurrence.ColHasGeospatialIssue, hBool},
		{occurrence.ColYear, hInt32}, {occurrence.ColMonth, hInt32},
		{occurrence.ColDecimalLatitude, hFloat}, {occurrence.ColDecimalLongitude, hFloat},
		{occurrence.ColTaxonKey, hInt64}, {occurrence.ColAcceptedTaxonKey, hInt64},
		{occurrence.ColKingdomKey, hInt64}, {occurrence.ColPhylumKey, hInt64},
		{occurrence.ColClassKey, hInt64}, {occurrence.ColOrderKey, hInt64},
		{occurrence.ColFamilyKey, hInt64}, {occurrence.ColGenusKey, hInt64},
		{occurrence.ColSpeciesKey, hInt64},
	},
	{ // version 3: the intermediate ranks' keys TAXON_KEY also matches
		{"superfamilyKey", hInt64}, {"subfamilyKey", hInt64}, {"tribeKey", hInt64},
		{"subtribeKey", hInt64}, {"subgenusKey", hInt64},
	},
}

// headerCol is a column of the header.
type headerCol struct {
	name string
	kind headerKind
}

// headerFields by column name, and the header's length (after the version
// byte that starts every record cell).
var headerFields, headerLen = func() (map[string]headerField, int) {
	m := map[string]headerField{}
	off := 1
	for i, cols := range headerVersions {
		for _, c := range cols {
			m[c.name] = headerField{col: occurrence.ColumnIndex(c.name), kind: c.kind, offset: off, since: i + 2}
			off += c.kind.width()
		}
	}
	return m, off - 1
}()

var headerOrder = func() []headerField {
	var out []headerField
	for _, cols := range headerVersions {
		for _, c := range cols {
			out = append(out, headerFields[c.name])
		}
	}
	return out
}()

// headerVersion leads every header cell: the last of headerVersions (the
// first is version 2). The header's layout is independent of the record
// encoding's.
const headerVersion = 3

// encodeHeader appends r's header cell value to dst.
func encodeHeader(dst []byte, r *occurrence.Record) []byte {
	dst = append(dst, headerVersion)
	for _, f := range headerOrder {
		v := r.Get(f.col)
		if !v.Valid {
			dst = append(dst, make([]byte, f.kind.width())...)
			continue
		}
		dst = appendHeaderValue(dst, f.kind, v)
	}
	return dst
}

func appendHeaderValue(dst []byte, k headerKind, v occurrence.Value) []byte {
	switch k {
	case hString:
		return binary.BigEndian.AppendUint32(dst, stringHash(v.S))
	case hBool:
		if v.B {
			return append(dst, 2)
		}
		return append(dst, 1)
	case hInt32:
		return binary.BigEndian.AppendUint32(append(dst, 1), uint32(int32(v.I))^(1<<31))
	case hInt64:
		return binary.BigEndian.AppendUint64(append(dst, 1), uint64(v.I)^(1<<63))
	default:
		return binary.BigEndian.AppendUint64(append(dst, 1), sortableFloat(v.F))
	}
}

// stringHash is never 0 (which means null).
func stringHash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	if v := h.Sum32(); v != 0 {
		return v
	}
	return 1
}

// sortableFloat maps f to bytes whose order is value order; -0 encodes as 0,
// which it equals.
func sortableFloat(f float64) uint64 {
	if f == 0 {
		f = 0 // -0 == 0: one encoding, so filters on 0 keep both
	}
	b := math.Float64bits(f)
	if b>>63 == 0 {
		return b ^ 1<<63
	}
	return ^b
}
