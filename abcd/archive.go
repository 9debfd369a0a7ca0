package abcd

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
)

// DefaultMaxRatio is the default cap on how many bytes an archive may
// inflate to per compressed byte. Real ABCD XML compresses 10-40x; a deflate
// bomb approaches 1000x.
const DefaultMaxRatio = 200

// ArchiveOptions guard archive reading.
type ArchiveOptions struct {
	// MaxRatio caps the inflated/compressed ratio of each entry and of the
	// whole archive (against its file size). 0 means DefaultMaxRatio.
	MaxRatio int64
	// MaxEntryBytes caps each document entry, inflated, whatever its
	// ratio (a *TooLargeError): its declared size before reading, its real
	// bytes as they stream. 0 means DefaultMaxDocumentBytes.
	MaxEntryBytes int64
}

func (o ArchiveOptions) entryCap() int64 {
	if o.MaxEntryBytes <= 0 {
		return DefaultMaxDocumentBytes
	}
	return o.MaxEntryBytes
}

func (o ArchiveOptions) ratio() int64 {
	if o.MaxRatio <= 0 {
		return DefaultMaxRatio
	}
	return o.MaxRatio
}

// ratioSlack lets small entries inflate freely (a 1 KiB entry of spaces is
// not a bomb).
const ratioSlack = 1 << 20

// Archive is an opened ABCD archive: a zip of ABCD documents (BioCASe's
// response.NNNNN.xml, GBIF's .abcda with *.response entries, any *.xml),
// read in entry-name order.
type Archive struct {
	path    string
	f       *os.File
	zr      *zip.Reader
	entries []*zip.File
	opts    ArchiveOptions
	budget  *byteBudget
}

// OpenArchive opens the zip at path and lists its documents. Entry names
// with ../ or an absolute path, and entries whose declared sizes exceed the
// ratio cap, are refused with ErrUnsafeArchive before anything is read.
func OpenArchive(path string, opts ArchiveOptions) (*Archive, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		f.Close()
		return nil, &ParseError{Op: "open archive", Path: path, Err: fmt.Errorf("%w: %v", ErrSyntax, err)}
	}
	a := &Archive{path: path, f: f, zr: zr, opts: opts, budget: newBudget(opts.ratio()*st.Size() + ratioSlack)}
	if err := a.list(); err != nil {
		f.Close()
		return nil, err
	}
	return a, nil
}

func (a *Archive) list() error {
	var declared uint64
	for _, zf := range a.zr.File {
		if err := zipsafe.CheckName(zf.Name); err != nil {
			return &ParseError{Op: "open archive", Path: a.path, Err: fmt.Errorf("%w: %v", ErrUnsafeArchive, err)}
		}
		if !isDocumentName(zf.Name) || zf.FileInfo().IsDir() {
			continue
		}
		if zf.UncompressedSize64 > uint64(a.opts.entryCap()) {
			return &TooLargeError{Name: a.path + "!" + zf.Name, What: "ABCD document (declared size)", Limit: a.opts.entryCap()}
		}
		if zf.UncompressedSize64 > uint64(a.opts.ratio())*zf.CompressedSize64+ratioSlack {
			return &ParseError{Op: "open archive", Path: a.path + "!" + zf.Name,
				Err: fmt.Errorf("%w: entry declares %d bytes from %d compressed (ratio cap %d)", ErrUnsafeArchive, zf.UncompressedSize64, zf.CompressedSize64, a.opts.ratio())}
		}
		declared += zf.UncompressedSize64
		a.entries = append(a.entries, zf)
	}
	if len(a.entries) == 0 {
		return &ParseError{Op: "open archive", Path: a.path, Err: ErrNoDocuments}
	}
	if int64(declared) > a.budget.left.Load() {
		return &ParseError{Op: "open archive", Path: a.path, Err: fmt.Errorf("%w: entries declare %d bytes in total (ratio cap %d)", ErrUnsafeArchive, declared, a.opts.ratio())}
	}
	sort.SliceStable(a.entries, func(i, j int) bool { return a.entries[i].Name < a.entries[j].Name })
	return nil
}

// isDocumentName accepts *.xml and *.response entries, skipping what the
// DwC-A reader skips too: hidden files and folders and macOS resource forks
// (zipsafe.Hidden).
func isDocumentName(name string) bool {
	if zipsafe.Hidden(name) {
		return false
	}
	ext := strings.ToLower(path.Ext(name))
	return ext == ".xml" || ext == ".response"
}

// Documents are the entry names that will be read, in order.
func (a *Archive) Documents() []string {
	out := make([]string, len(a.entries))
	for i, e := range a.entries {
		out[i] = e.Name
	}
	return out
}

// Close closes the archive file.
func (a *Archive) Close() error { return a.f.Close() }

func (a *Archive) documents() []document {
	docs := make([]document, len(a.entries))
	for i, zf := range a.entries {
		name := a.path + "!" + zf.Name
		docs[i] = document{name: name, open: func(context.Context) (io.ReadCloser, error) {
			rc, err := zipsafe.OpenEntry(zf, a.opts.entryCap(), name, "ABCD document")
			if err != nil {
				return nil, err
			}
			limit := a.opts.ratio()*int64(zf.CompressedSize64) + ratioSlack
			return &bombGuard{rc: rc, left: limit, budget: a.budget, name: zf.Name, ratio: a.opts.ratio()}, nil
		}}
	}
	return docs
}

// byteBudget is the inflated byte allowance shared by all entries of an
// archive (it catches overlapping-entry bombs).
type byteBudget struct{ left atomic.Int64 }

func newBudget(n int64) *byteBudget {
	b := &byteBudget{}
	b.left.Store(n)
	return b
}

func (b *byteBudget) take(n int64) bool { return b.left.Add(-n) >= 0 }

// bombGuard stops an entry that inflates past its cap, counting real bytes
// (declared sizes can lie).
type bombGuard struct {
	rc     io.ReadCloser
	left   int64
	budget *byteBudget
	name   string
	ratio  int64
}

func (g *bombGuard) Read(p []byte) (int, error) {
	n, err := g.rc.Read(p)
	g.left -= int64(n)
	if g.left < 0 || !g.budget.take(int64(n)) {
		return 0, fmt.Errorf("%w: entry %s inflates beyond %dx its compressed size (zip bomb?)", ErrUnsafeArchive, g.name, g.ratio)
	}
	return n, err
}

func (g *bombGuard) Close() error { return g.rc.Close() }
