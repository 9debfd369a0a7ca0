package parquet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// ErrCorruptManifest marks a table manifest that cannot be decoded.
var ErrCorruptManifest = errors.New("corrupt table manifest")

var _ occurrence.Backend = (*Store)(nil)

// Config tunes a Store. Zero values take the defaults.
type Config struct {
	// RowGroupRows is the number of rows per Parquet row group (= split).
	RowGroupRows int
	// WindowBytes caps the records an ingest holds in memory for clustering
	// (an estimate of their Arrow size); a window is written early when its
	// records are large (long verbatim documents), so memory stays bounded
	// whatever the records look like.
	WindowBytes int64
	// FileRowGroups is the number of row groups per Parquet file.
	FileRowGroups int
	// ClusterRowGroups is how many row groups of records are sorted together
	// by the clustering columns before they are written (see cluster.go):
	// more prunes better and costs memory while ingesting.
	ClusterRowGroups int
	// DataPageBytes is the target size of a Parquet data page: smaller pages
	// let a scan skip closer around its matches.
	DataPageBytes int
	// KeepSnapshots is how many of the newest snapshots, the current one
	// included, stay readable whatever their age (retained for
	// reproducibility; default 5). Older ones are retired by the next
	// cleanup once KeepFor has passed and no pin holds them (gc.go,
	// pin.go).
	KeepSnapshots int
	// KeepFor is how long a snapshot stays readable after the next one
	// was published, for scans that do not pin (counts): default an hour;
	// a negative value retires at once what no pin and no KeepSnapshots
	// keeps.
	KeepFor time.Duration

	// dictionaryFallback, for tests of the reader, keeps high-cardinality
	// text dictionary-encoded (plainTextColumns' second rule off), so that
	// column chunks fall back to PLAIN mid-way, as other writers' files
	// (and this table's before) have.
	dictionaryFallback bool
}

func (c Config) withDefaults() Config {
	if c.RowGroupRows <= 0 {
		c.RowGroupRows = 64 * 1024
	}
	if c.FileRowGroups <= 0 {
		c.FileRowGroups = 16
	}
	if c.DataPageBytes <= 0 {
		c.DataPageBytes = 64 << 10
	}
	if c.WindowBytes <= 0 {
		c.WindowBytes = 64 << 20
	}
	if c.ClusterRowGroups <= 0 {
		c.ClusterRowGroups = 4
	}
	if c.KeepSnapshots <= 0 {
		c.KeepSnapshots = 5
	}
	if c.KeepFor == 0 {
		c.KeepFor = time.Hour
	}
	return c
}

// Store is an embedded occurrence table in a directory.
type Store struct {
	dir    string
	cfg    Config
	logger *slog.Logger

	mu    sync.Mutex
	files map[string]*fileSlot // open Parquet readers by relative path

	// the last manifest read and the file it came from: readers reuse it
	// until a commit renames a new manifest into place. The file is held
	// open so that no later manifest can be given its inode (ext4 reuses a
	// freed one at once) and pass for it.
	cacheMu   sync.Mutex
	cacheFile *os.File
	cacheInfo os.FileInfo
	cached    *manifest

	ids *idStore // the gbifID lookup (ids.go)
}

var _ occurrence.Table = (*Store)(nil)

// OpenExisting opens the table in dir for a caller that must not create
// one (counts, exports, serving): a missing directory, or one that holds
// no table (neither a data folder nor a manifest), is an error wrapping
// occurrence.ErrNoTable that names dir.
func OpenExisting(dir string, cfg Config, logger *slog.Logger) (*Store, error) {
	if err := CheckExisting(dir); err != nil {
		return nil, err
	}
	return Open(dir, cfg, logger)
}

// CheckExisting reports what OpenExisting would refuse in dir before it
// reads the table: a missing directory, or one that holds no table. It
// changes nothing, so that a configuration can be checked.
func CheckExisting(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("open table %s: %w: the directory does not exist", dir, occurrence.ErrNoTable)
	case err != nil:
		return fmt.Errorf("open table %s: %w", dir, err)
	case !st.IsDir():
		return fmt.Errorf("open table %s: %w: not a directory", dir, occurrence.ErrNoTable)
	}
	_, errData := os.Stat(filepath.Join(dir, dataDir))
	_, errManifest := os.Stat(filepath.Join(dir, manifestName))
	if errors.Is(errData, fs.ErrNotExist) && errors.Is(errManifest, fs.ErrNotExist) {
		return fmt.Errorf("open table %s: %w: the directory holds no %s or %s", dir, occurrence.ErrNoTable, manifestName, dataDir)
	}
	return nil
}

