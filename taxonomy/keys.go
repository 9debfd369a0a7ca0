package taxonomy

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
)

// Key modes of a checklist (ChecklistInfo.KeyMode).
const (
	// KeyModeTaxonID: every taxonID of the checklist's first load was a
	// decimal integer in [1, 2^31): a taxonID is its usage's key (GBIF's
	// backbone keeps its keys). Other IDs met later, and implicit taxa,
	// get keys minted from 2^31 up.
	KeyModeTaxonID = "taxonID"
	// KeyModeLookup: keys are minted from 1 up, one per taxonID, and
	// remembered in the directory's key lookup.
	KeyModeLookup = "lookup"
)

// mintedNumericBase is where minted keys start in KeyModeTaxonID.
const mintedNumericBase = 1 << 31

const keysMagic = "DLTXKEY1"

// keyLookup is the persistent taxonID -> key table of one checklist: keys
// are stable across loads of the checklist and never reused. It keeps a
// 64-bit hash of each taxonID (FNV-1a), not the ID itself.
type keyLookup struct {
	path    string
	mode    string
	next    uint32 // the next key to mint
	entries []keyEntry
	added   []keyEntry
}

type keyEntry struct {
	hash uint64
	key  uint32
}

// openKeyLookup reads a key lookup ("" mode when it does not exist yet).
func openKeyLookup(path string) (*keyLookup, error) {
	l := &keyLookup{path: path}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("taxonomy: key lookup: %w", err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var hdr [32]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil || string(hdr[:8]) != keysMagic {
		return nil, fmt.Errorf("taxonomy: key lookup %s: not a key lookup file", path)
	}
	le := binary.LittleEndian
	switch hdr[8] {
	case 1:
		l.mode = KeyModeTaxonID
	case 2:
		l.mode = KeyModeLookup
	default:
		return nil, fmt.Errorf("taxonomy: key lookup %s: unknown key mode %d", path, hdr[8])
	}
	l.next = le.Uint32(hdr[12:])
	n := le.Uint64(hdr[16:])
	// The entries must fill the rest of the file: compared by division,
	// since a hostile count times 12 wraps around (2^63+5 entries would
	// "fit" a 92-byte file).
	if st, err := f.Stat(); err != nil || st.Size() < 32 || (st.Size()-32)%12 != 0 || n != uint64(st.Size()-32)/12 {
		return nil, fmt.Errorf("taxonomy: key lookup %s: truncated", path)
	}
	l.entries = make([]keyEntry, n)
	var e [12]byte
	for i := range l.entries {
		if _, err := io.ReadFull(r, e[:]); err != nil {
			return nil, fmt.Errorf("taxonomy: key lookup %s: %w", path, err)
		}
		l.entries[i] = keyEntry{le.Uint64(e[:]), le.Uint32(e[8:])}
	}
	return l, nil
}

// setMode fixes the key mode on a first load.
func (l *keyLookup) setMode(allNumeric bool) {
	if l.mode != "" {
		return
	}
	if allNumeric {
		l.mode, l.next = KeyModeTaxonID, mintedNumericBase
	} else {
		l.mode, l.next = KeyModeLookup, 1
	}
}

// find returns the key remembered for an ID hash.
func (l *keyLookup) find(h uint64) (uint32, bool) {
	i, ok := slices.BinarySearchFunc(l.entries, h, func(e keyEntry, h uint64) int { return cmp.Compare(e.hash, h) })
	if ok {
		return l.entries[i].key, true
	}
	return 0, false
}

// mint returns the key of an ID (its hash h): remembered, or a new one.
func (l *keyLookup) mint(h uint64) (uint32, error) {
	if k, ok := l.find(h); ok {
		return k, nil
	}
	if l.next == 0 {
		return 0, errors.New("taxonomy: key lookup: no keys left")
	}
	k := l.next
	l.next++
	l.added = append(l.added, keyEntry{h, k})
	return k, nil
}

// save merges the minted keys into the file, atomically.
func (l *keyLookup) save() error {
	if len(l.added) == 0 && l.entries != nil {
		return nil
	}
	all := append(slices.Clone(l.entries), l.added...)
	slices.SortFunc(all, func(a, b keyEntry) int { return cmp.Compare(a.hash, b.hash) })
	f, err := atomicfile.Create(l.path, 0o644)
	if err != nil {
		return fmt.Errorf("taxonomy: key lookup: %w", err)
	}
	w := bufio.NewWriter(f)
	var hdr [32]byte
	copy(hdr[:], keysMagic)
	if l.mode == KeyModeTaxonID {
		hdr[8] = 1
	} else {
		hdr[8] = 2
	}
	le := binary.LittleEndian
	le.PutUint32(hdr[12:], l.next)
	le.PutUint64(hdr[16:], uint64(len(all)))
	w.Write(hdr[:])
	var e [12]byte
	for _, x := range all {
		le.PutUint64(e[:], x.hash)
		le.PutUint32(e[8:], x.key)
		w.Write(e[:])
	}
	if err := w.Flush(); err != nil {
		f.Abort()
		return fmt.Errorf("taxonomy: key lookup: %w", err)
	}
	if err := f.Commit(); err != nil {
		return err
	}
	l.entries, l.added = all, nil
	return nil
}
