package parquet

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// CopySource is a table CopyFrom reads: its scans and its catalog. A source
// that is also an occurrence.Pinner has the snapshot read pinned while the
// copy runs.
type CopySource interface {
	occurrence.Table
	occurrence.Catalog
}

// CopyFrom replaces the whole content of the store with a snapshot of src
// (an HBase table, as GBIF builds its download tables from its live store):
// every record of one source snapshot, sorted by the clustering columns
// into one segment, with the source's dataset descriptions (their record
// counts those of the rows copied) and EML documents. It publishes one new
// snapshot, whose id names opts.Source and the source snapshot (exports of
// the store record it), and retires the store's older snapshots as a
// rollover does (pins and retention apply). The store is then a read-only
// copy: exports read it instead of the source.
func (s *Store) CopyFrom(ctx context.Context, src CopySource, opts RolloverOptions) (RolloverReport, error) {
	start := time.Now()
	opts = opts.withDefaults(s.cfg)
	unlock, err := s.rolloverLock()
	if err != nil {
		return RolloverReport{}, err
	}
	defer unlock()
	m0, err := s.current()
	if err != nil {
		return RolloverReport{}, err
	}
	rep := RolloverReport{Before: snapshotID(m0)}
	rep.FilesBefore, rep.RowGroupsBefore, rep.BytesBefore, _ = m0.layout()

	snap, infos, both, release, err := sourceSnapshot(ctx, src, opts.PinTTL, s)
	if err != nil {
		return rep, err
	}
	defer release()
	rep.Source = opts.Source + "@" + snap.ID
	keys := make([]string, 0, len(infos))
	for k := range infos {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	seg, w, err := s.createSegment(keys, opts)
	if err != nil {
		return rep, err
	}
	seg.rows = map[string]int64{}
	spilled, err := seg.sortInto(ctx, w, func(add func(arrow.RecordBatch) error) error {
		_, err := occurrence.Scan(ctx, src, snap, occurrence.ScanRequest{}, occurrence.ScanOptions{Workers: opts.Workers},
			func(b arrow.RecordBatch) error {
				if err := countRows(b, seg.rows, infos); err != nil {
					return err
				}
				b.Retain()
				return add(b)
			})
		return err
	})
	rep.SpilledBytes = spilled
	if err == nil {
		err = seg.writeEMLs(ctx, func(key string) bool { return infos[key].HasEML }, func(key string) (io.ReadCloser, error) {
			return src.DatasetEML(ctx, key)
		})
	}
	if err != nil {
		seg.abort()
		return rep, fmt.Errorf("copy %s: %w", rep.Source, err)
	}
	var after *manifest
	c, err := s.update(ctx, func(m *manifest) error {
		m.Datasets = map[string]*datasetEntry{}
		for _, key := range keys {
			if seg.rows[key] == 0 && !both[key] {
				continue // added or deleted while the snapshot was taken
			}
			info := infos[key]
			info.Records = seg.rows[key]
			m.Datasets[key] = &datasetEntry{DatasetInfo: info, Segment: seg.gen, IDs: idsMinted}
		}
		m.Segments = []*segmentEntry{seg.entry()}
		m.Source = rep.Source
		after = m
		return nil
	})
	if err != nil {
		seg.abort()
		return rep, fmt.Errorf("copy %s: publish: %w", rep.Source, err)
	}
	seg.done()
	rep.addCleanup(c)
	rep.After = snapshotID(after)
	rep.FilesAfter, rep.RowGroupsAfter, rep.BytesAfter, rep.Records = after.layout()
	rep.DatasetsMerged, rep.RowsRewritten = len(keys), w.records
	if c, err = s.cleanupNow(ctx); err == nil {
		rep.addCleanup(c)
		rep.Pins = c.Pins
	}
	rep.Duration = time.Since(start)
	return rep, err
}

// sourceSnapshot takes a snapshot of src, pinned when src can pin, and the
// descriptions of the datasets it may hold: those listed before or after it
// was taken (a dataset deleted meanwhile keeps its earlier description),
// and which of them both lists hold (a dataset in only one without rows in
// the snapshot was added or deleted meanwhile: CopyFrom leaves it out).
func sourceSnapshot(ctx context.Context, src CopySource, ttl time.Duration, s *Store) (occurrence.Snapshot, map[string]occurrence.DatasetInfo, map[string]bool, func(), error) {
	before, err := src.Datasets(ctx)
	if err != nil {
		return occurrence.Snapshot{}, nil, nil, nil, err
	}
	var snap occurrence.Snapshot
	release := func() {}
	if p, ok := src.(interface {
		occurrence.Table
		occurrence.Pinner
	}); ok {
		snap, release, err = occurrence.PinSnapshot(ctx, p, "rollover copy to "+s.dir, ttl, s.logger)
	} else {
		snap, err = src.Snapshot(ctx)
	}
	if err != nil {
		return occurrence.Snapshot{}, nil, nil, nil, err
	}
	after, err := src.Datasets(ctx)
	if err != nil {
		release()
		return occurrence.Snapshot{}, nil, nil, nil, err
	}
	infos := map[string]occurrence.DatasetInfo{}
	seen := map[string]int{}
	for _, list := range [][]occurrence.DatasetInfo{before, after} {
		for _, info := range list {
			infos[info.Key] = info
			seen[info.Key]++
		}
	}
	both := map[string]bool{}
	for k, n := range seen {
		both[k] = n == 2
	}
	return snap, infos, both, release, nil
}

// countRows adds the batch's rows per dataset to rows, failing on a row of
// a dataset the catalog does not describe.
func countRows(b arrow.RecordBatch, rows map[string]int64, infos map[string]occurrence.DatasetInfo) error {
	keys, ok := b.Column(occurrence.ColumnIndex(occurrence.ColDatasetKey)).(*array.String)
	if !ok {
		return fmt.Errorf("datasetKey column is %s", b.Column(occurrence.ColumnIndex(occurrence.ColDatasetKey)).DataType())
	}
	for i := 0; i < keys.Len(); i++ {
		k := keys.Value(i)
		if _, ok := infos[k]; !ok || keys.IsNull(i) {
			return fmt.Errorf("a record of dataset %q, which the source's catalog does not list", k)
		}
		rows[k]++
	}
	return nil
}