// Open opens (creating if needed) the table in dir.
func Open(dir string, cfg Config, logger *slog.Logger) (*Store, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(filepath.Join(dir, dataDir), 0o755); err != nil {
		return nil, fmt.Errorf("open table %s: %w", dir, err)
	}
	s := &Store{dir: dir, cfg: cfg.withDefaults(), logger: logger, files: map[string]*fileSlot{}, ids: newIDStore(dir)}
	// Reading the manifest checks it and keeps it for the first snapshot.
	if _, err := s.current(); err != nil {
		return nil, fmt.Errorf("open table %s: %w", dir, err)
	}
	return s, nil
}

// Close releases open files.
func (s *Store) Close() error {
	s.mu.Lock()
	var errs []error
	for k, slot := range s.files {
		<-slot.ready
		if slot.o != nil {
			errs = append(errs, slot.o.close())
		}
		delete(s.files, k)
	}
	s.mu.Unlock()
	s.cacheMu.Lock()
	if s.cacheFile != nil {
		errs = append(errs, s.cacheFile.Close())
		s.cacheFile, s.cached = nil, nil
	}
	s.cacheMu.Unlock()
	errs = append(errs, s.ids.close())
	return errors.Join(errs...)
}

// splitRef locates a row group.
type splitRef struct {
	path     string
	rowGroup int
	dataset  string // "" in a segment
	rows     int64  // the row group's rows, dead ones included
	// live is, in a segment row group with dead rows, the keys of the
	// datasets whose rows the snapshot holds; nil when every row is live.
	live map[string]bool
}

// Snapshot returns the current splits: datasets in key order, then files,
// then row groups.
func (s *Store) Snapshot(ctx context.Context) (occurrence.Snapshot, error) {
	m, err := s.current()
	if err != nil {
		return occurrence.Snapshot{}, err
	}
	return snapshotOf(m), nil
}

// noManifest answers current when the manifest cannot be opened: a table
// that never had one is empty; one whose manifest was read before, or
// whose directory is gone, has been moved or unmounted under the process
// (commits replace the manifest by a rename, never leaving it missing),
// which is an error wrapping occurrence.ErrNoTable rather than an empty
// table a search would answer with confident zeros.
func (s *Store) noManifest(err error) (*manifest, error) {
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	s.cacheMu.Lock()
	seen := s.cached != nil
	s.cacheMu.Unlock()
	if seen {
		return nil, fmt.Errorf("table %s: %w: its %s is gone (moved, deleted or unmounted since it was read)", s.dir, occurrence.ErrNoTable, manifestName)
	}
	if _, derr := os.Stat(s.dir); derr != nil {
		return nil, fmt.Errorf("table %s: %w: %v", s.dir, occurrence.ErrNoTable, derr)
	}
	return readManifest(s.dir)
}

