package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc"
)

var (
	colGBIFID  = occurrence.ColumnIndex(occurrence.ColGBIFID)
	colCountry = occurrence.ColumnIndex(occurrence.ColCountryCode)
)

// DatasetWriter writes a new generation of one dataset with batched puts,
// one batch in flight while the next fills (its failure is returned by the
// next Append or by Commit). Nothing it writes is visible until Commit
// flips the dataset's generation (one atomic row write); Abort, a failure
// or a crash leave the previous generation in place, and the next writer
// deletes the orphaned rows.
type DatasetWriter struct {
	s      *Store
	info   occurrence.DatasetInfo
	gen    uint64
	dsHash uint32
	muts   []*hrpc.Mutation
	// sent is the batch being written, done its result (nil: none);
	// spare an empty batch's slice for the next records.
	sent      []*hrpc.Mutation
	done      chan error
	spare     []*hrpc.Mutation
	counts    []int64
	countries map[string]bool
	records   int64
	eml       []byte
	finished  bool
	scratch   []byte // encodes a record, which is then copied at its size
}

// BeginDataset starts replacing (or adding) the dataset info.Key; the
// writer is a *DatasetWriter.
func (s *Store) BeginDataset(ctx context.Context, info occurrence.DatasetInfo) (occurrence.DatasetWriter, error) {
	if info.Key == "" {
		return nil, errors.New("begin dataset: empty dataset key")
	}
	st, err := s.readState(ctx, info.Key)
	if err != nil {
		return nil, fmt.Errorf("begin dataset %s: %w", info.Key, err)
	}
	if st == nil {
		st = &datasetState{}
	}
	gen := uint64(time.Now().UnixNano())
	st.Pending = append(st.Pending, genMark{Gen: gen, At: time.Now().UTC()})
	if err := s.writeState(ctx, info.Key, st); err != nil {
		return nil, fmt.Errorf("begin dataset %s: %w", info.Key, err)
	}
	return &DatasetWriter{s: s, info: info, gen: gen, dsHash: datasetHash(info.Key),
		counts: make([]int64, s.buckets), countries: map[string]bool{}}, nil
}

// Append adds one interpreted record; it needs a gbifID, one the table
// minted (MintIDs). Every WriteBatch records it sends the batch to HBase
// under ctx, written while the next batch fills; a failure to write it is
// returned by the Append that sends the next one, or by Commit.
func (w *DatasetWriter) Append(ctx context.Context, r *occurrence.Record) error {
	if w.finished {
		return errWriterDone
	}
	id := r.Get(colGBIFID)
	if !id.Valid {
		return fmt.Errorf("dataset %s record %d: no gbifID", w.info.Key, w.Records()+1)
	}
	b := salt(id.I, w.s.buckets)
	cc := countryBytes(r.Get(colCountry))
	w.countries[cc] = true
	w.scratch = encodeRecord(w.scratch[:0], r)
	m := &hrpc.Mutation{Row: rowKey(make([]byte, 0, keyLen), b, cc, w.dsHash, w.gen, id.I), Cells: []hrpc.Cell{
		{Family: famHeader, Value: encodeHeader(make([]byte, 0, 1+headerLen), r)},
		{Family: famRecord, Value: bytes.Clone(w.scratch)}}}
	w.muts = append(w.muts, m)
	w.counts[b]++
	if len(w.muts) >= w.s.cfg.WriteBatch {
		return w.flush(ctx)
	}
	return nil
}

// flush sends the filled batch once the one before it is written, and
// returns that one's failure.
func (w *DatasetWriter) flush(ctx context.Context) error {
	if err := w.wait(); err != nil || len(w.muts) == 0 {
		return err
	}
	sent, done := w.muts, make(chan error, 1)
	go func() { done <- w.s.c.Apply(ctx, w.s.cfg.Table, sent) }()
	w.sent, w.done = sent, done
	w.muts, w.spare = w.spare, nil // nil: the next records allocate one
	return nil
}

// wait waits for the batch in flight, if any, and returns its failure.
// A written batch's slice is kept for the batch after the next.
func (w *DatasetWriter) wait() error {
	if w.done == nil {
		return nil
	}
	err := <-w.done
	sent := w.sent
	w.done, w.sent = nil, nil
	if err != nil {
		return fmt.Errorf("dataset %s: write %d records: %w", w.info.Key, len(sent), err)
	}
	w.records += int64(len(sent))
	clear(sent)
	w.spare = sent[:0]
	return nil
}

