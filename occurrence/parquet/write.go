package parquet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/gofrs/flock"

	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// DatasetWriter writes a new generation of one dataset. Nothing it writes is
// visible until Commit; Abort (or a crash) leaves the table as it was.
type DatasetWriter struct {
	partWriter
	info occurrence.DatasetInfo
	gen  string
	// replaces is the Ingested time of the version BeginDataset was
	// given (CommitDatasets checks it is still the table's).
	replaces time.Time
	prepared bool // Prepare ran: Append is closed
	marker   *flock.Flock
	builder  *occurrence.Builder

	window  []windowBatch // row groups waiting to be clustered
	pending int64         // estimated bytes of the window and the builder (not of the window being written)
	// flushing, when not nil, delivers the outcome of the window being
	// written on its own goroutine (startFlush) while the next one fills.
	flushing chan flushed
	failed   error // the error of a window's writing: every later call returns it
	done     bool
}

// flushed is what writing a window on its own goroutine gives back: its
// error, and the columns it dropped, still retained, for the builder to
// reuse on the appending goroutine (occurrence.Builder.Recycle runs there).
type flushed struct {
	err      error
	recycled []recycledColumn
}

type recycledColumn struct {
	col int
	arr arrow.Array
}

// partWriter writes the Parquet files of one directory (a dataset
// generation or a segment) row group by row group, with the statistics the
// manifest keeps.
type partWriter struct {
	s       *Store
	dir     string // absolute
	rel     string // relative to the table directory
	files   []fileEntry
	curPath string
	fw      *columnFile
	curRGs  []rowGroupEntry
	records int64
	// gather holds the buffers each column of a row group is gathered
	// into before it is written (see gatherInto).
	gather gatherBufs
	// datasets maps, in a segment, each dataset key to its index: its row
	// groups record their rows per dataset (segment.go).
	datasets map[string]int
	// fileRowGroups is the row groups per file (0: Config.FileRowGroups).
	fileRowGroups int
	// pieceRows is the rows of a payload column gathered at a time (0:
	// the constant pieceRows; tests set a smaller multiple of 1,024).
	pieceRows int
}

// BeginDataset starts replacing (or adding) the dataset info.Key; the
// writer is a *DatasetWriter.
func (s *Store) BeginDataset(ctx context.Context, info occurrence.DatasetInfo) (occurrence.DatasetWriter, error) {
	if info.Key == "" {
		return nil, errors.New("begin dataset: empty dataset key")
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	gen := time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(rnd[:])
	dir := filepath.Join(s.dir, generationDir(info.Key, gen))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("begin dataset %s: %w", info.Key, err)
	}
	marker, err := markWriting(dir)
	if err != nil {
		return nil, err
	}
	return &DatasetWriter{partWriter: partWriter{s: s, dir: dir, rel: generationDir(info.Key, gen)},
		info: info, gen: gen, replaces: info.Ingested, marker: marker, builder: occurrence.NewBuilder()}, nil
}

// markWriting creates dir's writing marker and holds a file lock on it until
// unmarkWriting: cleanup leaves a directory alone while its writer lives
// (writerAlive) and removes it once the writer is gone without publishing.
func markWriting(dir string) (*flock.Flock, error) {
	marker := flock.New(filepath.Join(dir, writingMarker),
		flock.SetFlag(os.O_CREATE|os.O_RDWR|os.O_TRUNC), flock.SetPermissions(0o644))
	if err := marker.Lock(); err != nil {
		return nil, err
	}
	return marker, nil
}

// unmarkWriting removes dir's marker, then releases its lock (in that
// order: an unlocked marker would tell cleanup the writer is gone).
func unmarkWriting(dir string, marker *flock.Flock) {
	os.Remove(filepath.Join(dir, writingMarker))
	marker.Unlock()
}

// Append adds one interpreted record, whose gbifID the table minted
// (MintIDs). It writes to local files only: ctx is checked when a row
// group is cut.
func (w *DatasetWriter) Append(ctx context.Context, r *occurrence.Record) error {
	if w.done || w.prepared {
		return errWriterDone
	}
	if w.failed != nil {
		return w.failed
	}
	w.pending += w.builder.Append(r)
	if w.builder.Len() >= w.s.cfg.RowGroupRows || w.pending >= w.s.cfg.WindowBytes {
		if err := ctx.Err(); err != nil {
			return err
		}
		return w.cut()
	}
	return nil
}

