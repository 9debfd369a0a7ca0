package sqlquery

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// DefaultMemory is a run's budget for groups and sorted rows by default.
const DefaultMemory = 512 << 20

// Run is one execution of a query: feed it the scan's batches with Add,
// then Finish. A Run is used by one goroutine.
type Run struct {
	q      *Query
	c      rowCtx
	budget int64
	used   int64
	rows   int64 // rows emitted
	seen   int64 // rows that passed WHERE (ungrouped, unordered: for OFFSET)
	kept   []bool

	sorted []sortRow // ordered, ungrouped
	wrows  []winRow  // with windows (window.go)

	// Groups are numbered in the order they are met: group g's keys are
	// keys[g*len(q.keys):], its accumulators accs[g*len(q.aggs):]. Flat
	// slices, not an object per group, keep the collector's work small.
	index   map[string]int32
	ngroups int
	keys    []Value
	accs    []acc
	key     []byte
	tmp     []byte
}

type sortRow struct {
	out  []Value
	keys []Value
}

// NewRun starts a run that holds at most memory bytes of groups or sorted
// rows (0: DefaultMemory).
func (q *Query) NewRun(memory int64) *Run {
	if memory <= 0 {
		memory = DefaultMemory
	}
	r := &Run{q: q, budget: memory}
	r.c.read = make([]func(int) Value, len(q.cols))
	r.c.vpaths = q.vpaths
	r.c.out = make([]Value, len(q.outs))
	if q.grouped {
		r.index = map[string]int32{}
	}
	return r
}

// Rows returns the rows emitted so far.
func (r *Run) Rows() int64 { return r.rows }

// Add runs the query over one batch, whose schema holds the query's
// Columns. An ungrouped, unordered query emits its rows now; emit must
// not keep the slice. kept reports, by row, which rows passed WHERE (the
// records the result is made of: its citation), valid until the next Add.
func (r *Run) Add(b arrow.RecordBatch, emit func([]Value) error) (kept []bool, err error) {
	if err := r.bind(b); err != nil {
		return nil, err
	}
	n := int(b.NumRows())
	r.kept = slices.Grow(r.kept[:0], n)[:n]
	for i := range n {
		r.c.row = i
		if r.q.where != nil {
			if t, ok := r.q.where.eval(&r.c).truth(); !ok || !t {
				r.kept[i] = false
				continue
			}
		}
		r.kept[i] = true
		if err := r.addRow(emit); err != nil {
			return nil, err
		}
	}
	return r.kept, nil
}

func (r *Run) addRow(emit func([]Value) error) error {
	q := r.q
	switch {
	case q.grouped:
		return r.addToGroup()
	case len(q.windows) > 0:
		return r.addWindowRow()
	case len(q.order) > 0:
		return r.addSorted()
	}
	r.seen++
	if r.seen <= q.offset || (q.limit >= 0 && r.rows >= q.limit) {
		return nil
	}
	for j, e := range q.outs {
		r.c.out[j] = e.eval(&r.c)
	}
	r.rows++
	return emit(r.c.out)
}

// bind points the column readers at b's columns.
func (r *Run) bind(b arrow.RecordBatch) error {
	r.c.batch, r.c.vrow = b, -1
	s := b.Schema()
	for slot, name := range r.q.cols {
		idx := s.FieldIndices(name)
		if len(idx) == 0 {
			return fmt.Errorf("sqlquery: the batch has no column %s", name)
		}
		rd, err := reader(b.Column(idx[0]))
		if err != nil {
			return fmt.Errorf("sqlquery: column %s: %w", name, err)
		}
		r.c.read[slot] = rd
	}
	return nil
}