var errWriterDone = errors.New("dataset writer already finished")

// SetEML keeps the dataset's EML document (stored at Commit).
func (w *DatasetWriter) SetEML(ctx context.Context, r io.Reader) error {
	b, err := io.ReadAll(zipsafe.Cap(r, occurrence.MaxEMLBytes, "EML of dataset "+w.info.Key, "EML document"))
	if err != nil {
		return fmt.Errorf("dataset %s: %w", w.info.Key, err)
	}
	w.eml = b
	return nil
}

// Records returns the number of records appended.
func (w *DatasetWriter) Records() int64 {
	return w.records + int64(len(w.sent)) + int64(len(w.muts))
}

// Commit writes what is buffered, then makes the new generation the
// dataset's current one and returns the new snapshot's id.
func (w *DatasetWriter) Commit(ctx context.Context, stats occurrence.LoadStats) (string, error) {
	if w.finished {
		return "", errWriterDone
	}
	err := w.flush(ctx)
	if err == nil {
		err = w.wait()
	}
	if err != nil {
		w.Abort(ctx)
		return "", err
	}
	s := w.s
	st, err := s.readState(ctx, w.info.Key)
	if err != nil {
		w.Abort(ctx)
		return "", fmt.Errorf("commit dataset %s: %w", w.info.Key, err)
	}
	if st == nil {
		st = &datasetState{}
	}
	// The generation being replaced may hold ids the table did not mint:
	// its records' ids are minted now and its old ids become aliases,
	// before the new generation (with the minted ids) becomes current.
	if err := s.migrateLegacyIDs(ctx, w.info.Key, st); err != nil {
		w.Abort(ctx)
		return "", fmt.Errorf("commit dataset %s: %w", w.info.Key, err)
	}
	now := time.Now().UTC()
	if st.Gen != 0 {
		st.Retired = append(st.Retired, genMark{Gen: st.Gen, At: now, Countries: st.Countries})
	}
	st.Pending = dropGen(st.Pending, w.gen)
	info := w.info
	info.Records, info.BrokenRows, info.Terms, info.Ingested, info.HasEML = w.records, stats.BrokenRows, stats.Terms, now, w.eml != nil
	st.Info, st.Gen, st.Counts, st.Countries, st.MintedIDs = info, w.gen, w.counts, w.countryList(), true
	st.Header = headerVersion
	var extra []hrpc.Cell
	if w.eml != nil {
		extra = append(extra, hrpc.Cell{Family: famMeta, Qualifier: qualEML, Value: w.eml})
	}
	if err := s.writeState(ctx, w.info.Key, st, extra...); err != nil {
		w.Abort(ctx)
		return "", fmt.Errorf("commit dataset %s: %w", w.info.Key, err)
	}
	w.finished = true
	s.collect(ctx, w.info.Key, st)
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return "", err
	}
	return snap.ID, nil
}

// Abort discards what was written; the table keeps the previous generation.
// The rows are deleted under ctx (at most abortTimeout): when ctx is done, as
// after Ctrl-C, or the deletion fails, the generation stays pending and the
// next writer of the dataset collects it (collect).
func (w *DatasetWriter) Abort(ctx context.Context) {
	if w.finished {
		return
	}
	w.finished = true
	_ = w.wait() // the batch in flight lands before its generation goes
	ctx, cancel := context.WithTimeout(ctx, abortTimeout)
	defer cancel()
	s := w.s
	if err := s.deleteGeneration(ctx, w.dsHash, genMark{Gen: w.gen, Countries: w.countryList()}); err != nil {
		s.log.Warn("hbase: abort dataset: rows left for the next writer", "dataset", w.info.Key, "err", err)
		return
	}
	if st, err := s.readState(ctx, w.info.Key); err == nil && st != nil {
		st.Pending = dropGen(st.Pending, w.gen)
		_ = s.writeState(ctx, w.info.Key, st)
	}
}

// abortTimeout bounds the deletion of an aborted generation's rows.
const abortTimeout = time.Minute

func (w *DatasetWriter) countryList() []string {
	out := make([]string, 0, len(w.countries))
	for cc := range w.countries {
		out = append(out, cc)
	}
	sort.Strings(out)
	return out
}

