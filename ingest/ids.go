package ingest

import (
	"context"
	"fmt"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

var gbifIDCol = occurrence.ColumnIndex(occurrence.ColGBIFID)

// minter is the pipeline stage that gives records their gbifIDs: the
// table's ids for their occurrence keys, asked for a chunk at a time and in
// source order, so that the new records of a source are numbered as it
// lists them. Records the table cannot give an id are broken rows: those
// without an occurrence key (GBIF refuses them too), and those whose key
// an earlier record of the same source already had (they would share its
// id).
type minter struct {
	table   occurrence.IDMinter
	dataset string
	seen    idSet // the ids given so far in this load
	budget  int   // problem messages left
	n       int64 // records seen, for records a source does not locate
}

// mintScratch is a chunk's buffers for MintIDs.
type mintScratch struct {
	mintKeys []string
	mintIdx  []int
	mintIDs  []int64
}

func newMinter(table occurrence.IDMinter, dataset string, maxProblems int) *minter {
	return &minter{table: table, dataset: dataset, seen: idSet{}, budget: maxProblems}
}

// run mints the chunks of ordered as their interpretation finishes and
// passes them on to minted, in order. After a failure (or once ctx is done)
// it keeps receiving, so that the reader never blocks, but passes nothing on.
// It returns its own failure only: a cancellation is the canceller's to
// report.
func (m *minter) run(ctx context.Context, ordered <-chan *chunk, minted chan<- *chunk) error {
	var failed error
	stopped := false
	for c := range ordered {
		<-c.done
		if stopped || ctx.Err() != nil {
			stopped = true
			continue
		}
		if err := m.mint(ctx, c); err != nil {
			if ctx.Err() == nil {
				failed = err
			}
			stopped = true
			continue
		}
		select {
		case minted <- c:
		case <-ctx.Done():
			stopped = true
		}
	}
	return failed
}

// mint sets the gbifIDs of the chunk's records and marks which to keep.
func (m *minter) mint(ctx context.Context, c *chunk) error {
	keys, idx := c.mintKeys[:0], c.mintIdx[:0]
	for j := range c.raw {
		if c.keys[j] != "" {
			keys = append(keys, c.keys[j])
			idx = append(idx, j)
		}
	}
	ids := c.mintIDs[:0]
	for range keys {
		ids = append(ids, 0)
	}
	c.mintKeys, c.mintIdx, c.mintIDs = keys, idx, ids
	if len(keys) > 0 {
		if err := m.table.MintIDs(ctx, m.dataset, keys, ids); err != nil {
			return fmt.Errorf("ingest %s: mint gbifIDs: %w", m.dataset, err)
		}
	}
	next := 0 // into idx and ids
	for j := range c.raw {
		m.n++
		c.keep[j] = false
		if next == len(idx) || idx[next] != j {
			c.problem(&m.budget, func() string { return m.where(c.raw[j]) + ": " + occurrence.ErrNoOccurrenceKey.Error() })
			continue
		}
		id := ids[next]
		next++
		if id < 1 || id > occurrence.MaxID {
			return fmt.Errorf("ingest %s: the table minted gbifID %d for %q, outside 1..2^53-1", m.dataset, id, c.keys[j])
		}
		if !m.seen.add(id) {
			c.problem(&m.budget, func() string {
				return fmt.Sprintf("%s: occurrence key %q repeats an earlier record of this source (gbifID %d)", m.where(c.raw[j]), c.keys[j], id)
			})
			continue
		}
		c.recs[j].SetInt(gbifIDCol, id)
		c.keep[j] = true
	}
	return nil
}

// where locates a record for a problem message.
func (m *minter) where(raw occurrence.RawRecord) string {
	if raw.Source != "" {
		return raw.Source
	}
	return fmt.Sprintf("record %d", m.n)
}

// idSet is a set of gbifIDs, a bitmap in pages of 65,536 ids: a dataset's
// ids are mostly runs of the table's counter, so that a page of 8 KiB
// holds thousands of them and a load of tens of millions of records needs
// a few MB to tell a repeated id.
type idSet map[int64]*[1024]uint64

// add adds id and reports whether it was new.
func (s idSet) add(id int64) bool {
	p := s[id>>16]
	if p == nil {
		p = new([1024]uint64)
		s[id>>16] = p
	}
	w, bit := (id>>6)&1023, uint64(1)<<(id&63)
	if p[w]&bit != 0 {
		return false
	}
	p[w] |= bit
	return true
}
