package download

import (
	"runtime"
	"sync/atomic"

	"github.com/biodiversity-downloads/downloader/dwca"
)

// rowFn appends row i of the batch being written, its line end included.
type rowFn func(buf []byte, i int) []byte

// Row assembly is the part of an export that ran on one goroutine (the
// scan and the deflate have their own). rowHalves shares a batch's rows
// with a second goroutine: the rows are cut into pieces of halvesPiece
// rows; the calling goroutine takes pieces from the front and builds them
// in the TextWriter's buffer (the compressor's chunk, no copy), a helper
// goroutine takes pieces from the back into buffers of its own, and where
// they meet the helper's pieces are appended in order. Neither waits for
// the other but for the piece the helper is building when they meet: on a
// busy machine, where the helper may not run at all, the calling goroutine
// simply builds every piece. The text is the same as one goroutine's.
var (
	// minHalvesRows is the smallest batch shared: below it the hand-over
	// costs more than it saves. A variable for the tests.
	minHalvesRows = 128
	// halvesPiece is the rows of a piece. A variable for the tests.
	halvesPiece = 64
)

// rowHalves shares the rows of each batch between the calling goroutine
// and a helper (see above).
type rowHalves struct {
	pieces [][]byte // the helper's pieces' text, by piece
}

func newRowHalves() *rowHalves { return &rowHalves{} }

// rowShare is one batch's pieces: front<<32 | back, pieces [front, back)
// not yet taken.
type rowShare struct {
	state atomic.Uint64
	done  chan struct{} // the helper took its last piece and built it
}

// take claims the front piece (front) or the back one; false when none is
// left.
func (s *rowShare) take(front bool) (int, bool) {
	for {
		st := s.state.Load()
		f, b := int(st>>32), int(st&0xffffffff)
		if f >= b {
			return 0, false
		}
		next, p := uint64(f+1)<<32|uint64(b), f
		if !front {
			next, p = uint64(f)<<32|uint64(b-1), b-1
		}
		if s.state.CompareAndSwap(st, next) {
			return p, true
		}
	}
}

// write writes rows 0..n-1 to rw: first formats rows on the calling
// goroutine, second (a formatter of its own, sharing no state with first)
// on the helper.
func (h *rowHalves) write(rw *dwca.TextWriter, n int, first, second rowFn) error {
	if n < minHalvesRows || runtime.GOMAXPROCS(0) < 2 {
		return writeRows(rw, 0, n, first)
	}
	count := (n + halvesPiece - 1) / halvesPiece
	for len(h.pieces) < count {
		h.pieces = append(h.pieces, nil)
	}
	s := &rowShare{done: make(chan struct{}, 1)}
	s.state.Store(uint64(count))
	pieces := h.pieces
	go func() {
		defer func() { s.done <- struct{}{} }()
		for {
			p, ok := s.take(false)
			if !ok {
				return
			}
			buf := pieces[p][:0]
			for i := p * halvesPiece; i < min(n, (p+1)*halvesPiece); i++ {
				buf = second(buf, i)
			}
			pieces[p] = buf
		}
	}()
	var err error
	for {
		p, ok := s.take(true)
		if !ok {
			break
		}
		if err == nil {
			err = writeRows(rw, p*halvesPiece, min(n, (p+1)*halvesPiece), first)
		}
	}
	// The helper's pieces are those from the meeting point on; wait for
	// it only when it took some.
	from := int(s.state.Load() >> 32)
	if from == count {
		return err
	}
	<-s.done
	for _, piece := range pieces[from:count] {
		if err == nil {
			err = rw.AppendRows(piece)
		}
	}
	return err
}

// writeRows writes rows lo..hi-1 to rw, built in its buffer.
func writeRows(rw *dwca.TextWriter, lo, hi int, row rowFn) error {
	buf := rw.Rows()
	var err error
	for i := lo; i < hi; i++ {
		if buf, err = rw.SetRows(row(buf, i)); err != nil {
			return err
		}
	}
	return nil
}

// shareRows calls fn(lo, hi) for pieces of rows 0..n-1, the calling
// goroutine taking pieces from the front and a helper from the back, as
// rowHalves shares a batch (rowShare); it returns when every piece is
// done. fn must be safe to run on two pieces at once.
func shareRows(n int, fn func(lo, hi int)) {
	if n < minHalvesRows || runtime.GOMAXPROCS(0) < 2 {
		fn(0, n)
		return
	}
	count := (n + halvesPiece - 1) / halvesPiece
	s := &rowShare{done: make(chan struct{}, 1)}
	s.state.Store(uint64(count))
	piece := func(front bool) bool {
		p, ok := s.take(front)
		if ok {
			fn(p*halvesPiece, min(n, (p+1)*halvesPiece))
		}
		return ok
	}
	go func() {
		defer func() { s.done <- struct{}{} }()
		for piece(false) {
		}
	}()
	for piece(true) {
	}
	if int(s.state.Load()>>32) < count {
		<-s.done // the helper took pieces: wait for its last
	}
}