// current returns the published manifest for reading (callers must not
// modify it): decoded again only when the manifest file is another file
// than last time (commits rename a new one into place).
func (s *Store) current() (*manifest, error) {
	path := filepath.Join(s.dir, manifestName)
	info, err := os.Stat(path)
	if err != nil {
		return s.noManifest(err)
	}
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	if s.cached != nil && os.SameFile(info, s.cacheInfo) && info.ModTime().Equal(s.cacheInfo.ModTime()) && info.Size() == s.cacheInfo.Size() {
		return s.cached, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return s.noManifest(err)
	}
	// info and data of the one file f
	info, err = f.Stat()
	var data []byte
	if err == nil {
		data, err = io.ReadAll(f)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	m, err := decodeManifest(data, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	if s.cacheFile != nil {
		s.cacheFile.Close()
	}
	s.cacheFile, s.cacheInfo, s.cached = f, info, m
	// Open files the new snapshot no longer reads are closed once no scan
	// uses them (files.go); s.mu is taken after cacheMu, never before.
	s.dropStaleFiles(m)
	return m, nil
}

func snapshotOf(m *manifest) occurrence.Snapshot {
	snap := occurrence.Snapshot{ID: snapshotID(m), Created: m.Created}
	for _, key := range m.sortedKeys() {
		ds := m.Datasets[key]
		if ds.Segment != "" {
			continue
		}
		for _, f := range ds.Files {
			for rg, g := range f.RowGroups {
				snap.Splits = append(snap.Splits, occurrence.Split{
					Index: len(snap.Splits),
					Rows:  g.Rows,
					Stats: g.split,
					Ref:   splitRef{path: f.Path, rowGroup: rg, dataset: key, rows: g.Rows},
				})
			}
		}
	}
	m.segmentSplits(&snap)
	return snap
}

// snapshotID is the id of m's snapshot: its number, and for a table copied
// from another (CopyFrom) ":" and the source's table and snapshot, so that
// a download records what it read.
func snapshotID(m *manifest) string {
	id := strconv.FormatInt(m.Snapshot, 10)
	if m.Source != "" {
		id += ":" + m.Source
	}
	return id
}

// Datasets lists the table's datasets in key order.
func (s *Store) Datasets(ctx context.Context) ([]occurrence.DatasetInfo, error) {
	m, err := s.current()
	if err != nil {
		return nil, err
	}
	out := make([]occurrence.DatasetInfo, 0, len(m.Datasets))
	for _, k := range m.sortedKeys() {
		out = append(out, m.Datasets[k].DatasetInfo)
	}
	return out, nil
}

// Dataset returns one dataset's description.
func (s *Store) Dataset(ctx context.Context, key string) (occurrence.DatasetInfo, error) {
	m, err := s.current()
	if err != nil {
		return occurrence.DatasetInfo{}, err
	}
	ds, ok := m.Datasets[key]
	if !ok {
		return occurrence.DatasetInfo{}, fmt.Errorf("%w: %s", occurrence.ErrNoDataset, key)
	}
	return ds.DatasetInfo, nil
}

// DatasetEML opens the EML document kept from the dataset's source.
func (s *Store) DatasetEML(ctx context.Context, key string) (io.ReadCloser, error) {
	m, err := s.current()
	if err != nil {
		return nil, err
	}
	ds, ok := m.Datasets[key]
	if !ok {
		return nil, fmt.Errorf("%w: %s", occurrence.ErrNoDataset, key)
	}
	if !ds.HasEML {
		return nil, fmt.Errorf("dataset %s: %w", key, occurrence.ErrNoEML)
	}
	if ds.Segment != "" {
		seg := m.segment(ds.Segment)
		i := -1
		if seg != nil {
			i = seg.index(key)
		}
		if i < 0 {
			return nil, fmt.Errorf("EML of dataset %s: segment %s: %w", key, ds.Segment, errNoSegmentEML)
		}
		return os.Open(filepath.Join(s.dir, segmentEML(seg.Generation, i)))
	}
	return os.Open(filepath.Join(s.dir, generationDir(key, ds.Generation), emlName))
}

// DeleteDataset removes a dataset from the table (a new snapshot without it).
func (s *Store) DeleteDataset(ctx context.Context, key string) error {
	_, err := s.update(ctx, func(m *manifest) error {
		if _, ok := m.Datasets[key]; !ok {
			return fmt.Errorf("%w: %s", occurrence.ErrNoDataset, key)
		}
		delete(m.Datasets, key)
		return nil
	})
	return err
}

// update runs fn on the current manifest under the writer lock and publishes
// the result as the next snapshot, then collects what no snapshot needs.
func (s *Store) update(ctx context.Context, fn func(*manifest) error) (cleanup, error) {
	return s.locked(ctx, func(m *manifest) (cleanup, error) {
		if err := fn(m); err != nil {
			return cleanup{}, err
		}
		m.Snapshot++
		m.Created = time.Now().UTC()
		if err := writeManifest(s.dir, m); err != nil {
			return cleanup{}, err
		}
		return s.collect(m), nil
	})
}

// locked runs fn on the stored manifest under the writer lock.
func (s *Store) locked(ctx context.Context, fn func(*manifest) (cleanup, error)) (cleanup, error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return cleanup{}, err
	}
	defer unlock()
	m, err := readManifest(s.dir)
	if err != nil {
		return cleanup{}, err
	}
	return fn(m)
}

// lock takes the table's writer lock (a file lock, so it also excludes
// other processes), waiting until ctx is done.
func (s *Store) lock(ctx context.Context) (func(), error) {
	l := flock.New(filepath.Join(s.dir, lockName), flock.SetPermissions(0o644))
	ok, err := l.TryLockContext(ctx, 50*time.Millisecond)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, fmt.Errorf("lock table: %w", err)
	}
	if !ok { // TryLockContext gives up only with an error
		return nil, fmt.Errorf("lock table: not taken")
	}
	return func() { l.Unlock() }, nil
}

func generationDir(key, gen string) string {
	return filepath.Join(dataDir, safeName(key), gen)
}

// safeName makes a dataset key usable as one path element.
func safeName(key string) string {
	b := []byte(key)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] == '.' {
		return "_" + string(b)
	}
	return string(b)
}
