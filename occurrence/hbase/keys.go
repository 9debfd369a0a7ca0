package hbase

import (
	"encoding/binary"
	"hash/fnv"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Row keys of occurrence rows (23 bytes):
//
//	salt (1) | country (2) | dataset hash (4) | generation (8) | gbifID (8)
//
// The salt is a hash of the gbifID modulo the table's bucket count, so records
// spread evenly over the buckets the table was pre-split into; a split of the
// occurrence.Table is one bucket. Within a bucket rows are grouped by country
// code (the most common download filter), so a country predicate reads only
// its countries' key ranges; "\0\0" stands for no (or not a two-byte)
// country. Within a country, a dataset generation is one contiguous key range,
// which makes dropping a replaced generation a few range scans. Generations
// are nanosecond timestamps, unique per ingest.
//
// Dataset state rows live after every bucket, under metaPrefix.
const (
	keyLen     = 1 + 2 + 4 + 8 + 8
	genOff     = 1 + 2       // key[genOff:genEnd] identifies a dataset generation
	genEnd     = genOff + 12 // dataset hash and generation
	noCC       = "\x00\x00"
	metaPrefix = "\xffdataset:"
	// MaxBuckets bounds the salt; 0xff is reserved for dataset state rows.
	MaxBuckets = 255
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

// countryBytes is the key's country part for a countryCode value.
func countryBytes(v occurrence.Value) string {
	if v.Valid && len(v.S) == 2 {
		return v.S
	}
	return noCC
}

func rowKey(dst []byte, bucket byte, cc string, dsHash uint32, gen uint64, gbifID int64) []byte {
	dst = append(dst, bucket)
	dst = append(dst, cc...)
	dst = binary.BigEndian.AppendUint32(dst, dsHash)
	dst = binary.BigEndian.AppendUint64(dst, gen)
	return binary.BigEndian.AppendUint64(dst, uint64(gbifID))
}

// genID is the key part [genOff:genEnd) of a dataset generation.
func genID(dsHash uint32, gen uint64) string {
	return string(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(nil, dsHash), gen))
}

// genPrefix is the key prefix of one dataset generation in one bucket and
// country.
func genPrefix(bucket byte, cc string, dsHash uint32, gen uint64) []byte {
	return append(append([]byte{bucket}, cc...), genID(dsHash, gen)...)
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

// Column families and qualifiers.
var (
	famRecord = []byte("r") // the record, qualifier ""
	famHeader = []byte("h") // the record's filter header, qualifier ""
	famMeta   = []byte("m") // dataset state rows
	qualState = []byte("state")
	qualEML   = []byte("eml")
)

// IDSplit returns the split of snap that holds gbifID's row, if any: the
// bucket its salt names (a search reads only that bucket for a record).
func (s *Store) IDSplit(snap occurrence.Snapshot, gbifID int64) (occurrence.Split, bool) {
	b := int(salt(gbifID, s.buckets))
	for _, sp := range snap.Splits {
		if ref, ok := sp.Ref.(splitRef); ok && ref.bucket == b {
			return sp, true
		}
	}
	return occurrence.Split{}, false
}
