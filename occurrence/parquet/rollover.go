package parquet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/gofrs/flock"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Rollover compacts the table: the rows of small datasets (and of segments
// with dead rows or below a file's worth of rows) are merged into one new
// segment, sorted by the clustering columns across datasets (an external
// merge sort, sort.go, so memory stays at the ingest's window); row groups
// whose statistics lack a column get them; the result is published as one
// new snapshot, and cleanup retires the snapshots no pin and no retention
// rule keeps.
//
// Nothing a reader sees changes but the layout: the same records, gbifIDs,
// values and dataset descriptions. The rollover reads a snapshot it pins,
// writes a new segment directory marked as being written (a crash leaves
// it to the next writer's cleanup, as an ingest's generation), and
// publishes with the writer lock held only for the manifest swap, so
// ingests run alongside: a dataset loaded again or deleted while the
// rollover ran keeps its new state (its rows in the new segment are dead).
// One rollover runs at a time per table (ErrRolloverRunning).
//
// Datasets whose gbifIDs the table did not mint (a table written before it
// minted ids) are left where they are: their ids are migrated when they are
// next loaded, which reads their own partition.

// ErrRolloverRunning is returned when another rollover holds the table.
var ErrRolloverRunning = errors.New("a rollover of this table is already running")

// RolloverOptions tunes a rollover. Zero values take the defaults.
type RolloverOptions struct {
	// SmallRows: datasets with fewer records are merged into a segment
	// (default Config.RowGroupRows: a dataset that fills no row group).
	SmallRows int64
	// RowGroupRows are the rows per row group of a segment (default a
	// quarter of Config.RowGroupRows; its files hold as many rows as an
	// ingest's). A segment's row groups mix datasets, so each spans more
	// values of the columns its sort order puts last (years, lower taxon
	// ranks) than a dataset's own row groups do: smaller ones keep those
	// predicates pruning.
	RowGroupRows int
	// PinTTL is how long the rollover's pin on the snapshot it reads
	// outlives its last refresh (default one minute).
	PinTTL time.Duration
	// Source names the source table in a CopyFrom's snapshot ids.
	Source string
	// Workers scanning the source of a CopyFrom; 0 means GOMAXPROCS.
	Workers int
}

func (o RolloverOptions) withDefaults(cfg Config) RolloverOptions {
	if o.SmallRows <= 0 {
		o.SmallRows = int64(cfg.RowGroupRows)
	}
	if o.PinTTL <= 0 {
		o.PinTTL = time.Minute
	}
	if o.RowGroupRows <= 0 {
		o.RowGroupRows = max(cfg.RowGroupRows/4, 1)
	}
	return o
}

// segmentFileRowGroups is the row groups per segment file: as many rows as
// an ingest's file holds.
func (o RolloverOptions) segmentFileRowGroups(cfg Config) int {
	return max(cfg.FileRowGroups*cfg.RowGroupRows/o.RowGroupRows, 1)
}

// RolloverReport says what a rollover (or a CopyFrom) did, for the command
// line and for the record a scheduled run keeps.
type RolloverReport struct {
	// Before and After are the snapshot ids before and after (equal when
	// there was nothing to do).
	Before, After string
	Source        string `json:",omitempty"`
	// Files, RowGroups and Bytes of the data files each snapshot reads.
	FilesBefore, FilesAfter         int
	RowGroupsBefore, RowGroupsAfter int
	BytesBefore, BytesAfter         int64
	Records                         int64
	// DatasetsMerged is the number of datasets whose rows the new segment
	// holds; SegmentsRewritten the number of segments it replaces.
	DatasetsMerged    int
	SegmentsRewritten int
	// RowsRewritten are the rows written; DeadRows the rows of replaced or
	// deleted datasets left out of the rewritten segments.
	RowsRewritten int64
	DeadRows      int64
	// StatsRefreshed counts the row groups given statistics they lacked.
	StatsRefreshed int
	// SpilledBytes are the sort runs written to disk (0: sorted in memory).
	SpilledBytes int64
	// Retired are the snapshots whose files cleanup let go; RemovedDirs
	// and FreedBytes the directories and bytes it deleted.
	Retired     []int64
	RemovedDirs int
	FreedBytes  int64
	// Pins are the live pins on the table at the end (snapshots kept for
	// running downloads).
	Pins     []PinInfo
	Duration time.Duration
}

