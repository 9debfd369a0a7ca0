package zipsafe

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
)

// ErrTooLarge marks an input that passed one of the size caps. The concrete
// error is a *TooLargeError naming the input and the cap.
var ErrTooLarge = errors.New("input too large")

// ErrSizeMismatch marks a zip entry that inflates past the size its headers
// declare (a forged header; archive/zip stops it there).
var ErrSizeMismatch = errors.New("zip entry larger than it declares")

// TooLargeError says which input passed which cap.
type TooLargeError struct {
	// Name locates the input: a file, a zip entry ("data.zip!meta.xml") or a URL.
	Name string
	// What the cap applies to: "meta.xml", "EML document", "data file", "row", ...
	What string
	// Limit is the cap in bytes.
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: %s larger than the limit of %s (%d bytes)", e.Name, e.What, Size(e.Limit), e.Limit)
}

// Unwrap makes every TooLargeError match ErrTooLarge.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// Size formats a byte count for messages: "16 MiB", "1 TiB", "1500 bytes".
func Size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// CapReader reads at most Limit bytes of an input: one byte more fails the
// read with a *TooLargeError (the bytes are counted as they stream, inflated
// bytes for a zip entry, so a cap holds whatever the headers say).
type CapReader struct {
	r    io.Reader
	c    io.Closer
	n    int64
	lim  TooLargeError
	fail bool
}

// Cap wraps r. A limit <= 0 means no cap. Closing the CapReader closes r
// when r is an io.Closer.
func Cap(r io.Reader, limit int64, name, what string) *CapReader {
	c, _ := r.(io.Closer)
	return &CapReader{r: r, c: c, lim: TooLargeError{Name: name, What: what, Limit: limit}}
}

// Read reads from the input, failing once it passes the cap.
func (c *CapReader) Read(p []byte) (int, error) {
	if c.fail {
		return 0, c.err()
	}
	if c.lim.Limit > 0 {
		// ask for at most one byte past the cap: a huge buffer must not
		// read far beyond it
		if left := c.lim.Limit - c.n + 1; int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.lim.Limit > 0 && c.n > c.lim.Limit {
		c.fail = true
		return 0, c.err()
	}
	return n, err
}

func (c *CapReader) err() error {
	e := c.lim
	return &e
}

// N is the number of bytes read so far.
func (c *CapReader) N() int64 { return c.n }

// Close closes the input if it can be closed.
func (c *CapReader) Close() error {
	if c.c == nil {
		return nil
	}
	return c.c.Close()
}

// OpenEntry opens a zip entry for reading under a cap: an entry that
// declares more than limit bytes is refused before it is read, one that
// inflates past limit (or past its declared size: ErrSizeMismatch) fails as
// it streams. name locates the entry in errors ("data.zip!meta.xml").
func OpenEntry(f *zip.File, limit int64, name, what string) (io.ReadCloser, error) {
	if limit > 0 && f.UncompressedSize64 > uint64(limit) {
		return nil, &TooLargeError{Name: name, What: what + " (declared size)", Limit: limit}
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return Cap(Declared(rc, int64(f.UncompressedSize64), name), limit, name, what), nil
}

// Declared turns what archive/zip reports when an entry's data disagrees
// with its declared size (ErrFormat once it inflates past it,
// io.ErrUnexpectedEOF when it ends short) into errors that say so, naming
// the entry; the first stays (archive/zip would go on reading). r reads the
// entry; closing the result closes r.
func Declared(r io.ReadCloser, declared int64, name string) io.ReadCloser {
	return &declaredReader{r: r, declared: declared, name: name}
}

type declaredReader struct {
	r        io.ReadCloser
	declared int64
	name     string
	err      error
}

func (d *declaredReader) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.r.Read(p)
	switch {
	case errors.Is(err, zip.ErrFormat):
		d.err = fmt.Errorf("%w: %s inflates past the %d bytes its header declares", ErrSizeMismatch, d.name, d.declared)
		return n, d.err
	case errors.Is(err, io.ErrUnexpectedEOF):
		d.err = fmt.Errorf("%s: data ends before the %d bytes its header declares: %w", d.name, d.declared, err)
		return n, d.err
	}
	return n, err
}

func (d *declaredReader) Close() error { return d.r.Close() }
