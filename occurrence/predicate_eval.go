package occurrence

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// Eval sets sel[i] to whether row i of batch matches; sel must have at least
// batch.NumRows() elements. The batch must hold the predicate's Columns(),
// found by name. Evaluation runs column at a time: each simple predicate loops
// over one typed array, and "and" only evaluates rows still selected.
func (p *Predicate) Eval(batch arrow.RecordBatch, sel []bool) {
	n := int(batch.NumRows())
	sel = sel[:n]
	if p == nil {
		for i := range sel {
			sel[i] = true
		}
		return
	}
	ev := &evaluator{batch: batch, n: n}
	p.eval(ev, sel, nil)
}

// EvalCached is Eval remembering, across the batches of one scan, which
// entries of each dictionary-encoded column match: a reader that keeps one
// dictionary for a whole column chunk then pays for it once, not per batch.
// A cache serves one goroutine and one predicate.
func (p *Predicate) EvalCached(batch arrow.RecordBatch, sel []bool, cache *EvalCache) {
	if p == nil || cache == nil {
		p.Eval(batch, sel)
		return
	}
	ev := &cache.ev
	ev.batch, ev.n, ev.cache = batch, int(batch.NumRows()), cache
	p.eval(ev, sel[:ev.n], nil)
	ev.batch = nil
}

// EvalCache holds dictionary matches for EvalCached. It retains each
// dictionary it has seen (so none is recycled while cached) until Release.
// It also keeps the evaluator's scratch slices from batch to batch.
type EvalCache struct {
	ev   evaluator
	m    map[dictKey]dictMatch
	held []arrow.ArrayData
	// columns of multi-column leaves that the split's statistics prove
	// hold no match (Trim)
	deadCols map[deadKey]bool
	trimmed  int // the predicate's columns the last Trim left out
}

type deadKey struct {
	c   *compiled
	col string
}

func (ec *EvalCache) dead(c *compiled, col string) bool {
	return ec != nil && ec.deadCols[deadKey{c, col}]
}

// Trim prepares the cache for one split: the columns of a leaf that reads
// several (a taxon key matched at every rank) whose statistics prove they
// hold no match are left out of the evaluation, and the columns the
// predicate still needs there are returned, so a reader need not decode the
// others. Statistics that also answer IntMembership (a Parquet bloom
// filter) leave out the columns of an integer equals or in whose values they
// prove absent. A nil Stats trims nothing. Each call replaces the previous
// trim.
func (ec *EvalCache) Trim(p *Predicate, s Stats) []string {
	clear(ec.deadCols)
	ec.trimmed = 0
	if s == nil {
		return p.Columns()
	}
	member, _ := s.(IntMembership)
	kept := p.columns(func(c *compiled, col string) bool {
		if len(c.cols()) < 2 || c.isDate() || c.isSpan() {
			return false
		}
		cs, ok := s.ColumnStats(col)
		if (!ok || c.mayColumn(cs)) && !c.absentFrom(member, col) {
			return false
		}
		if ec.deadCols == nil {
			ec.deadCols = make(map[deadKey]bool)
		}
		ec.deadCols[deadKey{c, col}] = true
		return true
	})
	if len(ec.deadCols) > 0 {
		// a column left out of one leaf may be read for another
		ec.trimmed = len(p.Columns()) - len(kept)
	}
	return kept
}

// Trimmed is how many of the predicate's columns the last Trim left out
// (each once, however many leaves read it).
func (ec *EvalCache) Trimmed() int { return ec.trimmed }

// IntMembership is what statistics may know beyond ColumnStats: whether an
// integer column of the split may hold a value (false is certain).
type IntMembership interface {
	MayContainInt(column string, v int64) bool
}

// maxMembershipValues bounds the values of an in that Trim asks about.
const maxMembershipValues = 64

// absentFrom reports whether m proves that none of an integer equals or
// in's values is in column col.
func (c *compiled) absentFrom(m IntMembership, col string) bool {
	if m == nil || c.spec == nil || c.spec.kind != vInt || (c.op != TypeEquals && c.op != TypeIn) ||
		len(c.ivs) == 0 || len(c.ivs) > maxMembershipValues {
		return false
	}
	for _, iv := range c.ivs {
		if iv.lo.i != iv.hi.i || m.MayContainInt(col, iv.lo.i) {
			return false
		}
	}
	return true
}

