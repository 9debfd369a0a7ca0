package occurrence

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// MaxID is the largest gbifID a table mints: 2^53-1, the largest integer
// that JavaScript numbers, spreadsheets and R's doubles hold exactly. Ids
// count up from 1, so a table would have to mint 9 quadrillion to reach it.
const MaxID = 1<<53 - 1

// IDMinter hands out gbifIDs the way GBIF's key service does: an
// occurrence key (see OccurrenceKey) is looked up in its dataset, and a
// key seen for the first time gets the next id of a counter shared by the
// whole table. A table's Loader is one, so that ingest asks the table
// itself for the ids it stores.
type IDMinter interface {
	// MintIDs sets ids[i] to the gbifID of keys[i] in the dataset
	// datasetKey (len(ids) == len(keys)): the id the key had before in
	// that dataset, else a new one. The guarantees, which hold across
	// goroutines, writers and processes sharing the table:
	//
	//   - stable: a key keeps its id for good, across re-ingests, aborted
	//     ingests and the deletion of its dataset (a dataset loaded again
	//     after a delete gets its old ids back); the same key in another
	//     dataset is another occurrence with another id;
	//   - unique and never reused: no two (dataset, key) pairs ever get the
	//     same id, also when two writers mint the same new key at once (both
	//     get the one id that won); ids minted for an ingest that then
	//     failed stay with their keys;
	//   - small: 1 <= id <= MaxID; a fresh table's first ids are 1, 2, 3...,
	//     and the new keys of one call get increasing ids in the order
	//     given (ids are skipped when a writer dies holding reserved ones);
	//   - durable: once MintIDs returns, no later call hands its new ids to
	//     other keys, even after a crash of the process; against a crash of
	//     the machine at the latest once a Commit published records holding
	//     them.
	//
	// Equal keys within one call get the same id. An empty key, an empty
	// dataset key or one holding NUL is an error (CheckMintArgs).
	MintIDs(ctx context.Context, datasetKey string, keys []string, ids []int64) error
}

// CheckMintArgs is the check of MintIDs' arguments every backend makes
// first. A dataset key holding NUL is refused: a backend may join the
// dataset key and the occurrence key with NUL into one lookup key (HBase's
// row keys), where it would let two datasets' keys collide.
func CheckMintArgs(datasetKey string, keys []string, ids []int64) error {
	if datasetKey == "" || strings.ContainsRune(datasetKey, 0) {
		return fmt.Errorf("mint ids: invalid dataset key %q", datasetKey)
	}
	if len(ids) != len(keys) {
		return fmt.Errorf("mint ids of %s: %d keys, %d ids", datasetKey, len(keys), len(ids))
	}
	for i, k := range keys {
		if k == "" {
			return fmt.Errorf("mint ids of %s: key %d is empty", datasetKey, i)
		}
	}
	return nil
}

// DistinctKeys returns keys without repeats, in order of first appearance:
// the keys a MintIDs call looks up and mints.
func DistinctKeys(keys []string) []string {
	seen := make(map[string]struct{}, len(keys))
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if _, ok := seen[k]; !ok {
			seen[k] = struct{}{}
			out = append(out, k)
		}
	}
	return out
}

// IDResolver finds the gbifID that replaced one a table handed out before it
// minted ids itself (the 63-bit hashes of older tables): when a dataset of
// such a table is loaded again, its records get minted ids and the table
// records old id -> new id, so that links to an old id keep working.
type IDResolver interface {
	// ResolveID returns the id that replaced old, or an error wrapping
	// ErrNoAlias when old was never replaced (it may be current, or
	// unknown). Any other error is a failure to look it up.
	ResolveID(ctx context.Context, old int64) (int64, error)
}

// ErrNoAlias is ResolveID's answer for an id that was never replaced.
var ErrNoAlias = errors.New("gbifID was never replaced")

