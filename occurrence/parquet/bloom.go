package parquet

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/cespare/xxhash/v2"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Bloom filters on the taxon key columns. TAXON_KEY matches a key in any
// of 14 columns (the record's taxon, its accepted taxon and every rank's
// key), and a key sits in one or two of them, but a row group's min/max of
// a key column spans most keys, so before these filters every TAXON_KEY
// predicate decompressed all 14 columns of every row group. The writer
// (arrow-go) adds a split-block bloom filter per column chunk of these
// columns; a scan reads the filters of a row group (a few KiB each, no
// decompression) and leaves out the columns that certainly do not hold the
// key (occurrence.IntMembership, EvalCache.Trim). Files without filters
// (written before) are read as before.
//
// The check is written here: arrow-go reads filters only through its own
// footer structures, which this package does not build (footer.go), and
// the check is the Parquet format's split-block algorithm, a few lines.

// maxBloomBytes caps a column chunk's filter: 16 KiB holds about 13,000
// distinct keys at 1% false positives (a row group of wide records has
// about 14,000 rows), and degrades above: about 25% at 30,000 (eight bits
// of a 256-bit block per key; 26% measured through the table's writer).
// The writer keeps every candidate of every row group of a file until the
// file is closed: 32 KiB and arrow-go's 5 candidates held 11.8 MB of
// ingest's live heap at its peak, 16 KiB and 3 hold 5.1 MB.
const maxBloomBytes = 16 << 10

// bloomCandidates is how many filter sizes (halving from maxBloomBytes)
// the adaptive writer tries.
const bloomCandidates = 3

// bloomProps enables adaptive bloom filters (the smallest of a few sizes
// that keeps the false-positive rate at the distinct values written) on
// the taxon key columns.
func bloomProps() []parquet.WriterProperty {
	props := []parquet.WriterProperty{parquet.WithMaxBloomFilterBytes(maxBloomBytes)}
	for _, c := range occurrence.TaxonKeyColumns() {
		props = append(props, parquet.WithBloomFilterEnabledFor(c, true), parquet.WithAdaptiveBloomFilterEnabledFor(c, true),
			parquet.WithBloomFilterCandidatesFor(c, bloomCandidates))
	}
	return props
}

// bloomStats are a row group's statistics with its bloom filters.
type bloomStats struct {
	stats   occurrence.Stats // may be nil
	sc      *splitScan
	filters map[string]*bloomFilter // located so far; nil: none
}

func (sc *splitScan) trimStats() *bloomStats { return &bloomStats{stats: sc.split, sc: sc} }

func (b *bloomStats) ColumnStats(column string) (occurrence.ColumnStats, bool) {
	if b.stats == nil {
		return occurrence.ColumnStats{}, false
	}
	return b.stats.ColumnStats(column)
}

// MayContainInt is false when the column chunk's bloom filter proves v
// absent; true without a filter or when it cannot be read.
func (b *bloomStats) MayContainInt(column string, v int64) bool {
	f, ok := b.filters[column]
	if !ok {
		f, _ = b.sc.readBloom(column) // an unreadable filter proves nothing
		if b.filters == nil {
			b.filters = map[string]*bloomFilter{}
		}
		b.filters[column] = f
	}
	if f == nil {
		return true
	}
	var le [8]byte
	binary.LittleEndian.PutUint64(le[:], uint64(v))
	return f.mayContain(xxhash.Sum64(le[:]))
}

// bloomFilter is a split-block bitset in a file: a check reads the one
// 32-byte block its hash picks, not the whole filter (16 KiB a column
// chunk: reading whole filters cost every TAXON_KEY scan 14 of them a
// row group).
type bloomFilter struct {
	r      io.ReaderAt
	at     int64 // the bitset's first byte
	blocks uint64
}

// mayContain checks a hash. A block that cannot be read proves nothing,
// so the row group is read: the answer stays right, only unpruned, and a
// file that cannot be read at all fails there, with its path.
func (f *bloomFilter) mayContain(hash uint64) bool {
	var block [32]byte
	i := ((hash >> 32) * f.blocks) >> 32
	if _, err := f.r.ReadAt(block[:], f.at+int64(i)*32); err != nil {
		return true
	}
	return blockMayContain(block[:], hash)
}

// maxBloomRead bounds what a filter may claim (the format's limit is
// 128 MiB; ours are at most 16 KiB plus a header).
const maxBloomRead = 1 << 20

