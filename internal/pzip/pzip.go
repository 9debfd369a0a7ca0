// Package pzip writes ZIP archives to a stream, deflating large entries in
// parallel.
//
// An entry's data is cut into chunks; each chunk is compressed by a worker as
// raw deflate that ends with a sync flush and no final block. The compressed
// chunks are written in order, one empty final block closes the stream, the
// chunks' CRC-32s are combined and their lengths summed. The result is one
// ordinary deflate stream any unzip reads. Memory is bounded by
// Workers x ChunkSize. Sizes are not known up front, so every entry has a data
// descriptor; zip64 records are written whenever a size, an offset or the
// entry count needs them. The writer never seeks and never closes the
// underlying writer.
package pzip

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/flate"
)

// Defaults for Options fields left zero.
const (
	DefaultLevel     = 5
	DefaultChunkSize = 1 << 20
	minChunkSize     = 4 << 10
)

// Errors returned by the Writer.
var (
	ErrClosed    = errors.New("pzip: writer closed")
	ErrEntryOpen = errors.New("pzip: previous entry still being written")
	ErrName      = errors.New("pzip: invalid entry name")
)

// Options configure a Writer. Zero values take the defaults.
type Options struct {
	// Workers is the number of goroutines deflating chunks; 0 means GOMAXPROCS.
	Workers int
	// Level is the klauspost/compress flate level (1..9); 0 means DefaultLevel.
	Level int
	// ChunkSize is the uncompressed size of a chunk; 0 means DefaultChunkSize.
	ChunkSize int
}

func (o Options) withDefaults() (Options, error) {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if o.Level < flate.HuffmanOnly || o.Level > flate.BestCompression {
		return o, fmt.Errorf("pzip: compression level %d out of range", o.Level)
	}
	if o.ChunkSize == 0 {
		o.ChunkSize = DefaultChunkSize
	}
	o.ChunkSize = max(o.ChunkSize, minChunkSize)
	return o, nil
}

// FileHeader describes an entry to create.
type FileHeader struct {
	Name     string
	Modified time.Time // zero means the Writer's creation time
	// Stored writes the data uncompressed (method 0) instead of deflated.
	Stored bool
	// Zip64 announces a zip64 entry in the local header, for entries the
	// caller expects to exceed 4 GiB and wants streaming readers to handle.
	// Without it, 8-byte descriptor sizes are used only when needed.
	Zip64 bool
}

// Writer writes a ZIP archive to an io.Writer. It is not safe for concurrent
// use; only one entry is open at a time (like archive/zip).
type Writer struct {
	out     *countWriter
	bw      *bufio.Writer
	opts    Options
	created time.Time

	jobs    chan *job
	workers sync.WaitGroup
	free    []*job
	jobsMax int
	jobsNew int

	entries []*entry
	names   map[string]bool
	cur     *entryWriter
	err     error
	closed  bool
}

// NewWriter returns a Writer writing to w with the given options.
func NewWriter(w io.Writer, opts Options) (*Writer, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	cw := &countWriter{w: w}
	zw := &Writer{
		out:     cw,
		bw:      bufio.NewWriterSize(cw, 64<<10),
		opts:    opts,
		created: time.Now(),
		jobs:    make(chan *job, 2*opts.Workers+1), // never blocks the producer below jobsMax
		jobsMax: 2*opts.Workers + 1,
		names:   map[string]bool{},
	}
	for range opts.Workers {
		zw.workers.Add(1)
		go zw.work()
	}
	return zw, nil
}

// Written returns the number of archive bytes handed to the underlying writer
// plus those buffered for it.
func (zw *Writer) Written() int64 { return zw.out.n + int64(zw.bw.Buffered()) }

// Create adds a deflated entry named name and returns a writer for its data.
// The entry ends when the next entry is created or the archive is closed.
func (zw *Writer) Create(name string) (io.Writer, error) {
	return zw.CreateHeader(&FileHeader{Name: name})
}

