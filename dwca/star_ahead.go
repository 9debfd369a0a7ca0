package dwca

import (
	"errors"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Rows read ahead: a lockstep extension's rows (verbatim.txt of a GBIF
// download holds as much text as its core) are read and parsed on a
// goroutine of their own, a few batches ahead of the star join, which then
// only takes them. Rows, broken rows and errors come out in the order the
// RowReader gave them, so broken rows are reported where they were before.

const (
	// aheadRows and aheadBytes end a batch; aheadBatches bounds how many
	// wait for the join: at most aheadBatches+2 batches (one being read,
	// one being taken) of aheadBytes and one row are held.
	aheadRows    = 256
	aheadBytes   = 1 << 20
	aheadBatches = 4
)

// errAheadClosed is what a closed rowsAhead answers.
var errAheadClosed = errors.New("dwca: rows read ahead: closed")

// rowOrErr is one result of RowReader.Next, and for a row what the star
// join takes of it when the reading goroutine prepared it (prep).
type rowOrErr struct {
	row Row
	err error
	// prepared is set when source, size and terms hold the extension
	// row's source, encodedLen and Terms.
	prepared bool
	source   string
	size     int64
	terms    occurrence.Terms
}

// rowsAhead reads a RowReader's rows on its own goroutine. The reader's
// rows must not share memory from row to row (not idsOnly, not
// reuseCells), and nothing else may use the reader until close returns.
type rowsAhead struct {
	// prep, when set, is called on the reading goroutine for every row
	// read without an error.
	prep  func(*rowOrErr)
	ch    chan []rowOrErr
	stop  chan struct{}
	done  chan struct{}
	batch []rowOrErr
	i     int
	end   error // the error that ended the rows (io.EOF at the end), once taken
}

func readAhead(rr *RowReader, prep func(*rowOrErr)) *rowsAhead {
	a := &rowsAhead{prep: prep, ch: make(chan []rowOrErr, aheadBatches), stop: make(chan struct{}), done: make(chan struct{})}
	go a.run(rr)
	return a
}

// run reads batches until an error other than a broken row (io.EOF at the
// end) or until stopped.
func (a *rowsAhead) run(rr *RowReader) {
	defer close(a.done)
	defer close(a.ch)
	for {
		batch := make([]rowOrErr, 0, aheadRows)
		size, final := 0, false
		for len(batch) < aheadRows && size < aheadBytes && !final {
			row, err := rr.Next()
			var re *RowError
			final = err != nil && !errors.As(err, &re)
			for _, c := range row.cells {
				size += len(c)
			}
			x := rowOrErr{row: row, err: err}
			if err == nil && a.prep != nil {
				a.prep(&x)
			}
			batch = append(batch, x)
		}
		select {
		case a.ch <- batch:
		case <-a.stop:
			return
		}
		if final {
			return
		}
	}
}

// next returns what the reader's Next returned, in order; after the error
// that ended the rows, that error again.
func (a *rowsAhead) next() rowOrErr {
	for a.i >= len(a.batch) {
		if a.end != nil {
			return rowOrErr{err: a.end}
		}
		b, ok := <-a.ch
		if !ok {
			a.end = errAheadClosed
			return rowOrErr{err: a.end}
		}
		a.batch, a.i = b, 0
	}
	x := a.batch[a.i]
	a.batch[a.i] = rowOrErr{}
	a.i++
	var re *RowError
	if x.err != nil && !errors.As(x.err, &re) {
		a.end = x.err
	}
	return x
}

// close stops the goroutine and waits for it; the reader may then be
// closed.
func (a *rowsAhead) close() {
	close(a.stop)
	<-a.done
	a.batch, a.i = nil, 0
	if a.end == nil {
		a.end = errAheadClosed
	}
}
