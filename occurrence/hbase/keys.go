package hbase

import (
	"encoding/binary"
	"hash/fnv"
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

// Column families and qualifiers.
var (
	famRecord = []byte("r") // the record, qualifier ""
	famHeader = []byte("h") // the record's filter header, qualifier ""
	famMeta   = []byte("m") // dataset state rows
	qualState = []byte("state")
	qualEML   = []byte("eml")
)
