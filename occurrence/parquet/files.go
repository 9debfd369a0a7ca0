package parquet

import (
	"path/filepath"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// unref gives back a file taken with Store.file: a stale file (one the
// current snapshot no longer reads, see dropStaleFiles) is closed when its
// last scan ends, so that the disk space of files a rollover or an ingest
// retired is freed although this process read them.
func (s *Store) unref(rel string, slot *fileSlot) {
	if slot == nil {
		return
	}
	s.mu.Lock()
	slot.refs--
	closeIt := slot.refs == 0 && slot.stale && slot.o != nil
	if closeIt && s.files[rel] == slot {
		delete(s.files, rel)
	}
	s.mu.Unlock()
	if closeIt {
		slot.o.close()
	}
}

// dropStaleFiles marks the open files that m, the snapshot just read, does
// not read, and closes those no scan uses. A scan of an older snapshot
// opens them again if it needs them (they are there for as long as the
// snapshot is retained or pinned).
func (s *Store) dropStaleFiles(m *manifest) {
	paths := map[string]bool{}
	for _, ds := range m.Datasets {
		for _, f := range ds.Files {
			paths[f.Path] = true
		}
	}
	for _, seg := range m.Segments {
		for _, f := range seg.Files {
			paths[f.Path] = true
		}
	}
	var closing []*openFile
	s.mu.Lock()
	for rel, slot := range s.files {
		if paths[rel] {
			continue
		}
		slot.stale = true
		if slot.refs == 0 {
			delete(s.files, rel)
			if slot.o != nil {
				closing = append(closing, slot.o)
			}
		}
	}
	s.mu.Unlock()
	for _, o := range closing {
		o.close()
	}
}

// SplitPath returns the path of the Parquet file holding a split of this
// store, or "" for a split of another table (for operators and tests).
func (s *Store) SplitPath(sp occurrence.Split) string {
	ref, ok := sp.Ref.(splitRef)
	if !ok {
		return ""
	}
	return filepath.Join(s.dir, ref.path)
}
