package dwca

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"

	"github.com/biodiversity-downloads/downloader/internal/charset"
	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
)

// RowError is a broken row: the caller may count it and call Next again to
// continue with the following row.
type RowError struct {
	File string
	Line int
	Err  error
}

func (e *RowError) Error() string {
	return fmt.Sprintf("%s line %d: %v", e.File, e.Line, e.Err)
}

func (e *RowError) Unwrap() error { return e.Err }

// rowLimitError is a row over the row cap: it matches ErrRowTooLong and
// ErrTooLarge, and says the cap.
type rowLimitError int

func (e rowLimitError) Error() string {
	return fmt.Sprintf("%v: longer than the row limit of %s (%d bytes), skipped unread", ErrRowTooLong, zipsafe.Size(int64(e)), int(e))
}

func (e rowLimitError) Is(target error) bool { return target == ErrRowTooLong || target == ErrTooLarge }

// Row is one data row of a file, read through its FileSpec.
type Row struct {
	spec  *FileSpec
	cells []string
	file  string
	line  int
}

// File is the archive-relative name of the row's data file.
func (r Row) File() string { return r.file }

// Line is the 1-based line of the file where the row starts.
func (r Row) Line() int { return r.line }

// Source locates the row as "file:line".
func (r Row) Source() string {
	// one allocation (concatenating strconv.Itoa's string takes two)
	var b strings.Builder
	b.Grow(len(r.file) + 1 + 20)
	b.WriteString(r.file)
	b.WriteByte(':')
	var digits [20]byte
	b.Write(strconv.AppendInt(digits[:0], int64(r.line), 10))
	return b.String()
}

// Cells are the row's raw columns.
func (r Row) Cells() []string { return r.cells }

// ID returns the core id or extension coreid of the row ("" if none).
func (r Row) ID() string {
	if r.spec.IDIndex < 0 || r.spec.IDIndex >= len(r.cells) {
		return ""
	}
	v := r.cells[r.spec.IDIndex]
	if isNull(v) {
		return ""
	}
	return v
}

// Value returns the value of the spec's field i: the cell, or the field's
// default when the cell is missing (short row) or empty. As in GBIF's dwca-io
// a cell holding only whitespace, "NULL" or "\N" counts as empty. Nothing else
// is trimmed.
func (r Row) Value(i int) string {
	f := &r.spec.Fields[i]
	if f.Index < 0 || f.Index >= len(r.cells) {
		return f.Default
	}
	v := r.cells[f.Index]
	if isNull(v) {
		return f.Default
	}
	return v
}

// Get returns the value of the field mapped to term ("" if none).
func (r Row) Get(term string) string {
	if i := r.spec.FieldIndex(term); i >= 0 {
		return r.Value(i)
	}
	return ""
}

// Terms returns the row's non-empty values by term URI.
func (r Row) Terms() occurrence.Terms {
	// Sized for the non-empty values, not every field: rows fill few of
	// them (a verbatim.txt row of a GBIF download ~12 of ~220), and a map
	// sized for 220 entries takes ~9.5 KB where one for 12 takes ~0.7 KB.
	t := make(occurrence.Terms, r.nonEmpty())
	r.AddTerms(t)
	return t
}

// nonEmpty counts the fields with a non-empty value.
func (r Row) nonEmpty() int {
	n := 0
	for i := range r.spec.Fields {
		if r.Value(i) != "" {
			n++
		}
	}
	return n
}

// AddTerms adds the row's non-empty values to t, replacing existing ones.
func (r Row) AddTerms(t occurrence.Terms) {
	for i := range r.spec.Fields {
		if v := r.Value(i); v != "" {
			t[r.spec.Fields[i].Term] = v
		}
	}
}

// isNull reports whether a cell stands for no value: empty or whitespace
// only, or the literal NULL or \N (any case, surrounded by whitespace).
func isNull(v string) bool {
	if v == "" {
		return true
	}
	t := strings.TrimSpace(v) // reads only the whitespace at either end
	return t == "" || t == `\N` || strings.EqualFold(t, "null")
}

// opener opens an archive-relative file.
type opener interface {
	openFile(name string) (io.ReadCloser, error)
}

// RowReader streams the rows of the data files of one FileSpec. Memory does not
// grow with the file: one row is held at a time.
type RowReader struct {
	ctx    context.Context
	spec   *FileSpec
	src    opener
	files  []string
	file   string
	rc     io.ReadCloser
	sc     *scanner
	header []string
	line   int
	n      int
	maxRow int // Limits.RowBytes (0: MaxRowBytes)
	// reuseCells gives every row the same slice of cells (own), for a
	// caller that is done with a row before it asks for the next: the
	// cells' strings stay the row's, but no slice is made per row.
	reuseCells bool
	own        []string
	// idsOnly gives rows whose only cell is their id (Row.ID; every other
	// cell reads empty), in a reused slice: for a pass that reads the ids
	// of a file without copying its rows (the lockstep join's order
	// check). Which rows are broken is decided as for whole rows.
	idsOnly bool
}