// Rollover compacts the table (see the comment above).
func (s *Store) Rollover(ctx context.Context, opts RolloverOptions) (RolloverReport, error) {
	start := time.Now()
	opts = opts.withDefaults(s.cfg)
	unlock, err := s.rolloverLock()
	if err != nil {
		return RolloverReport{}, err
	}
	defer unlock()
	m0, snap, unpin, err := s.pinCurrent(ctx, opts.PinTTL)
	if err != nil {
		return RolloverReport{}, err
	}
	pinned := true
	defer func() {
		if pinned {
			unpin()
		}
	}()
	rep := RolloverReport{Before: snap.ID, After: snap.ID}
	rep.FilesBefore, rep.RowGroupsBefore, rep.BytesBefore, rep.Records = m0.layout()
	plan := planRollover(m0, opts, s.cfg)
	seg, err := s.writeSegment(ctx, m0, snap, plan, opts, &rep)
	if err != nil {
		return rep, err
	}
	rolloverHook("written")
	refreshed, err := s.refreshStats(ctx, m0, snap, plan)
	if err != nil {
		seg.abort()
		return rep, err
	}
	if seg != nil || len(refreshed) > 0 {
		var after *manifest
		c, err := s.update(ctx, func(m *manifest) error {
			publishRollover(m0, m, plan, seg, refreshed)
			after = m
			return nil
		})
		if err != nil {
			seg.abort()
			return rep, fmt.Errorf("rollover: publish: %w", err)
		}
		seg.done()
		rep.addCleanup(c)
		rep.After = snapshotID(after)
		rep.FilesAfter, rep.RowGroupsAfter, rep.BytesAfter, _ = after.layout()
		rep.StatsRefreshed = len(refreshed)
	} else {
		rep.FilesAfter, rep.RowGroupsAfter, rep.BytesAfter = rep.FilesBefore, rep.RowGroupsBefore, rep.BytesBefore
	}
	// The snapshot read is no longer needed by the rollover: with its pin
	// gone, cleanup retires what nothing else keeps.
	unpin()
	pinned = false
	c, err := s.cleanupNow(ctx)
	if err != nil {
		return rep, err
	}
	rep.addCleanup(c)
	rep.Pins = c.Pins
	rep.Duration = time.Since(start)
	return rep, nil
}

func (r *RolloverReport) addCleanup(c cleanup) {
	r.Retired = append(r.Retired, c.Retired...)
	r.RemovedDirs += len(c.Removed)
	r.FreedBytes += c.FreedBytes
}

// rolloverLock takes the table's rollover lock (a file lock, across
// processes) without waiting.
func (s *Store) rolloverLock() (func(), error) {
	l := flock.New(filepath.Join(s.dir, rolloverLockName), flock.SetPermissions(0o644))
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("rollover lock: %w", err)
	}
	if !ok {
		return nil, ErrRolloverRunning
	}
	return func() { l.Unlock() }, nil
}

const rolloverLockName = ".rollover"

// rolloverHook is called at the stages of a rollover ("spilled": the first
// sort run is on disk; "written": the new segment is complete, not yet
// published): the crash tests stop a rollover there.
var rolloverHook = func(stage string) {}