// reader reads one column's values.
func reader(a arrow.Array) (func(int) Value, error) {
	switch a := a.(type) {
	case *array.String:
		return func(i int) Value {
			if a.IsNull(i) {
				return nullValue
			}
			return strValue(a.Value(i))
		}, nil
	case *array.Int32:
		return func(i int) Value {
			if a.IsNull(i) {
				return nullValue
			}
			return intValue(int64(a.Value(i)))
		}, nil
	case *array.Int64:
		return func(i int) Value {
			if a.IsNull(i) {
				return nullValue
			}
			return intValue(a.Value(i))
		}, nil
	case *array.Float64:
		return func(i int) Value {
			if a.IsNull(i) {
				return nullValue
			}
			return floatValue(a.Value(i))
		}, nil
	case *array.Boolean:
		return func(i int) Value {
			if a.IsNull(i) {
				return nullValue
			}
			return boolValue(a.Value(i))
		}, nil
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return func(i int) Value {
			if a.IsNull(i) {
				return nullValue
			}
			return timeValue(a.Value(i).ToTime(unit).UnixMilli())
		}, nil
	case *array.Dictionary:
		inner, err := reader(a.Dictionary())
		if err != nil {
			return nil, err
		}
		return func(i int) Value {
			if a.IsNull(i) {
				return nullValue
			}
			return inner(a.GetValueIndex(i))
		}, nil
	}
	return nil, fmt.Errorf("type %s is not read", a.DataType())
}

func (r *Run) charge(n int64) error {
	r.used += n
	if r.used > r.budget {
		what := "sorted rows"
		if r.q.grouped {
			what = fmt.Sprintf("groups (%d so far)", r.ngroups)
		}
		budget := fmt.Sprintf("%d MiB", r.budget>>20)
		if r.budget < 1<<20 {
			budget = fmt.Sprintf("%d bytes", r.budget)
		}
		return &Error{Err: ErrTooLarge, Reason: fmt.Sprintf("the query's %s need more than the %s a download may hold in memory: group by fewer or coarser columns, narrow the WHERE clause, or add a LIMIT",
			what, budget)}
	}
	return nil
}

func (r *Run) addSorted() error {
	q := r.q
	row := r.sortRowOf(nil)
	for _, vs := range [][]Value{row.out, row.keys} {
		for j := range vs {
			vs[j] = vs[j].owned() // kept beyond the batch
		}
	}
	size := rowSize(row)
	r.sorted = append(r.sorted, row)
	if err := r.charge(size); err != nil {
		return err
	}
	// With a LIMIT, only the first offset+limit rows can ever be emitted:
	// sort and cut whenever the buffer doubles that.
	if keep := q.offset + q.limit; q.limit >= 0 && int64(len(r.sorted)) >= 2*keep+1024 {
		r.sortRows()
		for _, dropped := range r.sorted[keep:] {
			r.used -= rowSize(dropped)
		}
		r.sorted = slices.Clip(r.sorted[:keep])
	}
	return nil
}

// sortRowOf is the current row's outputs (out, else evaluated here) and
// its ORDER BY values, which may read the outputs.
func (r *Run) sortRowOf(out []Value) sortRow {
	row := sortRow{out: out, keys: make([]Value, len(r.q.order))}
	if row.out == nil {
		row.out = make([]Value, len(r.q.outs))
		for j, e := range r.q.outs {
			row.out[j] = e.eval(&r.c)
		}
	}
	r.c.out = row.out
	for j, o := range r.q.order {
		row.keys[j] = o.e.eval(&r.c)
	}
	return row
}

func rowSize(s sortRow) int64 {
	n := int64(48)
	for _, v := range s.out {
		n += v.size()
	}
	for _, v := range s.keys {
		n += v.size()
	}
	return n
}

func (r *Run) sortRows() {
	slices.SortStableFunc(r.sorted, func(a, b sortRow) int { return compareOrder(r.q.order, a.keys, b.keys) })
}