type dictKey struct {
	c    *compiled
	dict arrow.ArrayData
}

// NewEvalCache returns an empty cache.
func NewEvalCache() *EvalCache { return &EvalCache{m: make(map[dictKey]dictMatch)} }

// Release drops the cached matches and the dictionaries they belong to.
func (ec *EvalCache) Release() {
	for _, d := range ec.held {
		d.Release()
	}
	ec.held, ec.m, ec.deadCols = nil, make(map[dictKey]dictMatch), nil
}

// dictMatch is which entries of a dictionary match, and whether any does.
type dictMatch struct {
	dm  []bool
	any bool
}

// dictMatches evaluates c over every entry of dict, once per cache.
func (ev *evaluator) dictMatches(c *compiled, dict arrow.Array) dictMatch {
	k := dictKey{c, dict.Data()}
	if ev.cache != nil {
		if m, ok := ev.cache.m[k]; ok && len(m.dm) == dict.Len() {
			return m
		}
	}
	dm := make([]bool, dict.Len())
	c.evalColumn(ev, dict, dm, nil, false)
	m := dictMatch{dm, slices.Contains(dm, true)}
	if ev.cache != nil {
		k.dict.Retain()
		ev.cache.held = append(ev.cache.held, k.dict)
		ev.cache.m[k] = m
	}
	return m
}

type evaluator struct {
	batch   arrow.RecordBatch
	n       int
	buf     []byte
	scratch []bool
	free    [][]bool // row slices for or, not and masks, reused (get/put)
	parity  []bool   // per ring, for within
	cache   *EvalCache
}

func (ev *evaluator) column(name string) arrow.Array { return batchColumn(ev.batch, name) }

// batchColumn returns the first column of batch named name, without the
// copy Schema.FieldIndices makes.
func batchColumn(batch arrow.RecordBatch, name string) arrow.Array {
	sc := batch.Schema()
	for i := range sc.NumFields() {
		if sc.Field(i).Name == name {
			return batch.Column(i)
		}
	}
	panic(fmt.Sprintf("occurrence: predicate column %q missing from the batch", name))
}

// get returns a slice of ev.n rows with arbitrary contents; put hands it
// back for the next get.
func (ev *evaluator) get() []bool {
	for k := len(ev.free); k > 0; k = len(ev.free) {
		b := ev.free[k-1]
		ev.free = ev.free[:k-1]
		if cap(b) >= ev.n {
			return b[:ev.n]
		}
	}
	return make([]bool, ev.n)
}

func (ev *evaluator) put(b ...[]bool) { ev.free = append(ev.free, b...) }

// copyMask returns a copy of mask from get (nil for nil): out may alias
// mask, and the caller needs the original after writing out.
func (ev *evaluator) copyMask(mask []bool) []bool {
	if mask == nil {
		return nil
	}
	m := ev.get()
	copy(m, mask)
	return m
}

// eval writes out[i] = mask[i] && matches(i); a nil mask selects every row.
// out and mask may be the same slice.
func (p *Predicate) eval(ev *evaluator, out, mask []bool) {
	switch p.Type {
	case TypeAnd:
		p.Predicates[0].eval(ev, out, mask)
		for _, c := range p.Predicates[1:] {
			c.eval(ev, out, out)
		}
	case TypeOr:
		if plan := p.plan.Load(); plan != nil {
			nf := len(plan.fused)
			evalOr(ev, out, mask, nf+len(plan.rest), func(i int, o, m []bool) {
				if i < nf {
					plan.fused[i].eval(ev, o, m)
				} else {
					plan.rest[i-nf].eval(ev, o, m)
				}
			})
			return
		}
		evalOr(ev, out, mask, len(p.Predicates), func(i int, o, m []bool) { p.Predicates[i].eval(ev, o, m) })
	case TypeNot:
		tmp := ev.get()
		p.Predicate.eval(ev, tmp, mask)
		for i, t := range tmp {
			out[i] = !t && (mask == nil || mask[i])
		}
		ev.put(tmp)
	default:
		p.comp().eval(ev, out, mask)
	}
}