// pinCurrent pins the current snapshot and returns its manifest; unpin
// stops refreshing and releases the pin.
func (s *Store) pinCurrent(ctx context.Context, ttl time.Duration) (*manifest, occurrence.Snapshot, func(), error) {
	for range 5 {
		m, err := s.current()
		if err != nil {
			return nil, occurrence.Snapshot{}, nil, err
		}
		snap := snapshotOf(m)
		pin, err := s.Pin(ctx, snap, "rollover", ttl)
		if errors.Is(err, occurrence.ErrSnapshotGone) {
			continue
		}
		if err != nil {
			return nil, occurrence.Snapshot{}, nil, err
		}
		stop := occurrence.KeepRefreshed(ctx, pin, ttl, s.logger.With("snapshot", snap.ID, "holder", "rollover"))
		return m, snap, func() {
			stop()
			if err := pin.Release(context.WithoutCancel(ctx)); err != nil {
				s.logger.Warn("release rollover pin", "err", err)
			}
		}, nil
	}
	return nil, occurrence.Snapshot{}, nil, fmt.Errorf("rollover: %w five times in a row", occurrence.ErrSnapshotGone)
}

// cleanupNow runs cleanup on the current snapshot.
func (s *Store) cleanupNow(ctx context.Context) (cleanup, error) {
	return s.locked(ctx, func(m *manifest) (cleanup, error) { return s.collect(m), nil })
}

// layout counts the data files, row groups, bytes and records a snapshot
// reads.
func (m *manifest) layout() (files, rowGroups int, bytes, records int64) {
	add := func(fs []fileEntry) {
		for _, f := range fs {
			files++
			rowGroups += len(f.RowGroups)
			bytes += f.Bytes
		}
	}
	for _, ds := range m.Datasets {
		add(ds.Files)
		records += ds.Records
	}
	for _, seg := range m.Segments {
		add(seg.Files)
	}
	return files, rowGroups, bytes, records
}

// rolloverPlan is what a rollover rewrites.
type rolloverPlan struct {
	// datasets are the keys whose rows go into the new segment, sorted.
	datasets []string
	// segments are the generations of the segments it replaces.
	segments map[string]bool
	deadRows int64
}

// planRollover picks the rows to rewrite: small datasets with their own
// files, and the segments that have dead rows or fewer rows than a file
// holds. A single segment without dead rows, or a single small dataset,
// is left alone: rewriting it alone would change nothing.
func planRollover(m *manifest, opts RolloverOptions, cfg Config) rolloverPlan {
	p := rolloverPlan{segments: map[string]bool{}}
	keys := map[string]bool{}
	for key, ds := range m.Datasets {
		if ds.Segment == "" && ds.IDs == idsMinted && ds.Records < opts.SmallRows && len(ds.Files) > 0 {
			keys[key] = true
		}
	}
	full := int64(cfg.FileRowGroups) * int64(cfg.RowGroupRows) // a file's worth
	var dirty int
	for _, seg := range m.Segments {
		live, dead := segmentRows(m, seg)
		if dead == 0 && live >= full {
			continue
		}
		p.segments[seg.Generation] = true
		p.deadRows += dead
		if dead > 0 {
			dirty++
		}
		for _, key := range seg.Datasets {
			if ds, ok := m.Datasets[key]; ok && ds.Segment == seg.Generation {
				keys[key] = true
			}
		}
	}
	if dirty == 0 && len(p.segments)+countStandalone(m, keys) < 2 {
		return rolloverPlan{}
	}
	for k := range keys {
		p.datasets = append(p.datasets, k)
	}
	sort.Strings(p.datasets)
	return p
}

func countStandalone(m *manifest, keys map[string]bool) int {
	n := 0
	for k := range keys {
		if m.Datasets[k].Segment == "" {
			n++
		}
	}
	return n
}

// segmentRows counts a segment's live and dead rows in snapshot m.
func segmentRows(m *manifest, seg *segmentEntry) (live, dead int64) {
	for _, f := range seg.Files {
		for _, g := range f.RowGroups {
			dr, err := g.datasetRows(len(seg.Datasets))
			if err != nil {
				dead += g.Rows // undecodable: rewrite it
				continue
			}
			for _, p := range dr {
				if ds, ok := m.Datasets[seg.Datasets[p[0]]]; ok && ds.Segment == seg.Generation {
					live += p[1]
				} else {
					dead += p[1]
				}
			}
		}
	}
	return live, dead
}

