package parquet

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
)

const writingMarker = ".writing"

// cleanup is what one collect did.
type cleanup struct {
	// Retired are the snapshots whose files it let go (oldest first).
	Retired []int64
	// Removed are the directories it deleted, relative to the table.
	Removed    []string
	FreedBytes int64
	// Pins are the live pins it kept snapshots for.
	Pins []PinInfo
}

// collect removes what no retained or pinned snapshot refers to:
// generation directories and segments of old snapshots and of crashed
// writers, the generation lists of retired snapshots, expired pins, and the
// temporary files of manifests a crashed writer never published. It runs
// under the writer lock, cur the manifest just published; failures are
// logged, never fatal.
func (s *Store) collect(cur *manifest) cleanup {
	var c cleanup
	s.removeManifestTemps()
	keep, err := s.retainedGenerations(cur, &c)
	if err != nil {
		s.logger.Warn("table cleanup skipped", "err", err)
		return c
	}
	root := filepath.Join(s.dir, dataDir)
	dsDirs, _ := os.ReadDir(root)
	for _, d := range dsDirs {
		gens, _ := os.ReadDir(filepath.Join(root, d.Name()))
		for _, g := range gens {
			rel := filepath.Join(dataDir, d.Name(), g.Name())
			if keep[rel] || writerAlive(filepath.Join(s.dir, rel)) {
				continue
			}
			size := dirSize(filepath.Join(s.dir, rel))
			if err := os.RemoveAll(filepath.Join(s.dir, rel)); err != nil {
				s.logger.Warn("table cleanup", "path", rel, "err", err)
				continue
			}
			c.Removed = append(c.Removed, rel)
			c.FreedBytes += size
		}
		if rest, _ := os.ReadDir(filepath.Join(root, d.Name())); len(rest) == 0 {
			os.Remove(filepath.Join(root, d.Name()))
		}
	}
	return c
}

// retainedGenerations returns the directories read by the current snapshot
// cur and by the snapshots still retained; it removes the generation lists
// of the others (recording them in c.Retired) and expired pins.
//
// A snapshot is retained while it is one of the KeepSnapshots newest, while
// less than KeepFor has passed since it was superseded (the next snapshot
// was published: scans that took it just before may still run, counts
// among them, which do not pin), and while a live pin holds it.
func (s *Store) retainedGenerations(cur *manifest, c *cleanup) (map[string]bool, error) {
	now := time.Now()
	pins, expired, err := s.readPins(now)
	if err != nil {
		return nil, err
	}
	for _, p := range expired {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.logger.Warn("table cleanup: expired pin", "path", p, "err", err)
		}
	}
	c.Pins = pins
	pinned := map[int64]bool{}
	for _, p := range pins {
		pinned[p.Snapshot] = true
	}
	hist := filepath.Join(s.dir, manifestsDir)
	entries, err := os.ReadDir(hist)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".gens") {
			names = append(names, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	keep := map[string]bool{}
	var supersededAt time.Time // when the snapshot before names[i] was published
	for i, name := range names {
		path := filepath.Join(hist, name)
		info, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		superseded := supersededAt
		supersededAt = info.ModTime()
		n, perr := strconv.ParseInt(strings.TrimSuffix(name, ".gens"), 10, 64)
		if perr == nil && n != cur.Snapshot && i >= s.cfg.KeepSnapshots && !pinned[n] &&
			!superseded.IsZero() && now.Sub(superseded) > s.cfg.KeepFor {
			if err := os.Remove(path); err != nil {
				return nil, err
			}
			c.Retired = append(c.Retired, n)
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		for _, gen := range strings.Split(string(data), "\n") {
			if gen != "" {
				keep[gen] = true
			}
		}
	}
	for _, d := range cur.generationDirs() {
		keep[d] = true
	}
	slices.Reverse(c.Retired)
	return keep, nil
}

// dirSize sums the sizes of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// writerAlive reports whether an ingest is still writing into dir: its writer
// holds a file lock on the marker for as long as it runs. A marker that
// cannot be checked counts as alive: cleanup leaves the directory alone.
func writerAlive(dir string) bool {
	l := flock.New(filepath.Join(dir, writingMarker), flock.SetFlag(os.O_RDONLY))
	ok, err := l.TryLock()
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	if ok {
		l.Unlock()
	}
	return !ok
}

// removeManifestTemps removes the temporary files writeManifest leaves when
// its process dies before the rename. Only the holder of the writer lock
// writes manifests, so under that lock every one found is abandoned.
func (s *Store) removeManifestTemps() {
	for _, dir := range []string{s.dir, filepath.Join(s.dir, manifestsDir)} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !atomicfile.IsTemp(e.Name()) {
				continue
			}
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				s.logger.Warn("table cleanup", "path", e.Name(), "err", err)
			}
		}
	}
}