// ErrNoOccurrenceKey is why a record without an occurrence key cannot be
// stored: GBIF cannot give it a gbifID either (its key service returns an
// error key and the record is flagged GBIF_ID_INVALID instead of indexed).
var ErrNoOccurrenceKey = errors.New("no occurrenceID and no complete institutionCode/collectionCode/catalogNumber")

// OccurrenceKey is the string that identifies an occurrence within its
// dataset, GBIF's "unique string" of its key lookup: the occurrenceID when
// there is one, else the triplet "institutionCode|collectionCode|catalogNumber|null"
// when all three parts are present (GBIF appends the literal "null" for
// backward compatibility); ok is false when there is neither. The values
// are taken as interpretation stores them (trimmed of surrounding white
// space) and keys compare byte for byte: case matters, as it does in
// GBIF's lookup table, whose row keys are these strings.
func OccurrenceKey(occurrenceID, institutionCode, collectionCode, catalogNumber string) (key string, ok bool) {
	if occurrenceID != "" {
		return occurrenceID, true
	}
	if institutionCode == "" || collectionCode == "" || catalogNumber == "" {
		return "", false
	}
	return institutionCode + "|" + collectionCode + "|" + catalogNumber + "|null", true
}

var (
	iKeyInstitution = mustIndex(ColInstitutionCode)
	iKeyCollection  = mustIndex(ColCollectionCode)
	iKeyCatalog     = mustIndex(ColCatalogNumber)
)

// RecordKey is the OccurrenceKey of an interpreted record.
func RecordKey(r *Record) (string, bool) {
	return OccurrenceKey(r.vals[iOccurrenceID].S, r.vals[iKeyInstitution].S, r.vals[iKeyCollection].S, r.vals[iKeyCatalog].S)
}

// LegacyIDColumns are the columns a backend reads from a dataset version
// whose ids it did not mint, for LegacyAliases.
var LegacyIDColumns = []string{ColGBIFID, ColOccurrenceID, ColInstitutionCode, ColCollectionCode, ColCatalogNumber}

// LegacyAliases mints the ids of the records in b, a batch of
// LegacyIDColumns read from a version of dataset datasetKey stored with ids
// the table did not mint, and returns old[i] -> new[i] for each record whose
// stored id differs from its minted one. Records without an occurrence key
// get no alias (they could not be loaded again).
func LegacyAliases(ctx context.Context, m IDMinter, datasetKey string, b arrow.RecordBatch) (old, new []int64, err error) {
	if int(b.NumCols()) != len(LegacyIDColumns) {
		return nil, nil, fmt.Errorf("legacy ids of %s: batch has %d columns, want %v", datasetKey, b.NumCols(), LegacyIDColumns)
	}
	ids, ok := b.Column(0).(*array.Int64)
	if !ok {
		return nil, nil, fmt.Errorf("legacy ids of %s: gbifID column is %s", datasetKey, b.Column(0).DataType())
	}
	var strs [4]*array.String
	for c := range strs {
		if strs[c], ok = b.Column(c + 1).(*array.String); !ok {
			return nil, nil, fmt.Errorf("legacy ids of %s: %s column is %s", datasetKey, LegacyIDColumns[c+1], b.Column(c+1).DataType())
		}
	}
	str := func(c, i int) string {
		if strs[c].IsNull(i) {
			return ""
		}
		return strings.Clone(strs[c].Value(i)) // the batch's buffers are released after the scan
	}
	var keys []string
	for i := 0; i < int(b.NumRows()); i++ {
		if ids.IsNull(i) {
			continue
		}
		if k, ok := OccurrenceKey(str(0, i), str(1, i), str(2, i), str(3, i)); ok {
			keys = append(keys, k)
			old = append(old, ids.Value(i))
		}
	}
	if len(keys) == 0 {
		return nil, nil, nil
	}
	minted := make([]int64, len(keys))
	if err := m.MintIDs(ctx, datasetKey, keys, minted); err != nil {
		return nil, nil, err
	}
	n := 0
	for i := range old {
		if old[i] != minted[i] {
			old[n], minted[n] = old[i], minted[i]
			n++
		}
	}
	return old[:n], minted[:n], nil
}
