// Package avro writes Avro object container files whose blocks are deflated
// in parallel, and encodes values in Avro's binary form.
//
// It is written by hand. The Go Avro libraries the module proxy serves
// (twmb/avro v1.9.1, which arrow-go reads Avro with, and hamba/avro
// v2.31.0) compress a container's blocks one after another in the goroutine
// that writes the records, with compress/flate. A download encodes Arrow columns
// straight into Avro's binary form and needs the blocks deflated on several
// goroutines with klauspost/compress, as internal/pzip deflates zip
// entries: each block of a container is its own deflate stream, so blocks
// compress independently and are written in order.
//
// The container follows the Avro 1.11 specification: the magic "Obj\x01",
// a metadata map (avro.schema, avro.codec "deflate") and a random 16-byte
// sync marker; then blocks of a record count, the compressed size, the raw
// deflate data (RFC 1951) and the marker. Memory is bounded by about
// 2 x (2 x Workers + 1) x BlockBytes.
package avro

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
)

// Defaults for Options fields left zero.
const (
	DefaultLevel      = 5
	DefaultBlockBytes = 1 << 20
)

// ErrClosed is returned by a Writer used after Close or Abort.
var ErrClosed = errors.New("avro: writer closed")

// Options configure a Writer. Zero values take the defaults.
type Options struct {
	// Workers is the number of goroutines deflating blocks; 0 means
	// GOMAXPROCS.
	Workers int
	// Level is the klauspost/compress flate level (1..9); 0 means
	// DefaultLevel.
	Level int
	// BlockBytes closes a block once its encoded records reach this size;
	// 0 means DefaultBlockBytes.
	BlockBytes int
}

// Writer writes one object container file. Records are appended to the
// open block's buffer (Buffer, then Commit); it is not safe for concurrent
// use.
type Writer struct {
	out     io.Writer
	opts    Options
	sync    [16]byte
	jobs    chan *block
	workers sync.WaitGroup
	free    []*block
	pending []*block
	fill    *block
	err     error
	closed  bool
}

type block struct {
	data  []byte // encoded records
	count int64
	out   bytes.Buffer // deflated
	err   error
	done  chan struct{}
}

// NewWriter writes the container's header for schema (Avro's JSON schema
// text) to w and returns the Writer for its records. It does not close w.
func NewWriter(w io.Writer, schema string, opts Options) (*Writer, error) {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Level == 0 {
		opts.Level = DefaultLevel
	}
	if opts.Level < flate.HuffmanOnly || opts.Level > flate.BestCompression {
		return nil, fmt.Errorf("avro: compression level %d out of range", opts.Level)
	}
	if opts.BlockBytes <= 0 {
		opts.BlockBytes = DefaultBlockBytes
	}
	aw := &Writer{out: w, opts: opts, jobs: make(chan *block, 2*opts.Workers+1)}
	if _, err := rand.Read(aw.sync[:]); err != nil {
		return nil, fmt.Errorf("avro: sync marker: %w", err)
	}
	if err := aw.write(aw.header(schema)); err != nil {
		return nil, fmt.Errorf("avro: header: %w", err)
	}
	for range opts.Workers {
		aw.workers.Go(aw.work)
	}
	return aw, nil
}

// header is the magic, the metadata map and the sync marker.
func (aw *Writer) header(schema string) []byte {
	h := []byte("Obj\x01")
	h = AppendLong(h, 2) // one block of two map entries
	h = AppendString(h, "avro.codec")
	h = AppendString(h, "deflate")
	h = AppendString(h, "avro.schema")
	h = AppendString(h, schema)
	h = AppendLong(h, 0)
	return append(h, aw.sync[:]...)
}

func (aw *Writer) write(p []byte) error {
	_, err := aw.out.Write(p)
	return err
}

// Buffer returns the open block's encoded records; append one record's
// encoding to it and pass the result to Commit.
func (aw *Writer) Buffer() []byte {
	if aw.fill == nil {
		aw.fill = aw.acquire()
	}
	return aw.fill.data
}

