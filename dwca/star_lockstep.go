package dwca

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
	"io"
)

// Lockstep join: extensions written in core order are read alongside the
// core, each core row taking the extension rows that follow with its id. No
// temporary files are written and only one core row's extension rows are
// held. GBIF's downloads are written so (occurrence.txt, then verbatim.txt,
// multimedia.txt and the verbatim extensions, row for row in the same
// order), and a download is the archive users most often ingest again.
//
// inCoreOrder checks the order first, reading the ids of the core and of
// those extensions once: the non-empty core ids must be unique (their 64-bit
// hashes are sorted, in memory under half the join budget, else in runs of
// ~14 bytes a core row counted by Limits.SpillBytes; a collision only costs
// the fallback), and each
// extension's rows must come in runs of one coreid following the core's
// order, with no row whose coreid matches no core row (rows without a coreid
// are orphans either way). Otherwise the disk join runs, so both give the
// same records, broken rows and orphans.

// rowPeeker reads rows one ahead; broken rows go to broken.
type rowPeeker struct {
	rr     *RowReader
	ahead  *rowsAhead // rr's rows read on a goroutine of their own, or nil
	cur    rowOrErr   // the row peek returned
	ok     bool       // cur is the next row, not yet taken
	eof    bool
	broken func(*RowError)
}

// next is rr.Next, through ahead when rows are read ahead.
func (p *rowPeeker) next() rowOrErr {
	if p.ahead != nil {
		return p.ahead.next()
	}
	row, err := p.rr.Next()
	return rowOrErr{row: row, err: err}
}

// peek returns the next row without taking it; ok is false at the end.
func (p *rowPeeker) peek() (row Row, ok bool, err error) {
	if p.ok || p.eof {
		return p.cur.row, p.ok, nil
	}
	for {
		x := p.next()
		err := x.err
		if err == io.EOF {
			p.eof = true
			return Row{}, false, nil
		}
		if err != nil {
			var re *RowError
			if errors.As(err, &re) {
				p.broken(re)
				continue
			}
			return Row{}, false, err
		}
		p.cur, p.ok = x, true
		return x.row, true, nil
	}
}

// take consumes the row peek returned.
func (p *rowPeeker) take() { p.ok, p.cur = false, rowOrErr{} }

// prepareExtRow is a rowsAhead prep for ej: what stepRows keeps of a row,
// computed on the reading goroutine.
func prepareExtRow(ej *extJoin) func(*rowOrErr) {
	return func(x *rowOrErr) {
		x.source = ej.source(x.row)
		x.size = encodedLen(x.source, x.row)
		x.terms = x.row.Terms()
		x.prepared = true
	}
}

func (p *rowPeeker) close() {
	if p.ahead != nil {
		p.ahead.close()
	}
	if p.rr != nil {
		p.rr.Close()
	}
}