// newRowReader returns a reader of the files of spec.
func newRowReader(ctx context.Context, src opener, spec *FileSpec) *RowReader {
	s := *spec
	return &RowReader{ctx: ctx, spec: &s, src: src, files: append([]string(nil), spec.Files...)}
}

// Spec is the FileSpec the reader reads through.
func (rr *RowReader) Spec() *FileSpec { return rr.spec }

// File is the file of the row last returned.
func (rr *RowReader) File() string { return rr.file }

// Line is the line of the row (or broken row) last returned.
func (rr *RowReader) Line() int { return rr.line }

// Header returns the cells of the last header line of the current file, if
// the spec declares header lines.
func (rr *RowReader) Header() []string { return rr.header }

// Next returns the next row, io.EOF after the last one, or a *RowError for a
// broken row (call Next again to go on). Other errors end the reading.
func (rr *RowReader) Next() (Row, error) {
	rr.n++
	if rr.n%1024 == 0 {
		if err := rr.ctx.Err(); err != nil {
			return Row{}, err
		}
	}
	for {
		if rr.sc == nil {
			if len(rr.files) == 0 {
				return Row{}, io.EOF
			}
			if err := rr.openNext(); err != nil {
				return Row{}, err
			}
		}
		line, err := rr.sc.next()
		if err == io.EOF {
			rr.closeFile()
			continue
		}
		rr.line = line
		if err != nil {
			if errors.Is(err, ErrUnclosedQuote) || errors.Is(err, ErrInvalidUTF8) {
				return Row{}, &RowError{File: rr.file, Line: line, Err: err}
			}
			if errors.Is(err, ErrRowTooLong) {
				rr.line = rr.sc.line
				return Row{}, &RowError{File: rr.file, Line: rr.sc.line, Err: rowLimitError(rr.sc.maxRow)}
			}
			return Row{}, fmt.Errorf("dwca: read %s line %d: %w", rr.file, rr.sc.line, err)
		}
		if err := rr.checkWidth(); err != nil {
			return Row{}, &RowError{File: rr.file, Line: line, Err: err}
		}
		var cells []string
		switch {
		case rr.idsOnly:
			rr.own = rr.sc.idCellInto(rr.own[:0], rr.spec.IDIndex)
			cells = rr.own
		case rr.reuseCells:
			rr.own = rr.sc.cellsInto(rr.own[:0])
			cells = rr.own
		default:
			cells = rr.sc.cells()
		}
		return Row{spec: rr.spec, cells: cells, file: rr.file, line: line}, nil
	}
}

// checkWidth rejects rows with more non-empty cells than the header has
// columns: their values are shifted (an unquoted separator inside a value).
// Short rows are fine: missing cells are empty, as dwca-io and
// python-dwca-reader read them.
func (rr *RowReader) checkWidth() error {
	n := rr.sc.cellCount()
	if len(rr.header) == 0 || n <= len(rr.header) {
		return nil
	}
	for i := len(rr.header); i < n; i++ {
		if !rr.sc.cellEmpty(i) {
			return fmt.Errorf("%w: %d columns, header has %d", ErrTooManyColumns, n, len(rr.header))
		}
	}
	return nil
}

func (rr *RowReader) openNext() error {
	rr.file, rr.files = rr.files[0], rr.files[1:]
	rc, err := rr.src.openFile(rr.file)
	if err != nil {
		return err
	}
	r, err := prepareText(rc, rr.spec.Encoding)
	if err != nil {
		rc.Close()
		return fmt.Errorf("dwca: %s: %w", rr.file, err)
	}
	rr.rc, rr.sc, rr.header = rc, newScanner(r, rr.spec), nil
	if rr.maxRow > 0 {
		rr.sc.maxRow = rr.maxRow
	}
	for i := 0; i < rr.spec.IgnoreHeaderLines; i++ {
		if _, err := rr.sc.next(); err != nil {
			if err == io.EOF {
				break
			}
			if errors.Is(err, ErrRowTooLong) {
				err = rowLimitError(rr.sc.maxRow)
			}
			if !errors.Is(err, ErrInvalidUTF8) && !errors.Is(err, ErrUnclosedQuote) {
				return fmt.Errorf("dwca: read header of %s: %w", rr.file, err)
			}
		}
		rr.header = rr.sc.cells()
	}
	return nil
}

// prepareText drops a byte-order mark and decodes non-UTF-8 encodings. A
// UTF-16 BOM wins over a declared UTF-8 encoding.
func prepareText(r io.Reader, enc string) (io.Reader, error) {
	br := bufio.NewReaderSize(r, scanBufSize) // the scanner reuses it
	switch charset.PeekBOM(br) {
	case charset.BOMUTF8:
		br.Discard(3)
		return br, nil
	case charset.BOMUTF16:
		return charset.NewReader(br, charset.BOMUTF16)
	}
	return charset.NewReader(br, enc)
}

func (rr *RowReader) closeFile() {
	if rr.rc != nil {
		rr.rc.Close()
	}
	rr.rc, rr.sc = nil, nil
}

// Close releases the open file. It is safe to call more than once.
func (rr *RowReader) Close() error {
	rr.closeFile()
	rr.files = nil
	return nil
}
