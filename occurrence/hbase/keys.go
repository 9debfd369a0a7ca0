package hbase

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"strconv"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Row keys of occurrence rows (21 bytes):
//
//	salt (1) | dataset hash (4) | generation (8) | gbifID (8)
//
// The salt is a hash of the gbifID modulo the table's bucket count, so records
// spread evenly over the buckets the table was pre-split into; a split of the
// occurrence.Table is one bucket. Within a bucket, a dataset generation is one
// contiguous key range, which makes dropping a replaced generation a handful
// of range scans. Generations are nanosecond timestamps, unique per ingest.
//
// Dataset state rows live after every bucket, under metaPrefix.
const (
	keyLen     = 1 + 4 + 8 + 8
	genEnd     = 1 + 4 + 8 // key[1:genEnd] identifies a dataset generation
	metaPrefix = "\xffdataset:"
	// MaxBuckets bounds the salt; 0xff is reserved for dataset state rows.
	MaxBuckets = 255
)

// Column families and qualifiers.
var (
	famRecord = []byte("r") // the full record, qualifier ""
	famFilter = []byte("f") // the predicate's common columns, for server-side filters
	famMeta   = []byte("m") // dataset state rows
	qualState = []byte("state")
	qualEML   = []byte("eml")
)

func salt(gbifID int64, buckets int) byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(gbifID))
	h := fnv.New32a()
	h.Write(b[:])
	return byte(h.Sum32() % uint32(buckets))
}

func datasetHash(key string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(key))
	return h.Sum32()
}

func rowKey(dst []byte, bucket byte, dsHash uint32, gen uint64, gbifID int64) []byte {
	dst = append(dst, bucket)
	dst = binary.BigEndian.AppendUint32(dst, dsHash)
	dst = binary.BigEndian.AppendUint64(dst, gen)
	return binary.BigEndian.AppendUint64(dst, uint64(gbifID))
}

// genPrefix is the key prefix of one dataset generation in one bucket.
func genPrefix(bucket byte, dsHash uint32, gen uint64) []byte {
	return rowKey(nil, bucket, dsHash, gen, 0)[:genEnd]
}

// prefixEnd returns the smallest key after every key starting with p.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

func metaKey(datasetKey string) []byte { return []byte(metaPrefix + datasetKey) }

// filterCell is a column stored as its own cell so server-side filters can
// test it. Values are encoded so that byte order is value order.
type filterCell struct {
	qual []byte
	col  int // index in occurrence.Columns
}

var (
	fCountry    = filterCell{[]byte("c"), occurrence.ColumnIndex(occurrence.ColCountryCode)}
	fDataset    = filterCell{[]byte("d"), occurrence.ColumnIndex(occurrence.ColDatasetKey)}
	fBasis      = filterCell{[]byte("b"), occurrence.ColumnIndex(occurrence.ColBasisOfRecord)}
	fLicense    = filterCell{[]byte("l"), occurrence.ColumnIndex(occurrence.ColLicense)}
	fStatus     = filterCell{[]byte("s"), occurrence.ColumnIndex(occurrence.ColOccurrenceStatus)}
	fPublisher  = filterCell{[]byte("p"), occurrence.ColumnIndex(occurrence.ColPublishingOrgKey)}
	fYear       = filterCell{[]byte("y"), occurrence.ColumnIndex(occurrence.ColYear)}
	fMonth      = filterCell{[]byte("m"), occurrence.ColumnIndex(occurrence.ColMonth)}
	fHasCoord   = filterCell{[]byte("h"), occurrence.ColumnIndex(occurrence.ColHasCoordinate)}
	fGeoIssue   = filterCell{[]byte("g"), occurrence.ColumnIndex(occurrence.ColHasGeospatialIssue)}
	fLatitude   = filterCell{[]byte("a"), occurrence.ColumnIndex(occurrence.ColDecimalLatitude)}
	fLongitude  = filterCell{[]byte("o"), occurrence.ColumnIndex(occurrence.ColDecimalLongitude)}
	filterCells = []filterCell{fCountry, fDataset, fBasis, fLicense, fStatus, fPublisher, fYear, fMonth,
		fHasCoord, fGeoIssue, fLatitude, fLongitude}
	// qualTaxa holds ";k;p;c;o;f;g;s;t;a;" (every taxon key of the record).
	qualTaxa = []byte("t")
	taxaCols = func() []int {
		var out []int
		for _, n := range []string{occurrence.ColKingdomKey, occurrence.ColPhylumKey, occurrence.ColClassKey,
			occurrence.ColOrderKey, occurrence.ColFamilyKey, occurrence.ColGenusKey, occurrence.ColSpeciesKey,
			occurrence.ColTaxonKey, occurrence.ColAcceptedTaxonKey} {
			out = append(out, occurrence.ColumnIndex(n))
		}
		return out
	}()
)

// encodeFilterValue encodes v of column ci so byte order is value order.
func encodeFilterValue(ci int, v occurrence.Value) []byte {
	switch occurrence.Columns[ci].Kind {
	case occurrence.KindInt32:
		return sortableInt32(int32(v.I))
	case occurrence.KindFloat64:
		return sortableFloat(v.F)
	case occurrence.KindBool:
		if v.B {
			return []byte{1}
		}
		return []byte{0}
	default:
		return []byte(v.S)
	}
}

func sortableInt32(v int32) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(v)^(1<<31))
}

func sortableFloat(f float64) []byte {
	b := math.Float64bits(f)
	if b>>63 == 0 {
		b ^= 1 << 63
	} else {
		b = ^b
	}
	return binary.BigEndian.AppendUint64(nil, b)
}

// taxaValue joins the record's taxon keys as ";k1;k2;...;" (nil if none).
func taxaValue(r *occurrence.Record) []byte {
	var sb strings.Builder
	for _, ci := range taxaCols {
		if v := r.Get(ci); v.Valid {
			if sb.Len() == 0 {
				sb.WriteByte(';')
			}
			sb.WriteString(strconv.FormatInt(v.I, 10))
			sb.WriteByte(';')
		}
	}
	if sb.Len() == 0 {
		return nil
	}
	return []byte(sb.String())
}