var errWriterDone = errors.New("dataset writer already finished")

// cut moves the builder's records into the clustering window and, once the
// window is full, hands it to a goroutine of its own to be written.
func (w *DatasetWriter) cut() error {
	w.takeBatch()
	if len(w.window) >= w.s.cfg.ClusterRowGroups || w.pending >= w.s.cfg.WindowBytes {
		return w.startFlush()
	}
	return nil
}

// takeBatch moves the builder's records, if any, into the window.
func (w *DatasetWriter) takeBatch() {
	if w.builder.Len() > 0 {
		w.window = append(w.window, newWindowBatch(w.builder.NewBatch()))
	}
}

// startFlush writes the window on a goroutine of its own, once the window
// before it is written, so that records keep being interpreted and
// appended while it is sorted, encoded and compressed (writing a window
// was a third of an ingest's CPU, and the rest of the pipeline stood still
// meanwhile). An ingest so holds up to two windows: one filling, one being
// written. The partWriter belongs to that goroutine until waitFlush.
func (w *DatasetWriter) startFlush() error {
	if err := w.waitFlush(); err != nil {
		return err
	}
	if len(w.window) == 0 {
		return nil
	}
	window := w.window
	w.window, w.pending = nil, 0
	done := make(chan flushed, 1)
	w.flushing = done
	go func() {
		var out flushed
		defer func() {
			// A panic here would end the process (a server with it): it
			// reaches the caller as the window's error instead.
			if r := recover(); r != nil {
				out.err = fmt.Errorf("write a window of dataset %s: panic: %v\n%s", w.info.Key, r, debug.Stack())
			}
			done <- out
		}()
		defer releaseBatches(window)
		out.err = w.writeWindow(window, clusterColumns, w.s.cfg.RowGroupRows, func(c int, a arrow.Array) {
			a.Retain()
			out.recycled = append(out.recycled, recycledColumn{c, a})
		})
	}()
	return nil
}

// waitFlush waits for the window being written, if any, gives the builder
// the buffers it dropped and returns its error, which stays the writer's.
func (w *DatasetWriter) waitFlush() error {
	if w.flushing == nil {
		return w.failed
	}
	out := <-w.flushing
	w.flushing = nil
	for _, r := range out.recycled {
		if out.err == nil {
			w.builder.Recycle(r.col, r.arr)
		}
		r.arr.Release()
	}
	if out.err != nil {
		w.failed = out.err
	}
	return w.failed
}

// writeWindow sorts window's records by the columns keys and writes them
// as row groups of rgRows. recycle, when not nil, takes each column of the
// window once its last row group is written.
func (w *partWriter) writeWindow(window []windowBatch, keys []string, rgRows int, recycle func(int, arrow.Array)) error {
	refs := clusterOrder(window, keys)
	for len(refs) > 0 {
		n := min(len(refs), rgRows)
		if err := w.writeRowGroup(window, refs[:n], n == len(refs), recycle); err != nil {
			return err
		}
		refs = refs[n:]
	}
	return nil
}

