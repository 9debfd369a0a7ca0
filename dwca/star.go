package dwca

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Star join: how extension rows meet their core row with bounded memory.
//
// Records first tries to hold every extension in memory, keyed by coreid,
// under Options.JoinBudget (an estimate of the bytes of the rows kept). When
// that works the core is streamed once and each core row picks up its rows:
// no temporary files, no ordering requirements.
//
// Extensions that do not fit but follow the core's order (GBIF's downloads)
// are read in lockstep with the core (star_lockstep.go): no temporary files
// but the sorted hashes of the core ids when they pass half the budget.
//
// Otherwise an extension that does not fit is joined on disk with external
// sorts (star_sort.go), which need neither the extension nor the core to be
// sorted:
//  1. its rows are sorted by (coreid, row number) into temporary run files;
//  2. the core rows are sorted by (id, row number) the same way;
//  3. a merge of the sorted core with the sorted extensions joins them, and
//     each joined record is sorted once more by its core row number;
//  4. reading that last sort yields the records in core-file order, and the
//     in-memory extensions are added on the way.
// Memory stays within a few budgets plus the rows of one core record; disk
// use is about twice the size of the data (Limits.SpillBytes). All
// temporary files live in Options.TempDir and are removed by Close.
//
// An Event core with an Occurrence extension yields one record per occurrence
// row, the event's terms merged under the occurrence's (occurrence values
// win), as GBIF interprets sample-based data.

// BrokenRows counts the rows that could not be read; Rows lists the first
// ones (Options.MaxBrokenListed).
type BrokenRows struct {
	Count int
	Rows  []*RowError
}

// extRow is an extension row kept for a join.
type extRow struct {
	terms  occurrence.Terms
	source string // only for the Occurrence extension of an Event core
}

// extJoin is the state of one extension in a join.
type extJoin struct {
	spec    *FileSpec
	idx     int                 // position in StarReader.exts
	mem     map[string][]extRow // in-memory rows by coreid, not yet claimed
	claimed map[string][]extRow // in-memory rows a core row has taken
	sorter  *extSorter          // on-disk rows (mem == nil)
	iter    *sortIter
	step    *rowPeeker // lockstep rows (star_lockstep.go)
	isOccur bool       // the Occurrence extension of an Event core
}

// source is what the join keeps of a row's location: only the Occurrence
// extension of an Event core needs it (its rows become the records).
func (ej *extJoin) source(row Row) string {
	if !ej.isOccur {
		return ""
	}
	return row.Source()
}

// StarReader yields the occurrence records of an archive in core-file order.
type StarReader struct {
	ctx   context.Context
	a     *Archive
	log   *slog.Logger
	exts  []*extJoin
	event bool
	core  *RowReader // memory and lockstep modes: the streamed core
	// stepping are the extensions read in lockstep with the core
	stepping []*extJoin
	records  *extSorter // disk mode: joined records by core row number
	recIter  *sortIter
	queue    []occurrence.RawRecord // records of the last core row filled
	head     int                    // next record of queue to return
	broken   BrokenRows
	orphans  int
	sorters  []*extSorter
	held     int64        // estimated bytes of the extensions joined in memory
	spill    *spillBudget // what the disk join may still write
	// spare are core term maps handed back by Recycle, filled again for
	// later rows
	spare []occurrence.Terms
	// layout is the core's fields by position when UseCells asked for
	// rows as Cells (nil: Terms maps); spareCells are the Cells handed
	// back by RecycleCells
	layout     *occurrence.Layout
	spareCells []*occurrence.Cells
}

// UseCells makes Next hand an Occurrence core's streamed rows as
// occurrence.Cells (RawRecord.Cells, Core nil): the row's values by
// field, with a Layout of the core's terms built once, instead of a map
// per row. Records an Event core's rows make, records of the disk join
// and cores whose fields repeat a term still come as Terms maps. Call it
// before the first Next.
func (s *StarReader) UseCells() {
	if s.event || s.core == nil {
		return
	}
	fields := s.a.Meta.Core.Fields
	terms := make([]string, len(fields))
	for i, f := range fields {
		terms[i] = f.Term
	}
	s.layout = occurrence.NewLayout(terms)
}

// RecycleCells is Recycle for a record's Cells.
func (s *StarReader) RecycleCells(c *occurrence.Cells) {
	if c != nil && c.Layout == s.layout && len(s.spareCells) < maxSpareTerms {
		s.spareCells = append(s.spareCells, c)
	}
}