func (c *compiled) eval(ev *evaluator, out, mask []bool) {
	switch c.op {
	case TypeWithin, TypeGeoDistance:
		c.evalGeo(ev, out, mask)
		return
	case TypeFullText:
		c.evalFullText(ev, out, mask)
		return
	case TypeIsNull, TypeIsNotNull:
		arr := ev.column(c.spec.cols[0])
		want := c.op == TypeIsNotNull
		for i := range out {
			out[i] = (mask == nil || mask[i]) && arr.IsValid(i) == want
		}
		return
	}
	if c.spec.kind == vDate {
		evalDate(ev.column(ColEventDateStart), ev.column(ColEventDateEnd), c, out, mask)
		return
	}
	if c.isSpan() {
		evalGeoTime(ev.column(c.spec.cols[0]), ev.column(c.spec.cols[1]), c, out, mask)
		return
	}
	if c.isFigures() {
		evalFigures(ev.column(c.spec.cols[0]), c, out, mask)
		return
	}
	if len(c.spec.cols) > 1 && mask != nil {
		mask = ev.copyMask(mask)
		defer ev.put(mask)
	}
	or := false // further columns only add matches
	for _, col := range c.spec.cols {
		if ev.cache.dead(c, col) {
			continue
		}
		c.evalColumn(ev, ev.column(col), out, mask, or)
		or = true
	}
	if !or {
		clear(out) // the statistics proved every column empty of matches
	}
}

// evalColumn evaluates one column. With or set it only sets out[i] for rows
// that mask selects and out does not yet hold.
func (c *compiled) evalColumn(ev *evaluator, arr arrow.Array, out, mask []bool, or bool) {
	switch a := arr.(type) {
	case *array.Int32:
		evalInt(a.Int32Values(), a, c, out, mask, or, ev)
	case *array.Int64:
		evalInt(a.Int64Values(), a, c, out, mask, or, ev)
	case *array.Timestamp:
		evalInt(a.TimestampValues(), a, c, out, mask, or, ev)
	case *array.Float64:
		evalFloat(a.Float64Values(), a, c, out, mask, or, ev)
	case *array.Boolean:
		evalBool(a, c, out, mask, or)
	case *array.String:
		evalString(a, c, ev, out, mask, or)
	case *array.Dictionary:
		evalDict(a, c, ev, out, mask, or)
	default:
		if s, ok := arr.(stringValuer); ok {
			evalStringValuer(s, c, ev, out, mask, or)
			return
		}
		panic(fmt.Sprintf("occurrence: predicate on %s cannot read a %s column", c.spec.name, arr.DataType()))
	}
}

type stringValuer interface {
	arrow.Array
	Value(i int) string
}

// active reports whether row i must be evaluated: selected by mask and, when
// adding matches of a further column (or), not matched yet.
func active(out, mask []bool, or bool, i int) bool {
	if or {
		return !out[i] && (mask == nil || mask[i])
	}
	return mask == nil || mask[i]
}

// skip reports that row i is not evaluated, clearing out[i] unless an
// or-merge keeps its earlier value.
func skip(out, mask []bool, or bool, i int) bool {
	if active(out, mask, or, i) {
		return false
	}
	if !or {
		out[i] = false
	}
	return true
}

