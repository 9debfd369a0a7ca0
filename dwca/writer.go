package dwca

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/pzip"
	"github.com/biodiversity-downloads/downloader/internal/tmpfile"
)

// Writer writes a Darwin Core Archive into a zip: a core data file streamed
// into its entry as it is written, extension files deflated by the zip's
// workers into temporary files while the core streams (pzip spools) and
// added after it without a second compression, further entries (EML
// documents, texts), and the meta.xml describing the data files. The data
// files' text is the caller's (TextWriter writes it the way readers expect).
//
// The entries come in this order: the core, then what Create adds before
// Finish, then at Finish the extensions in the order they were started and
// meta.xml; entries created after Finish follow. The Writer does not close
// the zip.
type Writer struct {
	zw    *pzip.Writer
	opts  WriterOptions
	core  *DataFile
	files []*DataFile // extensions, in the order they were started
	done  bool
}

// WriterOptions tune a Writer.
type WriterOptions struct {
	// TempDir holds the extensions' spools ("" = os.TempDir()).
	TempDir string
	// Modified stamps the entries (zero: the zip writer's creation time).
	Modified time.Time
	// Metadata names the archive's metadata document in meta.xml
	// ("eml.xml", GBIF downloads' "metadata.xml"); the caller adds it with
	// Create.
	Metadata string
}

// DataFile is one data file of the archive: write its rows to it (it
// offers AvailableBuffer, for NewExclusiveTextWriter).
type DataFile struct {
	io.Writer
	spec  FileSpec
	spool *pzip.TempSpool // nil for the core
	omit  bool
	// undescribed: an entry meta.xml does not list (Spooled).
	undescribed bool
}

// AvailableBuffer is the free space of the chunk the zip writer deflates
// next (see NewExclusiveTextWriter).
func (f *DataFile) AvailableBuffer() []byte {
	if ab, ok := f.Writer.(interface{ AvailableBuffer() []byte }); ok {
		return ab.AvailableBuffer()
	}
	return nil
}

// Omit leaves an extension out of the archive and its meta.xml, as for an
// extension that got no rows. The core cannot be omitted.
func (f *DataFile) Omit() { f.omit = true }

// NewWriter starts an archive in zw.
func NewWriter(zw *pzip.Writer, opts WriterOptions) *Writer {
	return &Writer{zw: zw, opts: opts}
}

// errWriterDone is returned for data files started after Finish or Abort.
var errWriterDone = errors.New("dwca: archive writer finished")

// Core starts the core data file spec describes (its first file names the
// entry); it is streamed into the zip, so start it before anything else.
func (w *Writer) Core(spec FileSpec) (*DataFile, error) {
	if err := w.check(spec, "core"); err != nil {
		return nil, err
	}
	if w.core != nil {
		return nil, fmt.Errorf("dwca: archive writer: a second core %s", spec.Files[0])
	}
	e, err := w.Create(spec.Files[0])
	if err != nil {
		return nil, err
	}
	w.core = &DataFile{Writer: e, spec: spec}
	return w.core, nil
}

// Extension starts an extension data file, spooled until Finish.
func (w *Writer) Extension(spec FileSpec) (*DataFile, error) {
	if err := w.check(spec, "extension"); err != nil {
		return nil, err
	}
	return w.spool(spec)
}

// Spooled starts an entry written while the core streams, like an
// extension, and added with the extensions at Finish, but not a data file
// of meta.xml (GBIF's FASTA archives carry sequences.fasta and
// sequences.txt so).
func (w *Writer) Spooled(name string) (*DataFile, error) {
	if w.done {
		return nil, errWriterDone
	}
	f, err := w.spool(FileSpec{Files: []string{name}})
	if err != nil {
		return nil, err
	}
	f.undescribed = true
	return f, nil
}

// spool starts a spooled entry.
func (w *Writer) spool(spec FileSpec) (*DataFile, error) {
	// Unlinked while open: a process killed mid-archive leaves no spool.
	tmp, err := tmpfile.Create(w.opts.TempDir, "dwca-extension-*")
	if err != nil {
		return nil, fmt.Errorf("dwca: %w: %v", pzip.ErrSpool, err)
	}
	sp, err := w.zw.NewTempSpool(tmp)
	if err != nil {
		return nil, fmt.Errorf("dwca: %w", err)
	}
	f := &DataFile{Writer: sp, spec: spec, spool: sp}
	w.files = append(w.files, f)
	return f, nil
}

func (w *Writer) check(spec FileSpec, what string) error {
	if w.done {
		return errWriterDone
	}
	if len(spec.Files) != 1 {
		return fmt.Errorf("dwca: archive writer: a %s of %d files; a written data file is one file", what, len(spec.Files))
	}
	return nil
}

// Create adds another entry (a metadata document, a text) named name.
func (w *Writer) Create(name string) (io.Writer, error) {
	return w.zw.CreateHeader(&pzip.FileHeader{Name: name, Modified: w.opts.Modified})
}

// CreateWith adds an entry whose content write produces.
func (w *Writer) CreateWith(name string, write func(io.Writer) error) error {
	e, err := w.Create(name)
	if err != nil {
		return err
	}
	if err := write(e); err != nil {
		return fmt.Errorf("dwca: write %s: %w", name, err)
	}
	return nil
}

// Finish adds the extensions that were not omitted, then meta.xml. The
// callers' text writers must have been flushed. The zip stays open for
// further entries.
func (w *Writer) Finish() error {
	if w.done {
		return errWriterDone
	}
	if w.core == nil {
		return errors.New("dwca: archive writer: no core data file")
	}
	w.done = true
	defer w.removeSpools()
	m := Meta{Core: w.core.spec, Metadata: w.opts.Metadata}
	for _, f := range w.files {
		if f.omit {
			continue
		}
		if err := f.spool.Add(w.zw, &pzip.FileHeader{Name: f.spec.Files[0], Modified: w.opts.Modified}); err != nil {
			return err
		}
		if !f.undescribed {
			m.Extensions = append(m.Extensions, f.spec)
		}
	}
	return w.CreateWith("meta.xml", m.WriteXML)
}

// Abort removes the spools of an archive that will not be finished.
func (w *Writer) Abort() {
	w.done = true
	w.removeSpools()
}

func (w *Writer) removeSpools() {
	for _, f := range w.files {
		f.spool.Remove()
	}
}

// TextFile is the FileSpec of a data file as downloads and conversions
// write it: UTF-8, tab separated, unquoted, "\n" line ends, one header line,
// the (core) id in column 0, terms in the columns from first on (0 for a
// core or a file whose first column has its own term, 1 for an extension
// whose column 0 is only the core id).
func TextFile(rowType, file string, terms []string, first int) FileSpec {
	s := FileSpec{
		RowType: rowType, Files: []string{file}, Encoding: "UTF-8", FieldsTerminatedBy: "\t",
		LinesTerminatedBy: "\n", FieldsEnclosedBy: "", IgnoreHeaderLines: 1, IDIndex: 0,
	}
	for i, t := range terms {
		s.Fields = append(s.Fields, Field{Index: first + i, Term: t})
	}
	return s
}