// openPeekers opens a rowPeeker on each extension, whose rows hold their
// ids only when idsOnly is set (RowReader.idsOnly); whole rows are read
// ahead on a goroutine per extension (rowsAhead).
func (s *StarReader) openPeekers(exts []*extJoin, idsOnly bool, broken func(*RowError)) ([]*rowPeeker, error) {
	ps := make([]*rowPeeker, 0, len(exts))
	for _, ej := range exts {
		rr, err := s.a.Rows(s.ctx, *ej.spec)
		if err != nil {
			for _, p := range ps {
				p.close()
			}
			return nil, err
		}
		rr.idsOnly = idsOnly
		p := &rowPeeker{rr: rr, broken: broken}
		if !idsOnly {
			p.ahead = readAhead(rr, prepareExtRow(ej))
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// inCoreOrder reports whether exts can be joined in lockstep with the core.
func (s *StarReader) inCoreOrder(exts []*extJoin) (bool, error) {
	ignore := func(*RowError) {}
	// the check reads the ids alone: copying every row of the archive
	// made half of what the ingest of a DWCA download allocated
	ps, err := s.openPeekers(exts, true, ignore)
	if err != nil {
		return false, err
	}
	defer func() {
		for _, p := range ps {
			p.close()
		}
	}()
	if err := s.startSpill(); err != nil {
		return false, err
	}
	ids := s.newSorter(s.a.opts.JoinBudget / 2)
	defer ids.close()
	seed := maphash.MakeSeed()
	var pos uint64
	err = s.forEachRowOf(s.a.Meta.Core, true, ignore, func(row Row) error {
		id := row.ID()
		if id == "" {
			return nil
		}
		pos++
		var h [8]byte
		binary.BigEndian.PutUint64(h[:], maphash.String(seed, id))
		if err := ids.add(string(h[:]), pos, nil); err != nil {
			return err
		}
		for _, p := range ps {
			if _, err := p.skip(id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	for _, p := range ps {
		// after the last core row only rows without a coreid may be left
		if rest, err := p.skip(""); err != nil || rest {
			return false, err
		}
	}
	it, err := ids.iter()
	if err != nil {
		return false, err
	}
	defer it.close()
	prev := "" // no key: each is 8 bytes
	for {
		x, ok, err := it.next()
		if err != nil || !ok {
			return err == nil, err
		}
		if x.key == prev {
			return false, nil // a repeated core id
		}
		prev = x.key
	}
}

// skip takes the rows with coreid id or none, and reports whether a row
// with another coreid follows.
func (p *rowPeeker) skip(id string) (more bool, err error) {
	for {
		row, ok, err := p.peek()
		if err != nil || !ok {
			return false, err
		}
		if rid := row.ID(); rid != "" && rid != id {
			return true, nil
		}
		p.take()
	}
}

// lockstepJoin streams the core with the extensions exts in lockstep.
func (s *StarReader) lockstepJoin(exts []*extJoin) error {
	ps, err := s.openPeekers(exts, false, s.addBroken)
	if err != nil {
		return err
	}
	for i, ej := range exts {
		ej.step = ps[i]
	}
	s.stepping = exts
	s.core, err = s.a.Rows(s.ctx, s.a.Meta.Core)
	if s.core != nil {
		s.core.reuseCells = true // fill is done with a row before the next
	}
	return err
}

// stepRows takes the rows of core id id from the lockstep extensions. When
// they pass Limits.RecordBytes the rest are taken unread and tooBig is set.
func (s *StarReader) stepRows(id string) (rows map[*extJoin][]extRow, tooBig bool, err error) {
	var size int64
	for _, ej := range s.stepping {
		for {
			row, ok, err := ej.step.peek()
			if err != nil {
				return nil, false, err
			}
			if !ok {
				break
			}
			rid := row.ID()
			if rid != "" && rid != id {
				break
			}
			x := ej.step.cur
			ej.step.take()
			if rid == "" {
				s.orphans++
				continue
			}
			if tooBig {
				continue
			}
			if !x.prepared {
				x.source = ej.source(row)
				x.size = encodedLen(x.source, row)
			}
			if size += x.size; size > s.a.opts.Limits.RecordBytes {
				tooBig, rows = true, nil
				continue
			}
			if rows == nil {
				rows = make(map[*extJoin][]extRow, len(s.stepping))
			}
			if !x.prepared {
				x.terms = row.Terms()
			}
			rows[ej] = append(rows[ej], extRow{terms: x.terms, source: x.source})
		}
	}
	return rows, tooBig, nil // rows is nil when tooBig
}

// stepEnd counts the lockstep extensions' rows left after the last core row
// as orphans.
func (s *StarReader) stepEnd() error {
	for _, ej := range s.stepping {
		for {
			_, ok, err := ej.step.peek()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			ej.step.take()
			s.orphans++
		}
	}
	s.stepping = nil
	return nil
}

// encodedLen is len(appendRow(nil, source, row)) without encoding the row:
// the size Limits.RecordBytes counts whichever join runs.
func encodedLen(source string, row Row) int64 {
	n := stringLen(source) + uvarintLen(uint64(row.nonEmpty()))
	for i := range row.spec.Fields {
		if v := row.Value(i); v != "" {
			n += uvarintLen(uint64(i)) + stringLen(v)
		}
	}
	return int64(n)
}

func stringLen(s string) int { return uvarintLen(uint64(len(s))) + len(s) }

func uvarintLen(v uint64) int {
	var b [binary.MaxVarintLen64]byte
	return len(binary.AppendUvarint(b[:0], v))
}