func (r *Run) addToGroup() error {
	q := r.q
	r.key = r.key[:0]
	for _, e := range q.keys {
		r.key = appendKey(r.key, e.eval(&r.c))
	}
	g, ok := r.index[string(r.key)]
	if !ok {
		if r.ngroups == math.MaxInt32 {
			return r.charge(r.budget + 1)
		}
		g = int32(r.ngroups)
		r.ngroups++
		size := int64(len(r.key)) + 64 + int64(len(q.aggs))*int64(unsafe.Sizeof(acc{}))
		for _, e := range q.keys {
			v := e.eval(&r.c).owned()
			r.keys = append(r.keys, v)
			size += v.size()
		}
		r.accs = append(r.accs, make([]acc, len(q.aggs))...)
		r.index[string(r.key)] = g
		if err := r.charge(size); err != nil {
			return err
		}
	}
	accs := r.accs[int(g)*len(q.aggs):]
	for j, s := range q.aggs {
		var grew int64
		r.tmp, grew = accs[j].add(s, &r.c, r.tmp)
		if grew != 0 {
			if err := r.charge(grew); err != nil {
				return err
			}
		}
	}
	return nil
}

// Finish emits what the run holds (the groups, or the sorted rows), in
// order, after OFFSET and within LIMIT.
func (r *Run) Finish(emit func([]Value) error) error {
	q := r.q
	switch {
	case len(q.windows) > 0:
		if q.grouped {
			if err := r.eachGroup(func([]Value) (bool, error) { return true, r.addWindowRow() }); err != nil {
				return err
			}
		}
		r.finishWindows()
	case q.grouped && len(q.order) == 0:
		// Groups in the order they were met, straight out.
		skipped := int64(0)
		return r.eachGroup(func(out []Value) (bool, error) {
			if skipped < q.offset {
				skipped++
				return true, nil
			}
			if q.limit >= 0 && r.rows >= q.limit {
				return false, nil
			}
			r.rows++
			return true, emit(out)
		})
	case q.grouped:
		err := r.eachGroup(func(out []Value) (bool, error) {
			r.sorted = append(r.sorted, r.sortRowOf(slices.Clone(out)))
			return true, nil
		})
		if err != nil {
			return err
		}
	case len(q.order) == 0:
		return nil
	}
	r.sortRows()
	for i, s := range r.sorted {
		if int64(i) < q.offset {
			continue
		}
		if q.limit >= 0 && r.rows >= q.limit {
			break
		}
		r.rows++
		if err := emit(s.out); err != nil {
			return err
		}
	}
	r.sorted = nil
	return nil
}

// finishWindows computes the windows over the kept rows, then each row's
// outputs and order keys, into r.sorted.
func (r *Run) finishWindows() {
	r.computeWindows()
	r.sorted = make([]sortRow, 0, len(r.wrows))
	for i := range r.wrows {
		w := &r.wrows[i]
		r.c.pre, r.c.win = w.pre, w.outs
		r.sorted = append(r.sorted, r.sortRowOf(nil))
		*w = winRow{}
	}
	r.wrows = nil
}

// eachGroup computes each group's output row (HAVING applied) and hands
// it to f, which must not keep it, until f says stop; an aggregate query
// without GROUP BY has one row even when no row passed WHERE.
func (r *Run) eachGroup(f func(out []Value) (bool, error)) error {
	q := r.q
	if r.ngroups == 0 && len(q.keys) == 0 {
		r.ngroups, r.accs = 1, make([]acc, len(q.aggs))
	}
	r.index = nil
	nk, na := len(q.keys), len(q.aggs)
	r.c.aggs = make([]Value, na)
	out := make([]Value, len(q.outs))
	for g := range r.ngroups {
		r.c.keys = r.keys[g*nk : (g+1)*nk]
		accs := r.accs[g*na : (g+1)*na]
		for j, s := range q.aggs {
			r.c.aggs[j] = accs[j].result(s)
			accs[j] = acc{} // its distinct set can go
		}
		r.c.out = out
		if len(q.windows) == 0 { // else the outputs wait for the windows
			for j, e := range q.outs {
				out[j] = e.eval(&r.c)
			}
		}
		if q.having != nil {
			if t, ok := q.having.eval(&r.c).truth(); !ok || !t {
				continue
			}
		}
		if more, err := f(out); err != nil || !more {
			return err
		}
	}
	r.keys, r.accs = nil, nil
	return nil
}