// rowCells returns the row's values by field, in recycled Cells when there
// are some.
func (s *StarReader) rowCells(row Row) *occurrence.Cells {
	var c *occurrence.Cells
	if n := len(s.spareCells); n > 0 {
		c = s.spareCells[n-1]
		s.spareCells[n-1] = nil
		s.spareCells = s.spareCells[:n-1]
	} else {
		c = &occurrence.Cells{Layout: s.layout, Vals: make([]string, s.layout.Len())}
	}
	for i := range c.Vals {
		c.Vals[i] = row.Value(i)
	}
	return c
}

// maxSpareTerms bounds the maps Recycle keeps: a few chunks of records of
// a caller that reads ahead.
const maxSpareTerms = 1024

// Recycle hands back the core terms of a record returned by Next once the
// caller, and everything it passed them to, is done reading them: the
// reader clears the map and fills it with a later row's terms rather than
// making a new map for every row.
func (s *StarReader) Recycle(t occurrence.Terms) {
	if t != nil && len(s.spare) < maxSpareTerms {
		s.spare = append(s.spare, t)
	}
}

// rowTerms returns the row's non-empty values by term, in a recycled map
// when there is one.
func (s *StarReader) rowTerms(row Row) occurrence.Terms {
	n := len(s.spare)
	if n == 0 {
		return row.Terms()
	}
	t := s.spare[n-1]
	s.spare[n-1] = nil
	s.spare = s.spare[:n-1]
	clear(t)
	row.AddTerms(t)
	return t
}

