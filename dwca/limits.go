package dwca

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// ErrTooLarge marks an input over one of the size caps (Limits); the
// concrete error is a *TooLargeError naming the file and the cap.
var ErrTooLarge = zipsafe.ErrTooLarge

// ErrSizeMismatch marks a zip entry that inflates past the size its
// headers declare.
var ErrSizeMismatch = zipsafe.ErrSizeMismatch

// TooLargeError says which file passed which cap.
type TooLargeError = zipsafe.TooLargeError

// Limits are the size caps of reading an archive. Each counts the bytes as
// they stream (inflated bytes for a zip entry: its declared size is checked
// before reading, then the real bytes, since headers can lie), so memory
// and disk stay bounded whatever the input claims. Zero fields take the
// defaults below; docs/limits.md lists them all.
type Limits struct {
	// MetaBytes caps meta.xml (default DefaultMaxMetaBytes). A real one
	// is a few KB; a bigger one is a bomb (XML comments, filler).
	MetaBytes int64
	// EMLBytes caps the EML document (default DefaultMaxEMLBytes, what
	// the tables store: occurrence.MaxEMLBytes).
	EMLBytes int64
	// RowBytes caps one row of a data file, all its lines (default
	// DefaultMaxRowBytes): a longer row is a broken row (ErrRowTooLong,
	// also matching ErrTooLarge), skipped without being buffered.
	RowBytes int
	// FileBytes caps each data file, inflated, and an archive downloaded
	// by OpenURL (default DefaultMaxFileBytes).
	FileBytes int64
	// SpillBytes caps the bytes a disk join writes to temporary files
	// (default 0: DefaultSpillFactor times the declared size of the
	// archive's data files plus 1 GiB). A disk join writes about twice
	// the data for wide rows (1.8x for a GBIF download of 50,000 records)
	// and up to about four times for narrow ones (3.8x for two short
	// columns); repeated core ids sharing many extension rows would
	// multiply the data. Extensions in core order are joined in lockstep
	// and write at most the sorted hashes of the core ids (~14 bytes a
	// core row), also counted.
	SpillBytes int64
	// RecordBytes caps the extension rows joined to one core row on disk
	// (default DefaultMaxRecordBytes); a core row over it is a broken row.
	RecordBytes int64
}

// Defaults of Limits.
const (
	DefaultMaxMetaBytes   = 16 << 20
	DefaultMaxEMLBytes    = occurrence.MaxEMLBytes
	DefaultMaxRowBytes    = MaxRowBytes
	DefaultMaxFileBytes   = 1 << 40
	DefaultMaxRecordBytes = 256 << 20
	DefaultSpillFactor    = 6
)

func (l Limits) withDefaults() Limits {
	if l.MetaBytes <= 0 {
		l.MetaBytes = DefaultMaxMetaBytes
	}
	if l.EMLBytes <= 0 {
		l.EMLBytes = DefaultMaxEMLBytes
	}
	if l.RowBytes <= 0 {
		l.RowBytes = DefaultMaxRowBytes
	}
	if l.FileBytes <= 0 {
		l.FileBytes = DefaultMaxFileBytes
	}
	if l.RecordBytes <= 0 {
		l.RecordBytes = DefaultMaxRecordBytes
	}
	return l
}

// where locates an archive-relative file for messages: "archive.zip!meta.xml",
// "folder/meta.xml", or the path of a lone data file.
func (a *Archive) where(name string) string {
	switch {
	case a.zip != nil:
		return a.Path + "!" + a.root + name
	case a.Derived || isSingle(a):
		return a.Path
	}
	return filepath.Join(a.Path, filepath.FromSlash(a.root+name))
}

func isSingle(a *Archive) bool {
	_, ok := a.fsys.(singleFileFS)
	return ok
}

// openCapped opens an archive-relative file for reading at most limit
// bytes: a file whose size (declared, for a zip entry) is over it is
// refused before it is read, and reading fails once the bytes read pass it
// (or pass a zip entry's declared size: ErrSizeMismatch).
func (a *Archive) openCapped(name string, limit int64, what string) (io.ReadCloser, error) {
	f, err := a.fsys.Open(a.root + name)
	if err != nil {
		return nil, fmt.Errorf("dwca: open %s: %w", name, err)
	}
	where := a.where(name)
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("dwca: open %s: %w", where, err)
	}
	if st.Size() > limit {
		f.Close()
		what := what
		if a.zip != nil {
			what += " (declared size)"
		}
		return nil, &TooLargeError{Name: where, What: what, Limit: limit}
	}
	var r io.ReadCloser = f
	if a.zip != nil {
		r = zipsafe.Declared(f, st.Size(), where)
	}
	return zipsafe.Cap(r, limit, where, what), nil
}
