package parquet

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
)

const writingMarker = ".writing"

// collect removes what no retained snapshot refers to: generation directories
// of old snapshots and of crashed ingests, and old manifest copies, and the
// temporary files of manifests a crashed writer never published. It runs
// under the writer lock, cur the manifest just published; failures are
// logged, never fatal.
func (s *Store) collect(cur *manifest) {
	s.removeManifestTemps()
	keep, err := s.retainedGenerations(cur)
	if err != nil {
		s.logger.Warn("table cleanup skipped", "err", err)
		return
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
			if err := os.RemoveAll(filepath.Join(s.dir, rel)); err != nil {
				s.logger.Warn("table cleanup", "path", rel, "err", err)
			}
		}
		if rest, _ := os.ReadDir(filepath.Join(root, d.Name())); len(rest) == 0 {
			os.Remove(filepath.Join(root, d.Name()))
		}
	}
}

// retainedGenerations returns the generation directories referenced by the
// current snapshot cur and by recent ones; it also prunes old manifest copies.
func (s *Store) retainedGenerations(cur *manifest) (map[string]bool, error) {
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
	now := time.Now()
	for i, name := range names {
		path := filepath.Join(hist, name)
		info, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if i >= s.cfg.KeepSnapshots && now.Sub(info.ModTime()) > s.cfg.KeepFor {
			os.Remove(path)
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
	for key, ds := range cur.Datasets {
		keep[generationDir(key, ds.Generation)] = true
	}
	return keep, nil
}

// writerAlive reports whether an ingest is still writing into dir: its writer
// holds an flock on the marker file for as long as it runs.
func writerAlive(dir string) bool {
	f, err := os.Open(filepath.Join(dir, writingMarker))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
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
