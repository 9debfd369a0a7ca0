package taxonomy

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The store is one immutable file per loaded checklist version, read
// through a memory map. Little-endian throughout:
//
//	header   magic "DLTAXON1", format version u32, section count u32,
//	         then per section: offset u64, length u64
//	meta     JSON of ChecklistInfo
//	heap     the strings (names, IDs), referenced by offset and length
//	usages   fixed-size records sorted by key (recordSize bytes each)
//	byNorm   {hash u64, usage u32} sorted: normalized canonical name -> usages
//	words    {heap offset u32, length u16, pad u16, posting start u32,
//	         posting count u32} sorted by word: the first words of names
//	posts    usage indexes grouped by first word
//	heads    {key u32, word u32} sorted: one-edit variants of the first
//	         four letters of each word -> words (fuzzy candidates)
//	children usage indexes of accepted usages sorted by parent
//	synonyms usage indexes of synonyms sorted by accepted usage
//	suggest  usage indexes sorted by lower-case canonical name
//	byID     {hash u64, usage u32} sorted: taxonID -> usage
const (
	storeMagic    = "DLTAXON1"
	storeVersion  = 1
	recordSize    = 56
	normEntrySize = 12
	wordEntrySize = 16
	headEntrySize = 8
)

// The sections, in file order.
const (
	secMeta = iota
	secHeap
	secUsages
	secByNorm
	secWords
	secPosts
	secHeads
	secChildren
	secSynonyms
	secSuggest
	secByID
	numSections
)

const headerSize = 16 + numSections*16

// ErrCorruptStore marks a store file that cannot be read.
var ErrCorruptStore = errors.New("taxonomy: corrupt store file")

// record is a usage as stored. Indexes of other usages are +1 (0: none).
type record struct {
	key                              uint32
	parent, accepted                 uint32
	sciOff, canonOff, authOff, idOff uint32
	sciLen, canonLen, authLen, idLen uint16
	rank                             Rank
	status                           TaxonomicStatus
	nameType                         NameType
	flags                            uint8
	lo, hi                           uint32
	word                             uint32 // first word index +1
	depth                            uint16
	code                             NomCode
}

const flagImplicit = 1

func (r *record) put(b []byte) {
	le := binary.LittleEndian
	le.PutUint32(b[0:], r.key)
	le.PutUint32(b[4:], r.parent)
	le.PutUint32(b[8:], r.accepted)
	le.PutUint32(b[12:], r.sciOff)
	le.PutUint32(b[16:], r.canonOff)
	le.PutUint32(b[20:], r.authOff)
	le.PutUint32(b[24:], r.idOff)
	le.PutUint16(b[28:], r.sciLen)
	le.PutUint16(b[30:], r.canonLen)
	le.PutUint16(b[32:], r.authLen)
	le.PutUint16(b[34:], r.idLen)
	b[36], b[37], b[38], b[39] = byte(r.rank), byte(r.status), byte(r.nameType), r.flags
	le.PutUint32(b[40:], r.lo)
	le.PutUint32(b[44:], r.hi)
	le.PutUint32(b[48:], r.word)
	le.PutUint16(b[52:], r.depth)
	b[54], b[55] = byte(r.code), 0
}

func getRecord(b []byte) record {
	le := binary.LittleEndian
	return record{
		key: le.Uint32(b[0:]), parent: le.Uint32(b[4:]), accepted: le.Uint32(b[8:]),
		sciOff: le.Uint32(b[12:]), canonOff: le.Uint32(b[16:]), authOff: le.Uint32(b[20:]), idOff: le.Uint32(b[24:]),
		sciLen: le.Uint16(b[28:]), canonLen: le.Uint16(b[30:]), authLen: le.Uint16(b[32:]), idLen: le.Uint16(b[34:]),
		rank: Rank(b[36]), status: TaxonomicStatus(b[37]), nameType: NameType(b[38]), flags: b[39],
		lo: le.Uint32(b[40:]), hi: le.Uint32(b[44:]), word: le.Uint32(b[48:]), depth: le.Uint16(b[52:]), code: NomCode(b[54]),
	}
}

// sections reads and checks a store's header.
func sections(data []byte) ([numSections][]byte, error) {
	var s [numSections][]byte
	if len(data) < headerSize || string(data[:8]) != storeMagic {
		return s, fmt.Errorf("%w: no store header", ErrCorruptStore)
	}
	le := binary.LittleEndian
	if v := le.Uint32(data[8:]); v != storeVersion {
		return s, fmt.Errorf("%w: format version %d, this program reads %d", ErrCorruptStore, v, storeVersion)
	}
	if n := le.Uint32(data[12:]); n != numSections {
		return s, fmt.Errorf("%w: %d sections, want %d", ErrCorruptStore, n, numSections)
	}
	for i := range numSections {
		off, n := le.Uint64(data[16+16*i:]), le.Uint64(data[24+16*i:])
		if off > uint64(len(data)) || n > uint64(len(data))-off {
			return s, fmt.Errorf("%w: section %d out of range", ErrCorruptStore, i)
		}
		s[i] = data[off : off+n]
	}
	sizes := [numSections]int{secUsages: recordSize, secByNorm: normEntrySize, secWords: wordEntrySize,
		secPosts: 4, secHeads: headEntrySize, secChildren: 4, secSynonyms: 4, secSuggest: 4, secByID: normEntrySize}
	for i, sz := range sizes {
		if sz > 0 && len(s[i])%sz != 0 {
			return s, fmt.Errorf("%w: section %d is not a whole number of entries", ErrCorruptStore, i)
		}
	}
	return s, nil
}

// fnv64 is FNV-1a: the store's hash of strings (stable across processes).
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
