package dwca

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
)

// diskJoin joins the extensions in disk with the core through external sorts
// (see the comment at the top of star.go) and leaves s.recIter reading the
// joined records in core-file order.
func (s *StarReader) diskJoin(disk []*extJoin) error {
	per := s.a.opts.JoinBudget / int64(len(disk)+2)
	if err := s.startSpill(); err != nil {
		return err
	}
	for _, ej := range disk {
		ej.sorter = s.newSorter(per)
		if err := s.sortExtension(ej); err != nil {
			return err
		}
		it, err := ej.sorter.iter()
		if err != nil {
			return err
		}
		ej.iter = it
	}
	coreSorter := s.newSorter(per)
	s.records = s.newSorter(per)
	if err := s.sortCore(coreSorter); err != nil {
		return err
	}
	coreIter, err := coreSorter.iter()
	if err != nil {
		return err
	}
	defer coreIter.close()
	if err := s.mergeJoin(coreIter, disk); err != nil {
		return err
	}
	for _, ej := range disk {
		// rows after the last core id are orphans too
		for {
			_, ok, err := ej.iter.next()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			s.orphans++
		}
		ej.iter.close()
		ej.sorter.close()
	}
	coreSorter.close()
	s.recIter, err = s.records.iter()
	return err
}

// startSpill sets the allowance of temporary files (Limits.SpillBytes) that
// the order check and the disk join share.
func (s *StarReader) startSpill() error {
	if s.spill != nil {
		return nil
	}
	limit := s.a.opts.Limits.SpillBytes
	if limit <= 0 {
		data, err := s.a.dataBytes()
		if err != nil {
			return err
		}
		limit = DefaultSpillFactor*data + 1<<30
	}
	s.spill = &spillBudget{left: limit, limit: limit, name: s.a.Path}
	return nil
}

func (s *StarReader) newSorter(budget int64) *extSorter {
	so := newExtSorter(s.a.opts.TempDir, budget)
	so.disk = s.spill
	s.sorters = append(s.sorters, so)
	return so
}

// forEachRow calls fn for every row of spec; broken rows go to broken.
func (s *StarReader) forEachRow(spec FileSpec, broken func(*RowError), fn func(Row) error) error {
	return s.forEachRowOf(spec, false, broken, fn)
}

// forEachRowOf is forEachRow, with rows of their ids only when idsOnly is
// set (RowReader.idsOnly).
func (s *StarReader) forEachRowOf(spec FileSpec, idsOnly bool, broken func(*RowError), fn func(Row) error) error {
	rr, err := s.a.Rows(s.ctx, spec)
	if err != nil {
		return err
	}
	rr.idsOnly = idsOnly
	defer rr.Close()
	for {
		row, err := rr.Next()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			// re escapes to the heap through errors.As: declare it only
			// for an error, not once per row
			var re *RowError
			if errors.As(err, &re) {
				broken(re)
				continue
			}
			return err
		}
		if err := fn(row); err != nil {
			return err
		}
	}
}

// appendRow appends a row's source and values as the sorters carry them: the
// given source, the number of non-empty values, then the field number and
// value of each, in field order (decoder.terms reads them into the map
// Row.Terms would give, with the terms of the same FileSpec: of two fields
// with one term the later non-empty value wins). A field number takes a
// byte or two where the term's URI took ~40 for every value, so the disk
// join writes about twice the data, not seven times (a GBIF download). No map is built for a
// row that is only encoded.
func appendRow(b []byte, source string, row Row) []byte {
	b = appendString(b, source)
	b = binary.AppendUvarint(b, uint64(row.nonEmpty()))
	for i := range row.spec.Fields {
		if v := row.Value(i); v != "" {
			b = binary.AppendUvarint(b, uint64(i))
			b = appendString(b, v)
		}
	}
	return b
}

// sortExtension feeds an extension's rows to its sorter keyed by coreid.
func (s *StarReader) sortExtension(ej *extJoin) error {
	var seq uint64
	return s.forEachRow(*ej.spec, s.addBroken, func(row Row) error {
		id := row.ID()
		if id == "" {
			s.orphans++
			return nil
		}
		seq++
		return ej.sorter.add(id, seq, appendRow(nil, ej.source(row), row))
	})
}

