package dwca

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/klauspost/readahead"

	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
)

// Errors of opening archives.
var (
	ErrNoMetadata        = errors.New("archive has no metadata document")
	ErrNoMeta            = errors.New("archive has no meta.xml and no single data file")
	ErrNotOccurrenceData = errors.New("not occurrence data")
	ErrUnsafePath        = errors.New("unsafe path in archive")
	ErrZipBomb           = errors.New("zip entry expands too much")
	ErrMissingFile       = errors.New("data file missing from archive")
)

// Options tune opening and reading archives. The zero value is usable.
type Options struct {
	// Logger receives warnings; nil discards.
	Logger *slog.Logger
	// TempDir holds downloads and join spill files ("" = os.TempDir()).
	TempDir string
	// JoinBudget caps the bytes of extension rows a star join keeps in memory
	// (default DefaultJoinBudget); larger extensions are joined on disk.
	JoinBudget int64
	// MaxRatio caps uncompressed/compressed size of a zip entry larger than
	// 16 MiB (default DefaultMaxRatio).
	MaxRatio int64
	// MaxBrokenListed caps the broken rows a StarReader lists (default 100);
	// all of them are counted.
	MaxBrokenListed int
	// Size caps, counted on the (inflated) bytes as they are read; a file
	// over its cap fails with a *TooLargeError naming it and the cap (see
	// limits.go and docs/limits.md). 0 means the default.
	Limits Limits
}

// Defaults of Options.
const (
	DefaultJoinBudget = 64 << 20
	DefaultMaxRatio   = 200
	ratioFloor        = 16 << 20
)

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.JoinBudget <= 0 {
		o.JoinBudget = DefaultJoinBudget
	}
	if o.MaxRatio <= 0 {
		o.MaxRatio = DefaultMaxRatio
	}
	if o.MaxBrokenListed <= 0 {
		o.MaxBrokenListed = 100
	}
	o.Limits = o.Limits.withDefaults()
	return o
}

// Archive is an opened Darwin Core Archive. Close it when done.
type Archive struct {
	// Meta describes the data files (derived from the header row when the
	// archive has no meta.xml).
	Meta *Meta
	// Path is where the archive was opened from.
	Path string
	// Derived is set when Meta was derived from a lone data file.
	Derived bool

	fsys    fs.FS
	zip     *zip.Reader       // when the archive is a zip
	root    string            // folder of meta.xml inside fsys ("" or "dir/")
	names   map[string]string // lower-case visible name -> name, for lenient lookups
	opts    Options
	closers []func() error
}

// Open opens a DwC-A zip file, an unpacked archive folder or a lone CSV/TSV
// data file with default Options.
func Open(ctx context.Context, path string) (*Archive, error) {
	return Options{}.Open(ctx, path)
}

// Open opens a DwC-A zip file, an unpacked archive folder or a lone CSV/TSV file.
func (o Options) Open(ctx context.Context, p string) (*Archive, error) {
	o = o.withDefaults()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("dwca: open: %w", err)
	}
	a := &Archive{Path: p, opts: o}
	switch {
	case st.IsDir():
		a.fsys = os.DirFS(p)
	case isZip(p):
		zr, err := openZip(p, o.MaxRatio)
		if err != nil {
			return nil, err
		}
		a.fsys, a.closers = zr, append(a.closers, zr.Close)
		a.zip = &zr.Reader
	default:
		a.fsys = singleFileFS{name: path.Base(p), path: p}
	}
	if err := a.load(ctx); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// load finds meta.xml (or derives it) after indexing the visible files.
func (a *Archive) load(ctx context.Context) error {
	names, err := VisibleFiles(a.fsys)
	if err != nil {
		return err
	}
	a.root = commonRoot(names)
	a.names = make(map[string]string, len(names))
	for _, n := range names {
		if rel, ok := strings.CutPrefix(n, a.root); ok {
			a.names[strings.ToLower(rel)] = rel
		}
	}
	if metaName, ok := a.names["meta.xml"]; ok {
		rc, err := a.openCapped(metaName, a.opts.Limits.MetaBytes, "meta.xml")
		if err != nil {
			return err
		}
		defer rc.Close()
		m, err := ParseMeta(rc)
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				return fmt.Errorf("dwca: %w", err)
			}
			return fmt.Errorf("dwca: %s: %w", a.Path, err)
		}
		a.Meta = m
		return a.checkFiles()
	}
	m, err := a.deriveMeta(ctx)
	if err != nil {
		return err
	}
	a.Meta, a.Derived = m, true
	return nil
}

