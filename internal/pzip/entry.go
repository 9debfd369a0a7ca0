package pzip

import (
	"bytes"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/flate"
)

// finalBlock is an empty fixed-Huffman deflate block with BFINAL set. It ends
// a stream made of sync-flushed chunks.
var finalBlock = []byte{0x03, 0x00}

// job is one chunk travelling to a worker and back. Jobs are recycled, so
// memory stays at jobsMax x (input + output buffers).
type job struct {
	in   []byte
	out  bytes.Buffer
	crc  uint32
	err  error
	done chan struct{}
}

// work deflates chunks until the jobs channel closes.
func (zw *Writer) work() {
	defer zw.workers.Done()
	var fw *flate.Writer
	for j := range zw.jobs {
		j.out.Reset()
		if fw == nil {
			fw, j.err = flate.NewWriter(&j.out, zw.opts.Level)
		} else {
			fw.Reset(&j.out)
		}
		if j.err == nil {
			_, j.err = fw.Write(j.in)
		}
		if j.err == nil {
			j.err = fw.Flush() // sync flush: byte aligned, no final block
		}
		j.crc = crc32.ChecksumIEEE(j.in)
		j.done <- struct{}{}
	}
}

// entryWriter receives an entry's data. Deflated data is cut into chunks sent
// to the workers; finished chunks are written in order by the caller's
// goroutine, so the underlying writer is never used concurrently.
type entryWriter struct {
	zw      *Writer
	e       *entry
	crc     crcCombiner // of the chunks' CRCs into e.crc
	out     io.Writer   // zw.bw, or a spool's temporary writer
	spool   *Spool      // set for spooled data
	fill    *job        // chunk being filled
	pending []*job      // chunks at the workers, in order
}

func (ew *entryWriter) Write(p []byte) (int, error) {
	zw := ew.zw
	if zw.err != nil {
		return 0, zw.err
	}
	if ew.spool == nil && zw.cur != ew || ew.spool != nil && ew.spool.done {
		return 0, ErrEntryOpen
	}
	if ew.e.method == Store {
		return ew.writeStored(p)
	}
	n := len(p)
	if j := ew.fill; j != nil && len(p) > 0 && len(p) <= cap(j.in)-len(j.in) && &p[0] == &j.in[:len(j.in)+1][len(j.in)] {
		// p was built in place, in the chunk's free space (AvailableBuffer).
		j.in = j.in[:len(j.in)+len(p)]
		if len(j.in) == zw.opts.ChunkSize {
			if err := ew.dispatch(); err != nil {
				return 0, zw.fail(err)
			}
		}
		return n, nil
	}
	for len(p) > 0 {
		if ew.fill == nil {
			j, err := ew.acquire()
			if err != nil {
				return n - len(p), zw.fail(err)
			}
			ew.fill = j
		}
		k := min(len(p), zw.opts.ChunkSize-len(ew.fill.in))
		ew.fill.in = append(ew.fill.in, p[:k]...)
		p = p[k:]
		if len(ew.fill.in) == zw.opts.ChunkSize {
			if err := ew.dispatch(); err != nil {
				return n - len(p), zw.fail(err)
			}
		}
	}
	return n, nil
}

// AvailableBuffer returns an empty buffer over the free space of the chunk
// being filled, as bufio.Writer's does: bytes appended to it and passed to
// the immediately following Write are taken in place, not copied. It returns nil when the
// entry is stored rather than deflated or the writer has failed (append to
// nil works as well, with a copy).
func (ew *entryWriter) AvailableBuffer() []byte {
	zw := ew.zw
	if zw.err != nil || ew.e.method != Deflate || ew.spool == nil && zw.cur != ew || ew.spool != nil && ew.spool.done {
		return nil
	}
	if ew.fill == nil {
		j, err := ew.acquire()
		if err != nil {
			zw.fail(err)
			return nil
		}
		ew.fill = j
	}
	in := ew.fill.in
	return in[len(in):len(in):zw.opts.ChunkSize]
}

func (ew *entryWriter) writeStored(p []byte) (int, error) {
	n, err := ew.out.Write(p)
	ew.e.crc = crc32.Update(ew.e.crc, crc32.IEEETable, p[:n])
	ew.e.size += uint64(n)
	ew.e.compressed += uint64(n)
	if err != nil {
		return n, ew.zw.fail(err)
	}
	return n, nil
}

// acquire returns an empty job, recycling the oldest pending one when the
// in-flight limit is reached.
func (ew *entryWriter) acquire() (*job, error) {
	zw := ew.zw
	if k := len(zw.free); k > 0 {
		j := zw.free[k-1]
		zw.free = zw.free[:k-1]
		j.in = j.in[:0]
		return j, nil
	}
	// A writer with nothing in flight may always get a job, so several open
	// spools never wait on each other; total jobs stay below jobsMax plus
	// the number of open writers.
	if zw.jobsNew < zw.jobsMax || len(ew.pending) == 0 {
		zw.jobsNew++
		return &job{in: make([]byte, 0, zw.opts.ChunkSize), done: make(chan struct{}, 1)}, nil
	}
	if err := ew.writeHead(); err != nil {
		return nil, err
	}
	return ew.acquire()
}

// dispatch hands the filled chunk to a worker and writes out any chunks that
// are already done.
func (ew *entryWriter) dispatch() error {
	j := ew.fill
	ew.fill = nil
	ew.zw.jobs <- j
	ew.pending = append(ew.pending, j)
	for len(ew.pending) > 0 {
		select {
		case <-ew.pending[0].done:
			if err := ew.emit(); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// writeHead waits for the oldest pending chunk and writes it.
func (ew *entryWriter) writeHead() error {
	<-ew.pending[0].done
	return ew.emit()
}

// emit writes the oldest pending chunk, whose done signal was received,
// folds its CRC and sizes into the entry and recycles it.
func (ew *entryWriter) emit() error {
	j := ew.pending[0]
	ew.pending = ew.pending[1:]
	defer func() { ew.zw.free = append(ew.zw.free, j) }()
	if j.err != nil {
		return j.err
	}
	if _, err := ew.out.Write(j.out.Bytes()); err != nil {
		return err
	}
	e := ew.e
	e.crc = ew.crc.combine(e.crc, j.crc, int64(len(j.in)))
	e.size += uint64(len(j.in))
	e.compressed += uint64(j.out.Len())
	return nil
}

// finish flushes the last chunk, waits for all chunks, ends the deflate
// stream and writes the data descriptor.
func (ew *entryWriter) finish() error {
	if err := ew.finishData(); err != nil {
		return err
	}
	_, err := ew.out.Write(ew.e.descriptor())
	return err
}

// finishData flushes the last chunk, waits for all chunks and ends the
// deflate stream.
func (ew *entryWriter) finishData() error {
	if ew.e.method == Deflate {
		if ew.fill != nil && len(ew.fill.in) > 0 {
			if err := ew.dispatch(); err != nil {
				ew.drain()
				return err
			}
		} else if ew.fill != nil {
			ew.zw.free = append(ew.zw.free, ew.fill)
			ew.fill = nil
		}
		for len(ew.pending) > 0 {
			if err := ew.writeHead(); err != nil {
				ew.drain()
				return err
			}
		}
		if _, err := ew.out.Write(finalBlock); err != nil {
			return err
		}
		ew.e.compressed += uint64(len(finalBlock))
	}
	return nil
}

// drain waits for chunks still at the workers after an error, so none is
// left writing into a recycled buffer.
func (ew *entryWriter) drain() {
	for _, j := range ew.pending {
		<-j.done
		ew.zw.free = append(ew.zw.free, j)
	}
	ew.pending = nil
}