// newSegment is a segment being written.
type newSegment struct {
	s      *Store
	gen    string
	dir    string
	marker *flock.Flock
	files  []fileEntry
	keys   []string
	// rows counts each dataset's rows written (CopyFrom's record counts).
	rows     map[string]int64
	rgRows   int
	finished bool
}

// createSegment makes the directory of a new segment holding keys (sorted),
// marked as being written.
func (s *Store) createSegment(keys []string, opts RolloverOptions) (*newSegment, *partWriter, error) {
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, nil, err
	}
	gen := time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(rnd[:])
	rel := segmentDir(gen)
	dir := filepath.Join(s.dir, rel)
	if err := os.MkdirAll(filepath.Join(dir, segEMLDir), 0o755); err != nil {
		return nil, nil, fmt.Errorf("create segment: %w", err)
	}
	marker, err := markWriting(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("create segment: %w", err)
	}
	idx := make(map[string]int, len(keys))
	for i, k := range keys {
		idx[k] = i
	}
	seg := &newSegment{s: s, gen: gen, dir: dir, marker: marker, keys: keys, rgRows: opts.RowGroupRows}
	return seg, &partWriter{s: s, dir: dir, rel: rel, datasets: idx, fileRowGroups: opts.segmentFileRowGroups(s.cfg)}, nil
}

// abort removes an unpublished segment (nil-safe).
func (seg *newSegment) abort() {
	if seg == nil || seg.finished {
		return
	}
	seg.finished = true
	unmarkWriting(seg.dir, seg.marker)
	os.RemoveAll(seg.dir)
}

// done marks a published segment finished (nil-safe).
func (seg *newSegment) done() {
	if seg == nil || seg.finished {
		return
	}
	seg.finished = true
	unmarkWriting(seg.dir, seg.marker)
}

// entry is the segment's manifest entry.
func (seg *newSegment) entry() *segmentEntry {
	return &segmentEntry{Generation: seg.gen, Datasets: seg.keys, Files: seg.files}
}

// sortInto sorts every batch that feed produces into the segment's files:
// feed calls add with batches it owns.
func (seg *newSegment) sortInto(ctx context.Context, w *partWriter, feed func(add func(arrow.RecordBatch) error) error) (spilled int64, err error) {
	tmp := filepath.Join(seg.dir, "sort")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	cs := newClusterSorter(seg.s, tmp, w, seg.rgRows)
	defer cs.release()
	if err := feed(cs.add); err != nil {
		return cs.Spilled, err
	}
	if err := cs.finish(ctx); err != nil {
		return cs.Spilled, err
	}
	if err := w.closeFile(); err != nil {
		return cs.Spilled, err
	}
	seg.files = w.files
	return cs.Spilled, nil
}

// writeEMLs copies the EML documents of the segment's datasets that have
// one (open returns a dataset's document) and syncs the segment.
func (seg *newSegment) writeEMLs(ctx context.Context, hasEML func(key string) bool, open func(key string) (io.ReadCloser, error)) error {
	for i, key := range seg.keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !hasEML(key) {
			continue
		}
		if err := copyEML(filepath.Join(seg.s.dir, segmentEML(seg.gen, i)), func() (io.ReadCloser, error) { return open(key) }); err != nil {
			return fmt.Errorf("EML of dataset %s: %w", key, err)
		}
	}
	if err := syncDir(filepath.Join(seg.dir, segEMLDir)); err != nil {
		return err
	}
	return syncDir(seg.dir)
}

