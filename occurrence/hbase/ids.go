package hbase

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc"
)

// The gbifID lookup lives in the table's meta rows (family m, after every
// salt bucket), as GBIF keeps its own in HBase:
//
//	\xffid:<dataset key>\x00<occurrence key>   m:id   the key's id (8 bytes)
//	\xffalias:<old id, 8 bytes>               m:id   the id that replaced it
//	\xfftable                                 m:nextid  the counter
//
// A Store reserves idBlock ids at a time with one atomic Increment of the
// counter and hands them out itself, so that minting new keys costs one
// counter call per thousand ids; the ids of a block a process did not use
// before it ended are skipped, never handed out. A new key's lookup row is
// written with a check-and-put on its absence: of two writers minting the
// same key at once, one writes its id and the other reads it back.
const (
	idPrefix    = "\xffid:"
	aliasPrefix = "\xffalias:"
	idBlock     = 1000
)

var (
	qualID     = []byte("id")
	qualNextID = []byte("nextid")
)

// idBlocks is the store's reserved range of ids, [next, end).
type idBlocks struct {
	mu        sync.Mutex
	next, end int64
}

func lookupKey(dataset, key string) []byte {
	return []byte(idPrefix + dataset + "\x00" + key)
}

func aliasKey(old int64) []byte {
	return binary.BigEndian.AppendUint64([]byte(aliasPrefix), uint64(old))
}

// take returns n new ids, increasing, from the reserved block, reserving
// more from the table's counter as needed.
func (s *Store) take(ctx context.Context, n int) ([]int64, error) {
	b := &s.idBlocks
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]int64, 0, n)
	for len(out) < n {
		if b.next == b.end {
			size := int64(max(idBlock, n-len(out)))
			last, err := s.c.Increment(ctx, s.cfg.Table, tableKey, famMeta, qualNextID, size)
			if err != nil {
				return nil, fmt.Errorf("reserve gbifIDs: %w", err)
			}
			if last > occurrence.MaxID {
				return nil, errors.New("reserve gbifIDs: the table's counter passed 2^53-1")
			}
			b.next, b.end = last-size+1, last+1
		}
		for ; b.next < b.end && len(out) < n; b.next++ {
			out = append(out, b.next)
		}
	}
	return out, nil
}

// MintIDs gives keys the ids they have in the dataset, or new ones from the
// table's counter (see occurrence.IDMinter): one batched read of the
// lookup rows, then one batch of check-and-puts for the new keys.
func (s *Store) MintIDs(ctx context.Context, datasetKey string, keys []string, ids []int64) error {
	if err := occurrence.CheckMintArgs(datasetKey, keys, ids); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	uniq := occurrence.DistinctKeys(keys)
	found := make(map[string]int64, len(uniq))
	if err := s.lookupIDs(ctx, datasetKey, uniq, found); err != nil {
		return err
	}
	var fresh []string
	for _, k := range uniq {
		if _, ok := found[k]; !ok {
			fresh = append(fresh, k)
		}
	}
	if len(fresh) > 0 {
		newIDs, err := s.take(ctx, len(fresh))
		if err != nil {
			return fmt.Errorf("mint ids of %s: %w", datasetKey, err)
		}
		// The check-and-puts do not wait for the WAL to sync, one after
		// another (half their cost): one synced put per region then makes
		// them durable, as the WAL syncs in order.
		puts := make([]hrpc.CheckAndPut, len(fresh))
		for i, k := range fresh {
			puts[i] = hrpc.CheckAndPut{Family: famMeta, Qualifier: qualID, Put: &hrpc.Mutation{Row: lookupKey(datasetKey, k), AsyncWAL: true,
				Cells: []hrpc.Cell{{Family: famMeta, Qualifier: qualID, Value: binary.BigEndian.AppendUint64(nil, uint64(newIDs[i]))}}}}
		}
		written, err := s.c.CheckAndPutAll(ctx, s.cfg.Table, puts)
		if err != nil {
			return fmt.Errorf("mint ids of %s: %w", datasetKey, err)
		}
		if err := s.syncRegions(ctx, puts, written); err != nil {
			return fmt.Errorf("mint ids of %s: %w", datasetKey, err)
		}
		var lost []string // another writer minted them first
		for i, k := range fresh {
			if written[i] {
				found[k] = newIDs[i]
			} else {
				lost = append(lost, k)
			}
		}
		if err := s.lookupIDs(ctx, datasetKey, lost, found); err != nil {
			return err
		}
		for _, k := range lost {
			if _, ok := found[k]; !ok {
				return fmt.Errorf("mint ids of %s: the lookup row of %q was neither written nor found", datasetKey, k)
			}
		}
	}
	for i, k := range keys {
		ids[i] = found[k]
	}
	return nil
}