// Records reads the archive's occurrence records: an Occurrence core (with
// its extensions), or an Event core with an Occurrence extension. Other
// cores (a Taxon checklist, ...) give ErrNotOccurrenceData.
func (a *Archive) Records(ctx context.Context) (*StarReader, error) {
	core := &a.Meta.Core
	s := &StarReader{ctx: ctx, a: a, log: a.opts.Logger}
	switch core.RowType {
	case occurrence.RowTypeOccurrence:
	case occurrence.RowTypeEvent:
		s.event = true
	default:
		return nil, fmt.Errorf("dwca: %s: %w: the core row type is %s", a.Path, ErrNotOccurrenceData, core.RowType)
	}
	occExt := false
	for i := range a.Meta.Extensions {
		spec := &a.Meta.Extensions[i]
		if spec.IDIndex < 0 || core.IDIndex < 0 {
			s.log.Warn("extension cannot be linked to the core: no id/coreid column",
				"archive", a.Path, "rowType", spec.RowType)
			continue
		}
		ej := &extJoin{spec: spec, idx: len(s.exts), isOccur: s.event && spec.RowType == occurrence.RowTypeOccurrence && !occExt}
		occExt = occExt || ej.isOccur
		s.exts = append(s.exts, ej)
	}
	if s.event && !occExt {
		return nil, fmt.Errorf("dwca: %s: %w: Event core without an Occurrence extension", a.Path, ErrNotOccurrenceData)
	}
	if err := s.prepare(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// prepare loads the extensions that fit into memory and runs the disk join
// for the others.
func (s *StarReader) prepare() error {
	budget := s.a.opts.JoinBudget
	var disk []*extJoin
	for _, ej := range s.exts {
		used, fits, err := s.loadMem(ej, budget)
		if err != nil {
			return err
		}
		if fits {
			budget -= used
			s.held += used
			continue
		}
		disk = append(disk, ej)
	}
	if len(disk) == 0 {
		rr, err := s.a.Rows(s.ctx, s.a.Meta.Core)
		s.core = rr
		if rr != nil {
			rr.reuseCells = true // fill is done with a row before the next
		}
		return err
	}
	inOrder, err := s.inCoreOrder(disk)
	if err != nil {
		return err
	}
	if inOrder {
		s.log.Info("extensions in core order: joined in lockstep", "archive", s.a.Path)
		return s.lockstepJoin(disk)
	}
	return s.diskJoin(disk)
}

// loadMem reads an extension into memory unless it takes more than budget bytes.
func (s *StarReader) loadMem(ej *extJoin, budget int64) (used int64, fits bool, err error) {
	mem := map[string][]extRow{}
	// Broken rows and rows without coreid count only if the extension stays
	// in memory: the disk join reads the file again and counts them then.
	var broken []*RowError
	noID := 0
	errFull := errors.New("over budget")
	err = s.forEachRow(*ej.spec, func(re *RowError) { broken = append(broken, re) }, func(row Row) error {
		id := row.ID()
		if id == "" {
			noID++
			return nil
		}
		r := extRow{terms: row.Terms(), source: ej.source(row)}
		used += heldBytes(id, r)
		if used > budget {
			return errFull
		}
		mem[id] = append(mem[id], r)
		return nil
	})
	if err == errFull {
		s.log.Info("extension larger than the join budget: joined in lockstep or on disk", "file", ej.spec.Files, "budget", budget)
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	for _, re := range broken {
		s.addBroken(re)
	}
	s.orphans += noID
	ej.mem = mem
	return used, true, nil
}

// heldBytes estimates the heap an in-memory extension row takes: its values
// (substrings of the row's text; the term keys are shared with the meta.xml
// spec), its terms map, and its entry in the join's map.
func heldBytes(id string, r extRow) int64 {
	n := int64(0)
	for _, v := range r.terms {
		n += int64(len(v))
	}
	return n + int64(len(id)+len(r.source)) + mapBytes(len(r.terms)) + 112
}

// mapBytes is about what a map[string]string of n entries made with size
// hint n takes (Row.Terms' maps; TestMapBytes measures it with Go 1.26): one
// group of 8 slots up to 8 entries, ~320 bytes; above, a table of the
// power-of-two slots that keeps it at most 7/8 full, 36 bytes a slot plus
// ~72 (9-14 entries 648 bytes, 113-224 entries ~9.5 KB). A charge per entry
// (82 bytes) was right only just past each doubling and up to twice the size
// elsewhere.
func mapBytes(n int) int64 {
	if n <= 8 {
		return 320
	}
	slots := int64(16)
	for slots*7/8 < int64(n) {
		slots *= 2
	}
	return 36*slots + 72
}

// brokenRow counts a *RowError and reports whether err was one.
func (s *StarReader) brokenRow(err error) bool {
	var re *RowError
	if !errors.As(err, &re) {
		return false
	}
	s.addBroken(re)
	return true
}

// addBroken counts a broken row and lists the first ones.
func (s *StarReader) addBroken(re *RowError) {
	s.broken.Count++
	if len(s.broken.Rows) < s.a.opts.MaxBrokenListed {
		s.broken.Rows = append(s.broken.Rows, re)
	}
	s.log.Debug("broken row", "file", re.File, "line", re.Line, "err", re.Err)
}

// Broken returns the broken rows met so far (core and extensions).
func (s *StarReader) Broken() BrokenRows { return s.broken }

// Orphans is the number of extension rows whose coreid matched no core row
// (known once all records have been read) or that had no coreid.
func (s *StarReader) Orphans() int {
	n := s.orphans
	for _, ej := range s.exts {
		for _, rows := range ej.mem {
			n += len(rows)
		}
	}
	return n
}

// Next returns the next record, io.EOF after the last.
func (s *StarReader) Next() (occurrence.RawRecord, error) {
	for s.head == len(s.queue) {
		// reuse the queue's array: slicing off its head would leave no
		// capacity and cost an allocation per record
		s.queue, s.head = s.queue[:0], 0
		if err := s.ctx.Err(); err != nil {
			return occurrence.RawRecord{}, err
		}
		if err := s.fill(); err != nil {
			return occurrence.RawRecord{}, err
		}
	}
	r := s.queue[s.head]
	s.queue[s.head] = occurrence.RawRecord{}
	s.head++
	return r, nil
}

// fill reads the next core record into the queue (none for an event
// without occurrences).
func (s *StarReader) fill() error {
	if s.core != nil {
		for {
			row, err := s.core.Next()
			if err != nil {
				if s.brokenRow(err) {
					continue
				}
				if err == io.EOF {
					if err := s.stepEnd(); err != nil {
						return err
					}
				}
				return err
			}
			id := row.ID()
			var ext map[*extJoin][]extRow
			if len(s.stepping) > 0 && id != "" {
				var tooBig bool
				if ext, tooBig, err = s.stepRows(id); err != nil {
					return err
				}
				if tooBig {
					s.addBroken(s.tooLargeRow(row.File(), row.Line(), id))
					continue
				}
			}
			if s.layout != nil {
				s.emitCells(id, s.rowCells(row), row.Source(), ext)
				return nil
			}
			s.emit(id, s.rowTerms(row), row.Source(), ext)
			return nil
		}
	}
	it, ok, err := s.recIter.next()
	if err != nil {
		return err
	}
	if !ok {
		return io.EOF
	}
	d := decoder{b: it.val}
	id, source, terms := d.string(), d.string(), d.terms(s.a.Meta.Core.Fields)
	ext := map[*extJoin][]extRow{} // does not escape: on the stack
	for n := d.uvarint(); n > 0 && d.err == nil; n-- {
		i := d.uvarint()
		if i >= uint64(len(s.exts)) {
			return errors.New("dwca: join: corrupt record")
		}
		ej := s.exts[i]
		for m := d.uvarint(); m > 0 && d.err == nil; m-- {
			src := d.string()
			ext[ej] = append(ext[ej], extRow{terms: d.terms(ej.spec.Fields), source: src})
		}
	}
	if d.err != nil {
		return d.err
	}
	s.emit(id, terms, source, ext)
	return nil
}

// emitCells is emit for an Occurrence core row by position (UseCells).
func (s *StarReader) emitCells(id string, core *occurrence.Cells, source string, step map[*extJoin][]extRow) {
	byType, _ := s.joined(id, step)
	s.queue = append(s.queue, occurrence.RawRecord{Cells: core, Extensions: byType, Source: source})
}

// emit builds the record(s) of one core row from its terms, the disk-joined
// extension rows and the in-memory ones.
func (s *StarReader) emit(id string, core occurrence.Terms, source string, disk map[*extJoin][]extRow) {
	byType, occ := s.joined(id, disk)
	if !s.event {
		s.queue = append(s.queue, occurrence.RawRecord{Core: core, Extensions: byType, Source: source})
		return
	}
	for _, o := range occ {
		merged := make(occurrence.Terms, len(core)+len(o.terms))
		for k, v := range core {
			merged[k] = v
		}
		for k, v := range o.terms {
			merged[k] = v
		}
		s.queue = append(s.queue, occurrence.RawRecord{
			Core: merged, Extensions: forOccurrence(byType, o.terms), Source: o.source})
	}
}

// joined gathers the extension rows of core id: the disk-joined (or
// lockstep) ones and the in-memory ones, by row type, and apart the rows
// of an Event core's Occurrence extension.
func (s *StarReader) joined(id string, disk map[*extJoin][]extRow) (byType map[string][]occurrence.Terms, occ []extRow) {
	for _, ej := range s.exts {
		rows := disk[ej]
		if ej.mem != nil && id != "" {
			rows = ej.mem[id]
			if rows == nil {
				rows = ej.claimed[id] // a repeated core id
			}
			s.claim(ej, id, rows)
		}
		if ej.isOccur {
			occ = rows
			continue
		}
		if len(rows) == 0 {
			continue
		}
		if byType == nil {
			byType = make(map[string][]occurrence.Terms, len(s.exts))
		}
		terms := slices.Grow(byType[ej.spec.RowType], len(rows))
		for _, r := range rows {
			terms = append(terms, r.terms)
		}
		byType[ej.spec.RowType] = terms
	}
	return byType, occ
}

// claim moves the rows of id out of the in-memory map so that Orphans can
// count what was never claimed; repeated core ids find them in claimed.
func (s *StarReader) claim(ej *extJoin, id string, rows []extRow) {
	if rows == nil {
		return
	}
	delete(ej.mem, id)
	if ej.claimed == nil {
		ej.claimed = map[string][]extRow{}
	}
	ej.claimed[id] = rows
}

// forOccurrence keeps the event's extension rows that belong to occurrence o:
// rows without an occurrenceID, or with o's. It is nil when none is kept.
func forOccurrence(byType map[string][]occurrence.Terms, o occurrence.Terms) map[string][]occurrence.Terms {
	occID := o[occurrence.NSDwC+"occurrenceID"]
	var out map[string][]occurrence.Terms
	for rt, rows := range byType {
		for _, r := range rows {
			if id, ok := r[occurrence.NSDwC+"occurrenceID"]; ok && occID != "" && id != occID {
				continue
			}
			if out == nil {
				out = make(map[string][]occurrence.Terms, len(byType))
			}
			out[rt] = append(out[rt], r)
		}
	}
	return out
}

// Close removes temporary files and closes open files.
func (s *StarReader) Close() error {
	if s.core != nil {
		s.core.Close()
	}
	if s.recIter != nil {
		s.recIter.close()
	}
	for _, ej := range s.exts {
		if ej.iter != nil {
			ej.iter.close()
		}
		if ej.step != nil {
			ej.step.close()
			ej.step = nil
		}
	}
	for _, so := range s.sorters {
		so.close()
	}
	s.sorters = nil
	return nil
}