// evalInt and evalFloat run a tight loop over every row into a scratch
// slice (cheaper than branching on the mask), then merge nulls, mask and or.
func evalInt[T ~int32 | ~int64](vals []T, arr arrow.Array, c *compiled, out, mask []bool, or bool, ev *evaluator) {
	m := ev.target(out, mask, or)
	switch {
	case c.bits != nil:
		bs := c.bits
		for i, v := range vals {
			m[i] = bs.has(int64(v))
		}
	case c.iset != nil:
		for i, v := range vals {
			_, m[i] = c.iset[int64(v)]
		}
	case len(c.ivs) == 1:
		lo, hi := c.ivs[0].lo.i, c.ivs[0].hi.i
		for i, v := range vals {
			x := int64(v)
			m[i] = x >= lo && x <= hi
		}
	case c.ivx != nil:
		for i, v := range vals {
			m[i] = c.ivx.i.within(int64(v), int64(v))
		}
	default:
		for i, v := range vals {
			x, hit := int64(v), false
			for _, iv := range c.ivs {
				hit = hit || (x >= iv.lo.i && x <= iv.hi.i)
			}
			m[i] = hit
		}
	}
	ev.merge(arr, m, out, mask, or)
}

func evalFloat(vals []float64, arr arrow.Array, c *compiled, out, mask []bool, or bool, ev *evaluator) {
	m := ev.target(out, mask, or)
	if len(c.ivs) == 1 {
		lo, hi := c.ivs[0].lo.f, c.ivs[0].hi.f
		for i, x := range vals {
			m[i] = x >= lo && x <= hi
		}
	} else if c.ivx != nil {
		for i, x := range vals {
			m[i] = c.ivx.f.within(x, x)
		}
	} else {
		for i, x := range vals {
			hit := false
			for _, iv := range c.ivs {
				hit = hit || (x >= iv.lo.f && x <= iv.hi.f)
			}
			m[i] = hit
		}
	}
	ev.merge(arr, m, out, mask, or)
}

// target returns where a kernel writes its raw matches: out itself when no
// mask or or-merge applies, else scratch space.
func (ev *evaluator) target(out, mask []bool, or bool) []bool {
	if mask == nil && !or {
		return out
	}
	if cap(ev.scratch) < len(out) {
		ev.scratch = make([]bool, len(out))
	}
	return ev.scratch[:len(out)]
}

// merge clears null rows in m, then combines m into out under mask and or.
func (ev *evaluator) merge(arr arrow.Array, m, out, mask []bool, or bool) {
	if arr.NullN() > 0 {
		bm, off := arr.NullBitmapBytes(), arr.Data().Offset()
		for i := range m {
			m[i] = m[i] && bitutil.BitIsSet(bm, off+i)
		}
	}
	switch {
	case or && mask != nil:
		for i := range out {
			out[i] = out[i] || (m[i] && mask[i])
		}
	case or:
		for i := range out {
			out[i] = out[i] || m[i]
		}
	case mask != nil:
		for i := range out {
			out[i] = m[i] && mask[i]
		}
	}
}

// bitSet holds integer values in [min, min+64*len(words)).
type bitSet struct {
	min   int64
	words []uint64
}

func (b *bitSet) has(x int64) bool {
	d := uint64(x - b.min)
	return d < uint64(len(b.words))*64 && b.words[d>>6]&(1<<(d&63)) != 0
}

// evalDate matches eventDate intervals: start >= lo and end <= hi, a null
// end meaning the start.
func evalDate(startArr, endArr arrow.Array, c *compiled, out, mask []bool) {
	ivs := c.ivs
	sa, ok1 := startArr.(*array.Timestamp)
	ea, ok2 := endArr.(*array.Timestamp)
	if !ok1 || !ok2 {
		panic(fmt.Sprintf("occurrence: eventDate columns must be timestamps, got %s and %s", startArr.DataType(), endArr.DataType()))
	}
	sv, evs := sa.TimestampValues(), ea.TimestampValues()
	for i := range out {
		if (mask != nil && !mask[i]) || sa.IsNull(i) {
			out[i] = false
			continue
		}
		s, e := int64(sv[i]), int64(sv[i])
		if ea.IsValid(i) {
			e = int64(evs[i])
		}
		if c.ivx != nil {
			out[i] = c.ivx.i.within(s, e)
			continue
		}
		m := false
		for _, iv := range ivs {
			if s >= iv.lo.i && e <= iv.hi.i {
				m = true
				break
			}
		}
		out[i] = m
	}
}