// sortCore feeds the core rows to the sorter keyed by id. Rows without an id
// cannot be joined: they go straight to the record sorter.
func (s *StarReader) sortCore(so *extSorter) error {
	var pos uint64
	return s.forEachRow(s.a.Meta.Core, s.addBroken, func(row Row) error {
		pos++
		id := row.ID()
		if id == "" {
			rec := appendRow(appendString(nil, ""), row.Source(), row)
			return s.records.add("", pos, binary.AppendUvarint(rec, 0))
		}
		return so.add(id, pos, appendRow(nil, row.Source(), row))
	})
}

// mergeJoin walks the core sorted by id together with the sorted extensions
// and adds each joined record to s.records keyed by its core row number. A
// core row whose extension rows pass Limits.RecordBytes is a broken row.
func (s *StarReader) mergeJoin(core *sortIter, disk []*extJoin) error {
	lastID := ""
	first := true
	var group [][]byte // encoded rows of lastID per disk extension
	var tooBig bool
	for {
		c, ok, err := core.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if c.key != lastID || first {
			if group, tooBig, err = s.collect(c.key, disk); err != nil {
				return err
			}
			lastID, first = c.key, false
		}
		if tooBig {
			s.addBroken(s.recordTooLarge(c))
			continue
		}
		rec := appendString(nil, c.key)
		rec = append(rec, c.val...)
		n := 0
		for _, g := range group {
			if g != nil {
				n++
			}
		}
		rec = binary.AppendUvarint(rec, uint64(n))
		for i, g := range group {
			if g != nil {
				rec = binary.AppendUvarint(rec, uint64(disk[i].idx))
				rec = append(rec, g...)
			}
		}
		if err := s.records.add("", c.seq, rec); err != nil {
			return err
		}
	}
}

// recordTooLarge is the broken row of a core row (a sorted core item) whose
// extension rows pass Limits.RecordBytes.
func (s *StarReader) recordTooLarge(c sortItem) *RowError {
	d := decoder{b: c.val}
	src := d.string()
	file, line := src, 0
	if i := strings.LastIndexByte(src, ':'); i >= 0 {
		file = src[:i]
		line, _ = strconv.Atoi(src[i+1:])
	}
	return s.tooLargeRow(file, line, c.key)
}

// tooLargeRow is the broken row of the core row at file:line, id, whose
// extension rows pass Limits.RecordBytes.
func (s *StarReader) tooLargeRow(file string, line int, id string) *RowError {
	return &RowError{File: file, Line: line, Err: &TooLargeError{Name: fmt.Sprintf("core id %q", id),
		What: "extension rows joined to one core row", Limit: s.a.opts.Limits.RecordBytes}}
}

// collect takes the rows of id from every sorted extension, counting rows of
// smaller ids (no core row has them) as orphans. Each group is encoded as a
// row count followed by the rows; nil when the extension has none. When the
// rows of id pass Limits.RecordBytes the rest are skipped unread and
// tooBig is set.
func (s *StarReader) collect(id string, disk []*extJoin) (group [][]byte, tooBig bool, err error) {
	group = make([][]byte, len(disk))
	var size int64
	for i, ej := range disk {
		var rows [][]byte
		for {
			x, ok, err := ej.iter.peek()
			if err != nil {
				return nil, false, err
			}
			if !ok || x.key > id {
				break
			}
			ej.iter.next()
			if x.key < id {
				s.orphans++
				continue
			}
			if tooBig {
				continue
			}
			if size += int64(len(x.val)); size > s.a.opts.Limits.RecordBytes {
				tooBig, rows = true, nil
				continue
			}
			rows = append(rows, x.val)
		}
		if len(rows) == 0 {
			continue
		}
		g := binary.AppendUvarint(nil, uint64(len(rows)))
		for _, r := range rows {
			g = append(g, r...)
		}
		group[i] = g
	}
	if tooBig {
		return nil, true, nil
	}
	return group, false, nil
}

// dataBytes is the size of the archive's data files (declared, in a zip).
func (a *Archive) dataBytes() (int64, error) {
	var n int64
	specs := append([]FileSpec{a.Meta.Core}, a.Meta.Extensions...)
	for _, sp := range specs {
		for _, f := range sp.Files {
			st, err := fs.Stat(a.fsys, a.root+f)
			if err != nil {
				return 0, fmt.Errorf("dwca: %s: %w", a.where(f), err)
			}
			n += st.Size()
		}
	}
	return n, nil
}