// CreateHeader adds an entry described by fh.
func (zw *Writer) CreateHeader(fh *FileHeader) (io.Writer, error) {
	method := Deflate
	if fh.Stored {
		method = Store
	}
	e, err := zw.startEntry(fh, method)
	if err != nil {
		return nil, err
	}
	e.zip64Local = fh.Zip64
	if _, err := zw.bw.Write(e.localHeader()); err != nil {
		return nil, zw.fail(err)
	}
	zw.cur = &entryWriter{zw: zw, e: e, out: zw.bw}
	return zw.cur, nil
}

// startEntry finishes the open entry, checks the name and returns the new
// entry's record, positioned at the current offset.
func (zw *Writer) startEntry(fh *FileHeader, method uint16) (*entry, error) {
	if err := zw.finishEntry(); err != nil {
		return nil, err
	}
	if err := checkName(fh.Name); err != nil {
		return nil, err
	}
	if zw.names[fh.Name] {
		return nil, fmt.Errorf("%w: duplicate name %q", ErrName, fh.Name)
	}
	zw.names[fh.Name] = true
	mod := fh.Modified
	if mod.IsZero() {
		mod = zw.created
	}
	e := &entry{
		name:     fh.Name,
		method:   method,
		flags:    flagDescriptor,
		modified: mod,
		offset:   uint64(zw.Written()),
	}
	if !isASCII(fh.Name) {
		e.flags |= flagUTF8
	}
	return e, nil
}

// Close finishes the open entry, writes the central directory and stops the
// workers. It does not close the underlying writer.
func (zw *Writer) Close() error {
	if zw.closed {
		return zw.err
	}
	err := zw.finishEntry()
	zw.closed = true
	close(zw.jobs)
	zw.workers.Wait()
	if err != nil {
		return err
	}
	dirOffset := uint64(zw.Written())
	for _, e := range zw.entries {
		if _, err := zw.bw.Write(e.centralHeader()); err != nil {
			return zw.fail(err)
		}
	}
	dirSize := uint64(zw.Written()) - dirOffset
	if _, err := zw.bw.Write(endRecords(uint64(len(zw.entries)), dirOffset, dirSize)); err != nil {
		return zw.fail(err)
	}
	if err := zw.bw.Flush(); err != nil {
		return zw.fail(err)
	}
	zw.err = ErrClosed
	return nil
}

// Abort stops the workers without finishing the archive: nothing more is
// written and what was written is not a valid zip. Use it when an archive is
// abandoned; Close after Abort returns ErrClosed.
func (zw *Writer) Abort() {
	if zw.closed {
		return
	}
	if zw.cur != nil {
		zw.cur.drain()
		zw.cur = nil
	}
	zw.closed = true
	close(zw.jobs)
	zw.workers.Wait()
	if zw.err == nil {
		zw.err = ErrClosed
	}
}

// fail records the first error; the archive is unusable afterwards.
func (zw *Writer) fail(err error) error {
	if zw.err == nil {
		zw.err = fmt.Errorf("pzip: %w", err)
	}
	return zw.err
}

func (zw *Writer) finishEntry() error {
	if zw.err != nil {
		return zw.err
	}
	if zw.closed {
		return ErrClosed
	}
	if zw.cur == nil {
		return nil
	}
	cur := zw.cur
	zw.cur = nil
	if err := cur.finish(); err != nil {
		return zw.fail(err)
	}
	zw.entries = append(zw.entries, cur.e)
	return nil
}

func checkName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty name", ErrName)
	case len(name) > max16:
		return fmt.Errorf("%w: name longer than 65535 bytes", ErrName)
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: %q is not UTF-8", ErrName, name)
	case strings.HasPrefix(name, "/") || strings.Contains(name, `\`):
		return fmt.Errorf("%w: %q must be a relative path with / separators", ErrName, name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return fmt.Errorf("%w: %q has a \"..\" element", ErrName, name)
		}
	}
	return nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