// Commit takes the buffer Buffer returned with one more record appended.
func (aw *Writer) Commit(buf []byte) error {
	if aw.err != nil {
		return aw.err
	}
	if aw.closed {
		return ErrClosed
	}
	aw.fill.data = buf
	aw.fill.count++
	if len(buf) >= aw.opts.BlockBytes {
		return aw.dispatch()
	}
	return nil
}

func (aw *Writer) acquire() *block {
	if n := len(aw.free); n > 0 {
		b := aw.free[n-1]
		aw.free = aw.free[:n-1]
		b.data, b.count = b.data[:0], 0
		return b
	}
	return &block{data: make([]byte, 0, aw.opts.BlockBytes+aw.opts.BlockBytes/4), done: make(chan struct{}, 1)}
}

// dispatch sends the open block to the workers, first writing finished
// blocks while too many are in flight.
func (aw *Writer) dispatch() error {
	b := aw.fill
	aw.fill = nil
	for len(aw.pending) >= 2*aw.opts.Workers {
		if err := aw.writeOldest(); err != nil {
			return err
		}
	}
	aw.pending = append(aw.pending, b)
	aw.jobs <- b
	return nil
}

// writeOldest waits for the oldest block in flight and writes it.
func (aw *Writer) writeOldest() error {
	b := aw.pending[0]
	aw.pending = aw.pending[1:]
	<-b.done
	if b.err != nil {
		return aw.fail(b.err)
	}
	var head []byte
	head = AppendLong(head, b.count)
	head = AppendLong(head, int64(b.out.Len()))
	for _, p := range [][]byte{head, b.out.Bytes(), aw.sync[:]} {
		if err := aw.write(p); err != nil {
			return aw.fail(err)
		}
	}
	aw.free = append(aw.free, b)
	return nil
}

func (aw *Writer) work() {
	var fw *flate.Writer
	for b := range aw.jobs {
		b.out.Reset()
		if fw == nil {
			fw, b.err = flate.NewWriter(&b.out, aw.opts.Level)
		} else {
			fw.Reset(&b.out)
		}
		if b.err == nil {
			_, b.err = fw.Write(b.data)
		}
		if b.err == nil {
			b.err = fw.Close()
		}
		b.done <- struct{}{}
	}
}

func (aw *Writer) fail(err error) error {
	if aw.err == nil {
		aw.err = fmt.Errorf("avro: %w", err)
	}
	return aw.err
}

// Close writes the open block and the blocks in flight and stops the
// workers. It does not close the underlying writer.
func (aw *Writer) Close() error {
	if aw.closed {
		return aw.err
	}
	var err error
	if aw.err == nil && aw.fill != nil && aw.fill.count > 0 {
		err = aw.dispatch()
	}
	for err == nil && aw.err == nil && len(aw.pending) > 0 {
		err = aw.writeOldest()
	}
	aw.stop()
	if err == nil {
		err = aw.err
	}
	aw.err = ErrClosed
	return err
}

// Abort stops the workers without writing what is left; what was written
// is not a complete container.
func (aw *Writer) Abort() {
	if aw.closed {
		return
	}
	aw.stop()
	if aw.err == nil {
		aw.err = ErrClosed
	}
}

func (aw *Writer) stop() {
	aw.closed = true
	close(aw.jobs)
	aw.workers.Wait()
}

// AppendLong appends v in Avro's long encoding (zig-zag, then a varint);
// ints are encoded the same way.
func AppendLong(dst []byte, v int64) []byte {
	return binary.AppendUvarint(dst, uint64(v<<1)^uint64(v>>63))
}

// AppendString appends s as Avro string (or bytes): its length, then its
// bytes.
func AppendString(dst []byte, s string) []byte {
	return append(AppendLong(dst, int64(len(s))), s...)
}

// AppendBytes appends b as Avro bytes.
func AppendBytes(dst, b []byte) []byte {
	return append(AppendLong(dst, int64(len(b))), b...)
}

// AppendDouble appends v as Avro double (IEEE 754, little-endian).
func AppendDouble(dst []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
}

// AppendBool appends v as Avro boolean (one byte).
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}