func evalBool(a *array.Boolean, c *compiled, out, mask []bool, or bool) {
	wantT, wantF := false, false
	for _, b := range c.bools {
		wantT, wantF = wantT || b, wantF || !b
	}
	for i := range out {
		if skip(out, mask, or, i) {
			continue
		}
		if a.IsNull(i) {
			out[i] = false
			continue
		}
		v := a.Value(i)
		out[i] = (v && wantT) || (!v && wantF)
	}
}

func evalString(a *array.String, c *compiled, ev *evaluator, out, mask []bool, or bool) {
	m := c.sm
	hasNulls := a.NullN() > 0
	if m.exact() && len(m.vals) <= 4 {
		evalStringExact(a, m.vals, out, mask, or, hasNulls)
		return
	}
	for i := range out {
		if skip(out, mask, or, i) {
			continue
		}
		if hasNulls && a.IsNull(i) {
			out[i] = false
			continue
		}
		out[i] = m.match(a.Value(i), &ev.buf)
	}
}

// evalStringExact compares each value with a few exact strings inline.
func evalStringExact(a *array.String, vals []string, out, mask []bool, or, hasNulls bool) {
	for i := range out {
		if skip(out, mask, or, i) {
			continue
		}
		if hasNulls && a.IsNull(i) {
			out[i] = false
			continue
		}
		s, hit := a.Value(i), false
		for _, v := range vals {
			if s == v {
				hit = true
				break
			}
		}
		out[i] = hit
	}
}

func evalStringValuer(a stringValuer, c *compiled, ev *evaluator, out, mask []bool, or bool) {
	for i := range out {
		if skip(out, mask, or, i) {
			continue
		}
		out[i] = a.IsValid(i) && c.sm.match(a.Value(i), &ev.buf)
	}
}

// evalDict matches each dictionary entry once, then maps the row indices.
func evalDict(a *array.Dictionary, c *compiled, ev *evaluator, out, mask []bool, or bool) {
	match := ev.dictMatches(c, a.Dictionary())
	dm := match.dm
	if !match.any {
		// No entry matches (a row group without the value): no row does.
		if !or {
			clear(out)
		}
		return
	}
	if ix, ok := a.Indices().(*array.Int32); ok {
		evalDictIndices(ix.Int32Values(), a, dm, out, mask, or, ev)
		return
	}
	for i := range out {
		if skip(out, mask, or, i) {
			continue
		}
		out[i] = a.IsValid(i) && dm[a.GetValueIndex(i)]
	}
}

// evalDictIndices is evalDict over int32 indices (how the store reads
// strings and integers): a branch-free lookup per row, then the shared merge
// of nulls, mask and or. Null slots may hold any index.
func evalDictIndices(ix []int32, a arrow.Array, dm, out, mask []bool, or bool, ev *evaluator) {
	m := ev.target(out, mask, or)
	n := uint32(len(dm))
	for i, x := range ix[:len(m)] {
		m[i] = uint32(x) < n && dm[x]
	}
	ev.merge(a, m, out, mask, or)
}

func (c *compiled) evalGeo(ev *evaluator, out, mask []bool) {
	latA, ok1 := ev.column(ColDecimalLatitude).(*array.Float64)
	lonA, ok2 := ev.column(ColDecimalLongitude).(*array.Float64)
	if !ok1 || !ok2 {
		panic("occurrence: decimalLatitude/decimalLongitude must be float64 columns")
	}
	lats, lons := latA.Float64Values(), lonA.Float64Values()
	nulls := latA.NullN() > 0 || lonA.NullN() > 0
	var parity []bool
	if c.geom != nil {
		if k := c.geom.maxRings(); cap(ev.parity) < k {
			ev.parity = make([]bool, k)
		}
		parity = ev.parity
	}
	for i := range out {
		if (mask != nil && !mask[i]) || (nulls && (latA.IsNull(i) || lonA.IsNull(i))) {
			out[i] = false
			continue
		}
		lat, lon := lats[i], lons[i]
		if c.geom != nil {
			out[i] = c.geom.containsFast(lat, lon, parity)
		} else {
			d := lat - c.circle.lat
			out[i] = d <= c.circle.latDeg && d >= -c.circle.latDeg && c.circle.contains(lat, lon)
		}
	}
}
