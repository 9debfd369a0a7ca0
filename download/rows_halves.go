package download

import (
	"runtime"

	"github.com/biodiversity-downloads/downloader/dwca"
)

// rowFn appends row i of the batch being written, its line end included.
type rowFn func(buf []byte, i int) []byte

// minHalvesRows is the smallest batch whose rows rowHalves splits
// between two goroutines: below it the hand-over costs more than it saves.
// A variable for the tests.
var minHalvesRows = 64

// rowHalves formats a batch's rows on two goroutines: row assembly is the
// part of an export that runs on one goroutine (the scan and the deflate
// have their own), so that it would otherwise bound the export's speed on
// a machine with cores to spare. The first half of the rows is built on
// the calling goroutine in the TextWriter's buffer (the compressor's chunk,
// no copy); the second half at the same time on another goroutine in a
// buffer of its own, appended after the first. The text is the same as one
// goroutine's.
type rowHalves struct {
	side []byte        // the second half's rows
	done chan struct{} // the second half is built
}

func newRowHalves() *rowHalves { return &rowHalves{done: make(chan struct{}, 1)} }

// write writes rows 0..n-1 to rw: first formats rows on the calling
// goroutine, second (a formatter of its own, sharing no state with first)
// on another one.
func (h *rowHalves) write(rw *dwca.TextWriter, n int, first, second rowFn) error {
	if n < minHalvesRows || runtime.GOMAXPROCS(0) < 2 {
		return writeRows(rw, 0, n, first)
	}
	mid := n / 2
	go func() {
		buf := h.side[:0]
		for i := mid; i < n; i++ {
			buf = second(buf, i)
		}
		h.side = buf
		h.done <- struct{}{}
	}()
	err := writeRows(rw, 0, mid, first)
	<-h.done
	if err != nil {
		return err
	}
	return rw.AppendRows(h.side)
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
