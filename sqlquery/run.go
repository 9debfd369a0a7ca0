package sqlquery

import (
	"fmt"
	"slices"

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

	groups map[string]*group
	order  []*group
	key    []byte
	tmp    []byte
}

type sortRow struct {
	out  []Value
	keys []Value
}

type group struct {
	keys []Value
	accs []acc
}

// NewRun starts a run that holds at most memory bytes of groups or sorted
// rows (0: DefaultMemory).
func (q *Query) NewRun(memory int64) *Run {
	if memory <= 0 {
		memory = DefaultMemory
	}
	r := &Run{q: q, budget: memory}
	r.c.read = make([]func(int) Value, len(q.cols))
	r.c.out = make([]Value, len(q.outs))
	if q.grouped {
		r.groups = map[string]*group{}
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
	r.c.batch = b
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
			what = fmt.Sprintf("groups (%d so far)", len(r.order))
		}
		return &Error{Err: ErrTooLarge, Reason: fmt.Sprintf("the query's %s need more than the %d MiB a download may hold in memory: group by fewer or coarser columns, narrow the WHERE clause, or add a LIMIT",
			what, r.budget>>20)}
	}
	return nil
}

func (r *Run) addSorted() error {
	q := r.q
	row := sortRow{out: make([]Value, len(q.outs)), keys: make([]Value, len(q.order))}
	var size int64 = 48
	for j, e := range q.outs {
		row.out[j] = e.eval(&r.c).owned()
		size += row.out[j].size()
	}
	r.c.out = row.out
	for j, o := range q.order {
		row.keys[j] = o.e.eval(&r.c).owned()
		size += row.keys[j].size()
	}
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
	slices.SortStableFunc(r.sorted, func(a, b sortRow) int { return r.compareKeys(a.keys, b.keys) })
}

func (r *Run) compareKeys(a, b []Value) int {
	for j, o := range r.q.order {
		c := sortCompare(a[j], b[j])
		if o.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func (r *Run) addToGroup() error {
	q := r.q
	r.key = r.key[:0]
	for _, e := range q.keys {
		r.key = appendKey(r.key, e.eval(&r.c))
	}
	g, ok := r.groups[string(r.key)]
	if !ok {
		g = &group{keys: make([]Value, len(q.keys)), accs: make([]acc, len(q.aggs))}
		size := int64(len(r.key)) + 96 + int64(len(q.aggs))*64
		for j, e := range q.keys {
			g.keys[j] = e.eval(&r.c).owned()
			size += g.keys[j].size()
		}
		r.groups[string(r.key)] = g
		r.order = append(r.order, g)
		if err := r.charge(size); err != nil {
			return err
		}
	}
	for j, s := range q.aggs {
		var grew int64
		r.tmp, grew = g.accs[j].add(s, &r.c, r.tmp)
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
	if q.grouped {
		if err := r.finishGroups(); err != nil {
			return err
		}
	} else if len(q.order) == 0 {
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

// finishGroups turns the groups into result rows (HAVING applied) in
// r.sorted; an aggregate query without GROUP BY has one row even when
// no row passed WHERE.
func (r *Run) finishGroups() error {
	q := r.q
	if len(r.order) == 0 && len(q.keys) == 0 {
		r.order = append(r.order, &group{accs: make([]acc, len(q.aggs))})
	}
	r.c.aggs = make([]Value, len(q.aggs))
	r.sorted = make([]sortRow, 0, len(r.order))
	for gi, g := range r.order {
		r.c.keys = g.keys
		for j, s := range q.aggs {
			r.c.aggs[j] = g.accs[j].result(s)
		}
		row := sortRow{out: make([]Value, len(q.outs)), keys: make([]Value, len(q.order))}
		r.c.out = row.out
		for j, e := range q.outs {
			row.out[j] = e.eval(&r.c)
		}
		if q.having != nil {
			if t, ok := q.having.eval(&r.c).truth(); !ok || !t {
				r.order[gi] = nil
				continue
			}
		}
		for j, o := range q.order {
			row.keys[j] = o.e.eval(&r.c)
		}
		r.sorted = append(r.sorted, row)
		r.order[gi] = nil // its accumulators can go
	}
	r.groups, r.order = nil, nil
	return nil
}