// syncRegions writes again, synced, one of the puts that happened in each
// region (the same cell: nothing changes), which syncs the WAL past all of
// them. Puts that did not happen are the other writer's to sync.
func (s *Store) syncRegions(ctx context.Context, puts []hrpc.CheckAndPut, written []bool) error {
	seen := map[*hrpc.Region]bool{}
	var muts []*hrpc.Mutation
	for i, p := range puts {
		if !written[i] {
			continue
		}
		r, err := s.c.Locate(ctx, s.cfg.Table, p.Put.Row)
		if err != nil {
			return err
		}
		if !seen[r] {
			seen[r] = true
			m := *p.Put
			m.AsyncWAL = false
			muts = append(muts, &m)
		}
	}
	if len(muts) == 0 {
		return nil
	}
	return s.c.Apply(ctx, s.cfg.Table, muts)
}

// lookupIDs adds to found the ids keys have in the dataset.
func (s *Store) lookupIDs(ctx context.Context, dataset string, keys []string, found map[string]int64) error {
	if len(keys) == 0 {
		return nil
	}
	rows := make([][]byte, len(keys))
	for i, k := range keys {
		rows[i] = lookupKey(dataset, k)
	}
	got, err := s.c.GetRows(ctx, s.cfg.Table, rows, hrpc.Column{Family: famMeta, Qualifiers: [][]byte{qualID}})
	if err != nil {
		return fmt.Errorf("look up ids of %s: %w", dataset, err)
	}
	for i, r := range got {
		if id, ok := idCell(r); ok {
			found[keys[i]] = id
		} else if r != nil {
			return fmt.Errorf("look up ids of %s: corrupt lookup row for %q", dataset, keys[i])
		}
	}
	return nil
}

// idCell reads the 8-byte m:id cell of a lookup or alias row.
func idCell(r *hrpc.Row) (int64, bool) {
	for _, c := range rowCells(r) {
		if string(c.Qualifier) == string(qualID) && len(c.Value) == 8 {
			return int64(binary.BigEndian.Uint64(c.Value)), true
		}
	}
	return 0, false
}

// ResolveID returns the id that replaced old when its dataset was loaded
// again (see occurrence.IDResolver).
func (s *Store) ResolveID(ctx context.Context, old int64) (int64, error) {
	r, err := s.c.Get(ctx, s.cfg.Table, aliasKey(old), hrpc.Column{Family: famMeta, Qualifiers: [][]byte{qualID}})
	if err != nil {
		return 0, fmt.Errorf("resolve gbifID %d: %w", old, err)
	}
	id, ok := idCell(r)
	if !ok {
		return 0, fmt.Errorf("%w: %d", occurrence.ErrNoAlias, old)
	}
	return id, nil
}

// migrateLegacyIDs mints ids for the records of the dataset generation st
// names when the table did not mint them (a table written before it
// minted ids) and records each old id as an alias of the new one. It reads
// only that generation's key ranges. It runs again until a generation with
// minted ids is committed; the ids and aliases are the same each time.
func (s *Store) migrateLegacyIDs(ctx context.Context, key string, st *datasetState) error {
	if st == nil || st.Gen == 0 || st.MintedIDs {
		return nil
	}
	h := datasetHash(key)
	dec := newBatchDecoder(occurrence.LegacyIDColumns)
	defer dec.rb.Release()
	var pending [][]byte
	aliases := 0
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		b, err := dec.decode(pending, nil)
		if err != nil {
			return err
		}
		defer b.Release()
		pending = pending[:0]
		old, new, err := occurrence.LegacyAliases(ctx, s, key, b)
		if err != nil {
			return err
		}
		muts := make([]*hrpc.Mutation, len(old))
		for i := range old {
			muts[i] = &hrpc.Mutation{Row: aliasKey(old[i]), Cells: []hrpc.Cell{{Family: famMeta, Qualifier: qualID,
				Value: binary.BigEndian.AppendUint64(nil, uint64(new[i]))}}}
		}
		aliases += len(muts)
		if len(muts) == 0 {
			return nil
		}
		return s.c.Apply(ctx, s.cfg.Table, muts)
	}
	id := genID(h, st.Gen)
	for b := 0; b < s.buckets; b++ {
		for _, cc := range st.Countries {
			p := genPrefix(byte(b), cc, h, st.Gen)
			opts := hrpc.ScanOptions{Start: p, Stop: prefixEnd(p), Columns: []hrpc.Column{{Family: famRecord}}, Caching: s.cfg.Caching}
			_, err := s.c.Scan(ctx, s.cfg.Table, opts, func(rows []hrpc.Row) error {
				for _, r := range rows {
					if len(r.Key) != keyLen || string(r.Key[genOff:genEnd]) != id {
						continue
					}
					rec := recordCell(r)
					if rec == nil {
						return fmt.Errorf("%w: row %x has no record cell", ErrCorruptRecord, r.Key)
					}
					if pending = append(pending, rec); len(pending) >= occurrence.DefaultBatchSize {
						if err := flush(); err != nil {
							return err
						}
					}
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("migrate the gbifIDs of %s: %w", key, err)
			}
		}
	}
	if err := flush(); err != nil {
		return fmt.Errorf("migrate the gbifIDs of %s: %w", key, err)
	}
	s.log.Info("hbase: gbifIDs minted for a dataset stored with older ids", "dataset", key, "aliases", aliases)
	return nil
}