// SetEML stores the dataset's EML document alongside its data.
func (w *DatasetWriter) SetEML(ctx context.Context, r io.Reader) error {
	if w.done {
		return errWriterDone
	}
	f, err := os.Create(filepath.Join(w.dir, emlName))
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, zipsafe.Cap(r, occurrence.MaxEMLBytes, "EML of dataset "+w.info.Key, "EML document")); err != nil {
		f.Close()
		return fmt.Errorf("store EML of %s: %w", w.info.Key, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	w.info.HasEML = true
	return f.Close()
}

// writerProps are the table's Parquet settings; the text columns plain
// are written without a dictionary (see plainTextColumns).
func writerProps(pageBytes int, plain []string) *parquet.WriterProperties {
	props := bloomProps()
	for _, name := range plain {
		props = append(props, parquet.WithDictionaryFor(name, false))
	}
	return parquet.NewWriterProperties(append(props,
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDictionaryDefault(true),
		parquet.WithDataPageSize(int64(pageBytes)),
		// A dictionary is decompressed whole before any row of its column
		// chunk is read: high-cardinality columns (identifiers, localities,
		// verbatim documents) fall back to PLAIN pages early so that reading a
		// few rows does not cost their whole dictionary.
		parquet.WithDictionaryPageSizeLimit(dictPageLimit),
		parquet.WithMaxRowGroupLength(1<<30),
		// The manifest keeps the statistics pruning needs; Parquet's own per
		// column chunk would only make every footer larger to parse.
		parquet.WithStats(false),
		parquet.WithPageIndexEnabled(true),
		parquet.WithCreatedBy("downloader"),
	)...)
}

// writeRowGroup writes the rows refs of window as one row group, a column
// at a time: besides the window only one gathered column is in memory, not
// a copy of the whole row group, and when last is set (the window's last
// row group) each column of the window is dropped once gathered, handed to
// recycle first when it is not nil. The large payload columns, which keep
// no statistics (statsColumn), are gathered and written pieceRows rows at
// a time. The bytes written are those of pqarrow.FileWriter.Write of the
// gathered batch.
func (w *partWriter) writeRowGroup(window []windowBatch, refs []rowRef, last bool, recycle func(int, arrow.Array)) error {
	if w.fw == nil {
		if err := w.openFile(plainTextColumns(window, w.s.cfg.RowGroupRows, !w.s.cfg.dictionaryFallback)); err != nil {
			return err
		}
	}
	if err := w.fw.newRowGroup(); err != nil {
		return fmt.Errorf("write %s: %w", w.curPath, err)
	}
	cols := occurrence.Columns()
	stats := make(map[string]json.RawMessage, len(cols))
	var perDataset json.RawMessage
	for c, col := range cols {
		err := w.fw.nextColumn()
		if err == nil {
			if statsColumn(col) {
				perDataset, err = w.writeWhole(window, col.Name, c, refs, stats, perDataset)
			} else {
				err = w.writePieces(window, c, refs)
			}
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", w.curPath, err)
		}
		if last {
			for i := range window {
				window[i].release(c, recycle)
			}
		}
	}
	data, err := json.Marshal(stats)
	if err != nil {
		return fmt.Errorf("statistics of %s: %w", w.curPath, err)
	}
	rows := int64(len(refs))
	w.curRGs = append(w.curRGs, rowGroupEntry{Rows: rows, Stats: data, Datasets: perDataset})
	w.records += rows
	if n := w.fileRowGroups; len(w.curRGs) >= n && n > 0 || n == 0 && len(w.curRGs) >= w.s.cfg.FileRowGroups {
		return w.closeFile()
	}
	return nil
}

// pieceRows is how many rows of a payload column are gathered and written
// at a time: whole write batches of the column writer (1,024 values by
// default), so that its pages are those of one call with the whole column.
const pieceRows = 2048

// writeWhole gathers column c (name) of refs and writes it as the current
// column chunk, adding its statistics to stats; for the datasetKey column
// of a segment it returns the row group's rows per dataset, else
// perDataset.
func (w *partWriter) writeWhole(window []windowBatch, name string, c int, refs []rowRef, stats map[string]json.RawMessage, perDataset json.RawMessage) (json.RawMessage, error) {
	a := gatherInto(&w.gather, window, c, refs)
	defer a.Release()
	if err := w.fw.write(a); err != nil {
		return nil, err
	}
	addColumnStats(stats, name, a)
	if w.datasets != nil && name == occurrence.ColDatasetKey {
		return w.countDatasets(a)
	}
	return perDataset, nil
}

// writePieces writes column c of refs as the current column chunk,
// gathered pieceRows rows at a time into the same buffers.
func (w *partWriter) writePieces(window []windowBatch, c int, refs []rowRef) error {
	piece := w.pieceRows
	if piece <= 0 {
		piece = pieceRows
	}
	for len(refs) > 0 {
		n := min(len(refs), piece)
		a := gatherInto(&w.gather, window, c, refs[:n])
		err := w.fw.write(a)
		a.Release()
		if err != nil {
			return err
		}
		refs = refs[n:]
	}
	return nil
}

// countDatasets returns a segment row group's rows per dataset index from
// its datasetKey column.
func (w *partWriter) countDatasets(a arrow.Array) (json.RawMessage, error) {
	keys, ok := a.(*array.String)
	if !ok {
		return nil, fmt.Errorf("datasetKey column is %s", a.DataType())
	}
	rows := map[int]int64{}
	for i := 0; i < keys.Len(); i++ {
		idx, ok := w.datasets[keys.Value(i)]
		if keys.IsNull(i) || !ok {
			return nil, fmt.Errorf("row %d: dataset %q is not one of the segment's", i, keys.Value(i))
		}
		rows[idx]++
	}
	return encodeDatasetRows(rows), nil
}

// plainTextColumns returns the text columns a file opened with window
// writes without a dictionary: those null in every row of the window, and
// those whose distinct values in the window's first rows (a row group's
// worth) take more than a dictionary page holds, which the dictionary
// encoder would give up on within each row group anyway.
//
// pqarrow hands a dictionary encoder a slice of every row's value (24
// bytes a row, pointers the garbage collector scans: for the ~150 columns
// a dataset leaves empty alone, a quarter of all an ingest allocated),
// where the plain encoder takes the Arrow buffers as they are. A column
// mostly keeps its kind through a dataset; one that fills later in the
// file, or repeats more, is written PLAIN, as high-cardinality columns
// already are, which every reader reads. byCardinality false leaves the
// second rule out (Config.dictionaryFallback).
func plainTextColumns(window []windowBatch, rows int, byCardinality bool) []string {
	var out []string
	src := make([]arrow.Array, len(window))
	for c, col := range occurrence.Columns() {
		if col.Kind != occurrence.KindString {
			continue
		}
		known := true
		for i := range window {
			src[i] = window[i].cols[c]
			known = known && src[i] != nil // nil: written and dropped
		}
		if known && (allNull(src) || byCardinality && !fitsDictionary(src, rows)) {
			out = append(out, col.Name)
		}
	}
	return out
}

// fitsDictionary reports whether the distinct values of the first rows of
// src fit a dictionary page (dictPageLimit, counted as the encoder counts:
// each value's bytes and a 4-byte length).
func fitsDictionary(src []arrow.Array, rows int) bool {
	seen := map[string]struct{}{}
	size := 0
	for _, a := range src {
		s := a.(*array.String)
		for i := 0; i < s.Len() && rows > 0; i++ {
			rows--
			if s.IsNull(i) {
				continue
			}
			v := s.Value(i)
			if _, ok := seen[v]; ok {
				continue
			}
			seen[v] = struct{}{}
			if size += len(v) + 4; size > dictPageLimit {
				return false
			}
		}
	}
	return true
}

func (w *partWriter) openFile(plain []string) error {
	name := fmt.Sprintf("part-%05d.parquet", len(w.files))
	f, err := os.Create(filepath.Join(w.dir, name))
	if err != nil {
		return err
	}
	fw, err := newColumnFile(syncFile{f}, writerProps(w.s.cfg.DataPageBytes, plain))
	if err != nil {
		f.Close()
		return err
	}
	w.fw = fw
	w.curPath = filepath.Join(w.rel, name)
	return nil
}

func (w *partWriter) closeFile() error {
	if w.fw == nil {
		return nil
	}
	// close writes the footer and closes the file, which syncs it first
	// (syncFile).
	if err := w.fw.close(); err != nil {
		return fmt.Errorf("close %s: %w", w.curPath, err)
	}
	st, err := os.Stat(filepath.Join(w.s.dir, w.curPath))
	if err != nil {
		return err
	}
	var rows int64
	for _, g := range w.curRGs {
		rows += g.Rows
	}
	w.files = append(w.files, fileEntry{Path: w.curPath, Rows: rows, Bytes: st.Size(), RowGroups: w.curRGs})
	w.fw, w.curRGs = nil, nil
	return nil
}

// Commit publishes the new generation as the dataset's partition in a new
// snapshot and returns that snapshot's id.
func (w *DatasetWriter) Commit(ctx context.Context, stats occurrence.LoadStats) (string, error) {
	if err := w.Prepare(ctx, stats); err != nil {
		return "", err
	}
	var snap int64
	_, err := w.s.update(ctx, func(m *manifest) error {
		m.Datasets[w.info.Key] = w.entry()
		snap = m.Snapshot + 1
		return nil
	})
	if err != nil {
		w.Abort(ctx)
		return "", fmt.Errorf("commit dataset %s: %w", w.info.Key, err)
	}
	w.finish(false)
	return fmt.Sprint(snap), nil
}

// Prepare writes out what the writer still buffers and makes the new
// generation durable and its ids final, without publishing it: all of
// Commit but the publication. A caller writing many datasets for one
// CommitDatasets prepares each when its records are written, so that only
// one dataset's window is in memory at a time. A failure aborts the
// writer. Preparing again only updates the stats.
func (w *DatasetWriter) Prepare(ctx context.Context, stats occurrence.LoadStats) error {
	if w.done {
		return errWriterDone
	}
	if w.prepared {
		w.info.BrokenRows, w.info.Terms = stats.BrokenRows, stats.Terms
		return nil
	}
	w.takeBatch()
	if err := w.startFlush(); err != nil {
		w.Abort(ctx)
		return err
	}
	if err := w.waitFlush(); err != nil {
		w.Abort(ctx)
		return err
	}
	if err := w.closeFile(); err != nil {
		w.Abort(ctx)
		return err
	}
	if err := syncDir(w.dir); err != nil {
		w.Abort(ctx)
		return err
	}
	// The version being replaced may hold ids the table did not mint: its
	// records' ids are minted now and its old ids become aliases, before
	// the new version (with the minted ids) is published.
	if err := w.s.migrateLegacyIDs(ctx, w.info.Key); err != nil {
		w.Abort(ctx)
		return fmt.Errorf("commit dataset %s: %w", w.info.Key, err)
	}
	// The ids the records carry are durable before a snapshot shows them.
	if err := w.s.ids.sync(); err != nil {
		w.Abort(ctx)
		return fmt.Errorf("commit dataset %s: %w", w.info.Key, err)
	}
	w.info.Records, w.info.BrokenRows, w.info.Terms = w.records, stats.BrokenRows, stats.Terms
	w.prepared = true
	return nil
}

// entry is the manifest entry of the prepared generation.
func (w *DatasetWriter) entry() *datasetEntry {
	info := w.info
	info.Ingested = time.Now().UTC()
	return &datasetEntry{DatasetInfo: info, Generation: w.gen, Files: w.files, IDs: idsMinted}
}

// ErrDatasetChanged is returned by CommitDatasets when a dataset was
// loaded again, or deleted, after the version its writer replaces.
var ErrDatasetChanged = errors.New("dataset changed meanwhile")

// CommitDatasets publishes the new versions of several datasets in one
// snapshot: readers see all of them or none. Each writer (from this
// store's BeginDataset) replaces the version whose Ingested time its
// DatasetInfo gave BeginDataset; when the table holds another version of
// any of them (an ingest or a delete meanwhile) nothing is published, the
// writers are aborted and the error wraps ErrDatasetChanged.
func (s *Store) CommitDatasets(ctx context.Context, ws []occurrence.DatasetWriter, stats []occurrence.LoadStats) (string, error) {
	dws := make([]*DatasetWriter, len(ws))
	abortAll := func() {
		for _, w := range ws {
			w.Abort(ctx)
		}
	}
	for i, w := range ws {
		dw, ok := w.(*DatasetWriter)
		if !ok || dw.s != s || i >= len(stats) {
			abortAll()
			return "", errors.New("commit datasets: a writer of another table, or no stats for it")
		}
		dws[i] = dw
	}
	for i, w := range dws {
		if err := w.Prepare(ctx, stats[i]); err != nil {
			abortAll()
			return "", err
		}
	}
	var snap int64
	_, err := s.update(ctx, func(m *manifest) error {
		for _, w := range dws {
			cur := m.Datasets[w.info.Key]
			if cur == nil || !cur.Ingested.Equal(w.replaces) {
				return fmt.Errorf("commit dataset %s: %w", w.info.Key, ErrDatasetChanged)
			}
		}
		for _, w := range dws {
			m.Datasets[w.info.Key] = w.entry()
		}
		snap = m.Snapshot + 1
		return nil
	})
	if err != nil {
		abortAll()
		return "", err
	}
	for _, w := range dws {
		w.finish(false)
	}
	return fmt.Sprint(snap), nil
}

// Abort discards everything written; the table is unchanged. Its files are
// local: removing them needs no context.
func (w *DatasetWriter) Abort(context.Context) {
	if w.done {
		return
	}
	w.waitFlush()
	if w.fw != nil {
		w.fw.close()
	}
	w.finish(true)
}

func (w *DatasetWriter) finish(remove bool) {
	w.done = true
	w.waitFlush()
	releaseBatches(w.window)
	w.window, w.pending = nil, 0
	w.builder.Release()
	unmarkWriting(w.dir, w.marker)
	if remove {
		os.RemoveAll(w.dir)
	}
}

// syncFile makes Close durable: the data reaches the disk before the file is
// closed, so a published manifest never points at a torn file.
type syncFile struct{ *os.File }

func (f syncFile) Close() error {
	if err := f.File.Sync(); err != nil {
		f.File.Close()
		return err
	}
	return f.File.Close()
}

// dictPageLimit bounds a column chunk's dictionary page.
const dictPageLimit = 32 << 10