func dropGen(marks []genMark, gen uint64) []genMark {
	out := marks[:0]
	for _, m := range marks {
		if m.Gen != gen {
			out = append(out, m)
		}
	}
	return out
}

// collect deletes the rows of the dataset's generations that no snapshot
// needs any more: replaced ones older than KeepFor that no pin holds
// (pin.go), uncommitted ones older than AbandonAfter. st is the state the
// caller just wrote. Failures are logged and retried by the next writer.
// It returns the generations deleted and those kept for pins.
func (s *Store) collect(ctx context.Context, key string, st *datasetState) (deletedN, keptN int) {
	now := time.Now()
	h := datasetHash(key)
	var gone []genMark
	var pinned map[string]bool
	for _, m := range st.Retired {
		if now.Sub(m.At) < s.cfg.KeepFor {
			continue
		}
		if pinned == nil {
			var err error
			if pinned, err = s.pinnedGens(ctx); err != nil {
				s.log.Warn("hbase: read pins: old generations kept", "dataset", key, "err", err)
				return 0, 0
			}
		}
		if pinned[genID(h, m.Gen)] {
			keptN++
			continue
		}
		gone = append(gone, m)
	}
	for _, m := range st.Pending {
		if now.Sub(m.At) >= s.cfg.AbandonAfter {
			gone = append(gone, genMark{Gen: m.Gen}) // countries unknown
		}
	}
	if len(gone) == 0 {
		return 0, keptN
	}
	var deleted []uint64
	for _, g := range gone {
		if err := s.deleteGeneration(ctx, h, g); err != nil {
			s.log.Warn("hbase: delete old generation", "dataset", key, "gen", g.Gen, "err", err)
			continue
		}
		deleted = append(deleted, g.Gen)
	}
	// Re-read: another writer may have changed the state meanwhile.
	st, err := s.readState(ctx, key)
	if err != nil || st == nil {
		return len(deleted), keptN
	}
	for _, g := range deleted {
		st.Retired = dropGen(st.Retired, g)
		st.Pending = dropGen(st.Pending, g)
	}
	if err := s.writeState(ctx, key, st); err != nil {
		s.log.Warn("hbase: record deleted generations", "dataset", key, "err", err)
	}
	return len(deleted), keptN
}

// deleteGeneration deletes every row of one dataset generation: one key
// range per bucket and country, keys only. Without the countries (a crashed
// ingest) it reads the keys of whole buckets.
func (s *Store) deleteGeneration(ctx context.Context, dsHash uint32, g genMark) error {
	id := genID(dsHash, g.Gen)
	for b := 0; b < s.buckets; b++ {
		var ranges [][2][]byte
		if g.Countries != nil {
			for _, cc := range g.Countries {
				p := genPrefix(byte(b), cc, dsHash, g.Gen)
				ranges = append(ranges, [2][]byte{p, prefixEnd(p)})
			}
		} else {
			ranges = append(ranges, [2][]byte{{byte(b)}, {byte(b + 1)}})
		}
		for _, r := range ranges {
			if err := s.deleteKeys(ctx, r[0], r[1], id); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteKeys deletes the rows in [start, stop) of generation id.
func (s *Store) deleteKeys(ctx context.Context, start, stop []byte, id string) error {
	opts := hrpc.ScanOptions{Start: start, Stop: stop, Columns: []hrpc.Column{{Family: famHeader}},
		Filter: hrpc.FilterList{Filters: []hrpc.Filter{hrpc.FirstKeyOnlyFilter{}, hrpc.KeyOnlyFilter{}}}}
	var muts []*hrpc.Mutation
	_, err := s.c.Scan(ctx, s.cfg.Table, opts, func(rows []hrpc.Row) error {
		for _, r := range rows {
			if len(r.Key) == keyLen && string(r.Key[genOff:genEnd]) == id {
				muts = append(muts, &hrpc.Mutation{Row: r.Key, Delete: true})
			}
		}
		if len(muts) >= s.cfg.WriteBatch {
			err := s.c.Apply(ctx, s.cfg.Table, muts)
			muts = muts[:0]
			return err
		}
		return nil
	})
	if err == nil && len(muts) > 0 {
		err = s.c.Apply(ctx, s.cfg.Table, muts)
	}
	return err
}