func copyEML(dst string, open func() (io.ReadCloser, error)) error {
	r, err := open()
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeSegment writes the plan's rows into a new segment; nil when the plan
// rewrites nothing.
func (s *Store) writeSegment(ctx context.Context, m0 *manifest, snap occurrence.Snapshot, plan rolloverPlan, opts RolloverOptions, rep *RolloverReport) (*newSegment, error) {
	if len(plan.datasets) == 0 {
		return nil, nil
	}
	seg, w, err := s.createSegment(plan.datasets, opts)
	if err != nil {
		return nil, err
	}
	in := map[string]bool{}
	for _, k := range plan.datasets {
		in[k] = true
	}
	var want int64
	var splits []occurrence.Split
	for _, sp := range snap.Splits {
		ref := sp.Ref.(splitRef)
		if in[ref.dataset] || ref.dataset == "" && plan.segments[segmentOf(ref.path)] {
			splits = append(splits, sp)
			want += sp.Rows
		}
	}
	spilled, err := seg.sortInto(ctx, w, func(add func(arrow.RecordBatch) error) error {
		for _, sp := range splits {
			_, err := s.ScanSplit(ctx, sp, occurrence.ScanRequest{}, func(b arrow.RecordBatch) error {
				b.Retain()
				return add(b)
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	rep.SpilledBytes += spilled
	if err == nil && w.records != want {
		err = fmt.Errorf("wrote %d rows, the snapshot holds %d", w.records, want)
	}
	if err == nil {
		err = seg.writeEMLs(ctx, func(key string) bool { return m0.Datasets[key].HasEML }, func(key string) (io.ReadCloser, error) {
			return s.emlOf(m0, key)
		})
	}
	if err != nil {
		seg.abort()
		return nil, fmt.Errorf("rollover: %w", err)
	}
	rep.DatasetsMerged = len(plan.datasets)
	rep.SegmentsRewritten = len(plan.segments)
	rep.RowsRewritten = w.records
	rep.DeadRows = plan.deadRows
	return seg, nil
}

// segmentOf returns the segment generation of a file path, or "".
func segmentOf(path string) string {
	dir := filepath.Dir(path)
	if filepath.Dir(dir) == filepath.Join(dataDir, segmentsDir) {
		return filepath.Base(dir)
	}
	return ""
}

// emlOf opens the EML document of dataset key as snapshot m has it.
func (s *Store) emlOf(m *manifest, key string) (io.ReadCloser, error) {
	ds := m.Datasets[key]
	if ds.Segment != "" {
		seg := m.segment(ds.Segment)
		if seg == nil || seg.index(key) < 0 {
			return nil, errNoSegmentEML
		}
		return os.Open(filepath.Join(s.dir, segmentEML(seg.Generation, seg.index(key))))
	}
	return os.Open(filepath.Join(s.dir, generationDir(key, ds.Generation), emlName))
}

// sameVersion reports whether two manifest entries are the same version of
// a dataset (not loaded again, not merged by another rollover).
func sameVersion(a, b *datasetEntry) bool {
	return a != nil && b != nil && a.Generation == b.Generation && a.Segment == b.Segment && a.Ingested.Equal(b.Ingested)
}

// publishRollover applies a rollover to m, the manifest current at its
// publication, which may have moved on from m0, the snapshot it read.
func publishRollover(m0, m *manifest, plan rolloverPlan, seg *newSegment, refreshed map[statsKey][]byte) {
	if seg != nil {
		for _, key := range plan.datasets {
			if e := m.Datasets[key]; sameVersion(m0.Datasets[key], e) {
				e.Segment, e.Generation, e.Files = seg.gen, "", nil
			}
		}
		kept := m.Segments[:0]
		for _, sg := range m.Segments {
			if !plan.segments[sg.Generation] {
				kept = append(kept, sg)
			}
		}
		m.Segments = append(kept, seg.entry())
	}
	for k, stats := range refreshed {
		if rg := k.find(m0, m); rg != nil {
			rg.Stats = stats
		}
	}
}