// bloomHeaderRead is enough of a filter to hold its header (about 15
// bytes: four small fields).
const bloomHeaderRead = 64

// readBloom locates the bitset of column's bloom filter in this row
// group, reading its header: nil when the chunk has none, or is not INT64
// (a filter hashes a value's plain encoding, which MayContainInt takes to
// be eight bytes).
func (sc *splitScan) readBloom(column string) (*bloomFilter, error) {
	foot := sc.file.foot
	leaf, ok := foot.byName[column]
	if !ok || sc.rg >= len(foot.rowGroups) {
		return nil, nil
	}
	c := foot.rowGroups[sc.rg].chunks[leaf]
	if c.bloomAt <= 0 || c.ptype != physInt64 {
		return nil, nil
	}
	n := int64(c.bloomLen)
	if n <= 0 {
		n = maxBloomRead // another writer that did not say: the most we accept
	}
	n = min(n, maxBloomRead, sc.file.size-c.bloomAt)
	if n <= 0 {
		return nil, fmt.Errorf("%s: bloom filter of %s past the end of the file", sc.path, column)
	}
	head := make([]byte, min(n, bloomHeaderRead))
	if _, err := sc.file.f.ReadAt(head, c.bloomAt); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: bloom filter of %s: %w", sc.path, column, err)
	}
	hdr, numBytes, err := parseBloomHeader(head, n)
	if err != nil {
		return nil, fmt.Errorf("%s: bloom filter of %s: %w", sc.path, column, err)
	}
	return &bloomFilter{r: sc.file.f, at: c.bloomAt + int64(hdr), blocks: uint64(numBytes / 32)}, nil
}

// parseBloom parses a BloomFilterHeader and returns the bitset that
// follows it in b.
func parseBloom(b []byte) ([]byte, error) {
	hdr, numBytes, err := parseBloomHeader(b, int64(len(b)))
	if err != nil {
		return nil, err
	}
	return b[hdr : hdr+numBytes], nil
}

// parseBloomHeader parses a BloomFilterHeader (thrift: 1 numBytes, 2
// algorithm, 3 hash, 4 compression) at the start of b, a filter of size
// bytes, and returns the header's length and the bitset's. The three are
// unions whose member 1 (BLOCK, XXHASH, UNCOMPRESSED) is the only one the
// format defines so far and the only one blockMayContain can check: a
// filter naming another is an error (it proves nothing), never read with
// the wrong hash, which would prove keys absent that are there.
func parseBloomHeader(b []byte, size int64) (hdr, numBytes int, err error) {
	d := tdec{b: b}
	var n int32
	var seen, bad uint8 // bits 2, 3, 4: the unions read, and any not as above
	d.each(func(id int16, typ byte) {
		switch id {
		case 1:
			n = d.i32Field(typ)
		case 2, 3, 4:
			if seen&(1<<id) != 0 || !d.firstMemberOnly(typ) {
				bad |= 1 << id
			}
			seen |= 1 << id
		default:
			d.skip(typ)
		}
	})
	if d.err != nil {
		return 0, 0, d.err
	}
	if seen != 0b11100 || bad != 0 || n <= 0 || n%32 != 0 || int64(n) > size-int64(d.pos) {
		return 0, 0, fmt.Errorf("bloom filter header: %d bytes in %d: %w", n, size-int64(d.pos), errCorrupt)
	}
	return d.pos, int(n), nil
}

// firstMemberOnly reads a union and reports whether it holds member 1
// and nothing else.
func (d *tdec) firstMemberOnly(typ byte) bool {
	if !d.expect(typ, tStruct) {
		return false
	}
	first, other := false, false
	d.each(func(id int16, typ byte) {
		first = first || id == 1
		other = other || id != 1
		d.skip(typ)
	})
	return first && !other
}

// sbbfSalt are the split-block bloom filter's eight salts (Parquet format).
var sbbfSalt = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

// blockMayContain checks a hash against the block its upper half picked:
// the block must have the eight bits its lower half sets.
func blockMayContain(block []byte, hash uint64) bool {
	key := uint32(hash)
	for i, salt := range sbbfSalt {
		word := binary.LittleEndian.Uint32(block[i*4:])
		if word&(1<<((key*salt)>>27)) == 0 {
			return false
		}
	}
	return true
}