// checkFiles makes sure every data file named in meta.xml exists, fixing the
// case of names that differ only in capitalization.
func (a *Archive) checkFiles() error {
	specs := []*FileSpec{&a.Meta.Core}
	for i := range a.Meta.Extensions {
		specs = append(specs, &a.Meta.Extensions[i])
	}
	for _, s := range specs {
		for i, f := range s.Files {
			name, err := a.resolve(f)
			if err != nil {
				return fmt.Errorf("dwca: %s: %s file %q: %w", a.Path, s.RowType, f, err)
			}
			s.Files[i] = name
		}
	}
	return nil
}

// resolve maps a location from meta.xml onto a visible file name.
func (a *Archive) resolve(loc string) (string, error) {
	clean := strings.TrimPrefix(path.Clean(strings.ReplaceAll(loc, `\`, "/")), "./")
	if !fs.ValidPath(clean) {
		return "", ErrUnsafePath
	}
	if n, ok := a.names[strings.ToLower(clean)]; ok {
		return n, nil
	}
	return "", ErrMissingFile
}

// openFile opens an archive-relative data file under the data file cap. A
// zip entry is inflated on a goroutine of its own, a few blocks ahead of
// the reader (klauspost/readahead): the rows are parsed while the next
// ones inflate, and each reader of a star join (the core and its
// extensions in lockstep) inflates on its own goroutine.
func (a *Archive) openFile(name string) (io.ReadCloser, error) {
	rc, err := a.openCapped(name, a.opts.Limits.FileBytes, "data file")
	if err != nil || a.zip == nil {
		return rc, err
	}
	return readahead.NewReadCloserSize(rc, readAheadBlocks, readAheadBlock)
}

// Blocks a data file's inflater keeps ready ahead of its reader.
const (
	readAheadBlocks = 4
	readAheadBlock  = 256 << 10
)

// Rows streams the rows of one data file description (the core or an extension).
func (a *Archive) Rows(ctx context.Context, spec FileSpec) (*RowReader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if spec.FieldsTerminatedBy == "" {
		return nil, fmt.Errorf("dwca: rows of %s %q: %w: no fieldsTerminatedBy", spec.RowType, spec.Files, ErrInvalidMeta)
	}
	rr := newRowReader(ctx, a, &spec)
	rr.maxRow = a.opts.Limits.RowBytes
	return rr, nil
}

// EML opens the archive's metadata document: the one named by meta.xml, else
// eml.xml or metadata.xml. ErrNoMetadata when there is none. Reading more
// than Limits.EMLBytes of it fails with a *TooLargeError.
func (a *Archive) EML() (io.ReadCloser, error) {
	candidates := []string{"eml.xml", "metadata.xml"}
	if a.Meta != nil && a.Meta.Metadata != "" {
		candidates = append([]string{a.Meta.Metadata}, candidates...)
	}
	for _, c := range candidates {
		if name, err := a.resolve(c); err == nil {
			return a.openCapped(name, a.opts.Limits.EMLBytes, "EML document")
		}
	}
	return nil, fmt.Errorf("dwca: %s: %w", a.Path, ErrNoMetadata)
}

// Files lists the visible files of the archive (relative to meta.xml's folder).
func (a *Archive) Files() []string {
	out := make([]string, 0, len(a.names))
	for _, n := range a.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Close releases the archive and removes a downloaded temporary copy.
func (a *Archive) Close() error {
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		errs = append(errs, a.closers[i]())
	}
	a.closers = nil
	return errors.Join(errs...)
}

// VisibleFiles lists the files of an archive's file system (a *zip.Reader, an
// unpacked folder) that Open looks at: regular files, skipping __MACOSX/ and
// dot-files or dot-folders anywhere in the path. Names keep a root folder
// that Open would take off. Tools that sniff what an archive holds use it to
// see what the reader sees.
func VisibleFiles(fsys fs.FS) ([]string, error) {
	var names []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if zipsafe.HiddenElement(d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dwca: list archive: %w", err)
	}
	return names, nil
}

// commonRoot returns the folder to read the archive from: "" when meta.xml
// is at the top, the folder of the only meta.xml when there is exactly one
// deeper down, else "dir/" when every visible file sits in one folder
// (archives zipped with their folder), else "".
func commonRoot(names []string) string {
	var metas []string
	for _, n := range names {
		if strings.EqualFold(path.Base(n), "meta.xml") {
			if strings.EqualFold(n, "meta.xml") {
				return ""
			}
			metas = append(metas, n)
		}
	}
	if len(metas) == 1 {
		return path.Dir(metas[0]) + "/"
	}
	root := ""
	for _, n := range names {
		dir, _, ok := strings.Cut(n, "/")
		if !ok {
			return ""
		}
		if root == "" {
			root = dir
		} else if dir != root {
			return ""
		}
	}
	if root == "" {
		return ""
	}
	return root + "/"
}
