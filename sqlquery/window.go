package sqlquery

import (
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Window functions (OVER) are computed after WHERE, GROUP BY and HAVING,
// over the result's rows, before ORDER BY and LIMIT, as SQL orders them.
// A select item that holds one is split when compiled: its parts without a
// window are evaluated on the row (or the group) into "pre" values, the
// window's inputs too (its argument, partition and order keys); the rest
// of the item reads those and the window's result once every row is in.
// The rows wait in memory, within the run's budget, as sorted rows do.

// windowSpec is one window function call of a query.
type windowSpec struct {
	fn        string // lower-case: row_number, rank, dense_rank, lag, lead, or an aggregate
	arg       expr   // the argument (nil: none, COUNT(*))
	distinct  bool
	offset    int64 // lag, lead
	deflt     expr  // lag, lead: the value past the partition's edge (nil: NULL)
	partition []expr
	order     []orderItem
}

// windowFuncs are the window functions besides the aggregates.
var windowFuncs = map[string]string{
	"row_number": "ROW_NUMBER() OVER (...): the row's position in its partition",
	"rank":       "RANK() OVER (... ORDER BY ...): the row's rank, ties sharing one and leaving gaps",
	"dense_rank": "DENSE_RANK() OVER (... ORDER BY ...): the row's rank without gaps",
	"lag":        "LAG(x[, offset[, default]]) OVER (...): x of the row offset (1) before in the partition",
	"lead":       "LEAD(x[, offset[, default]]) OVER (...): x of the row offset (1) after in the partition",
}

// preRef reads a value computed on the row before the windows; winRef a
// window's result for the row.
type preRef struct{ i int }
type winRef struct{ i int }

func (e preRef) eval(c *rowCtx) Value { return c.pre[e.i] }
func (e winRef) eval(c *rowCtx) Value { return c.win[e.i] }

// hasWindow reports whether n calls a window function.
func hasWindow(n ast.Node) bool {
	v := &finder{match: func(n ast.Node) bool { _, ok := n.(*ast.WindowFuncExpr); return ok }}
	n.Accept(v)
	return v.found
}

// post compiles an expression of the select list or ORDER BY of a query
// with windows: its window-free parts become pre values, its windows
// windowSpecs.
func (c *compiler) post(n ast.ExprNode, m mode) (expr, error) {
	c.splitting = true
	defer func() { c.splitting = false }()
	return c.expr(n, m)
}

// preValue compiles a window-free part of an expression being split into
// a pre value.
func (c *compiler) preValue(n ast.ExprNode, m mode) (expr, error) {
	// A pre value is evaluated before the outputs exist: it names no alias.
	outputs := c.outputs
	c.splitting, c.outputs = false, false
	e, err := c.expr(n, m)
	c.splitting, c.outputs = true, outputs
	if err != nil {
		return nil, err
	}
	if v, ok := constant(e); ok {
		return literal{v}, nil
	}
	c.q.pres = append(c.q.pres, e)
	return preRef{len(c.q.pres) - 1}, nil
}

// window compiles a window function call.
func (c *compiler) window(n *ast.WindowFuncExpr, m mode) (expr, error) {
	if !c.splitting {
		return nil, invalid(restore(n), "window functions are taken in the select list and ORDER BY only, not nested in another")
	}
	c.splitting = false
	defer func() { c.splitting = true }()
	name := strings.ToLower(n.Name)
	_, isAgg := aggregates[name]
	if _, ok := windowFuncs[name]; !ok && !isAgg {
		return nil, invalid(restore(n), "window function %s is not supported (ROW_NUMBER, RANK, DENSE_RANK, LAG, LEAD and the aggregates are)", n.Name)
	}
	spec := &windowSpec{fn: name, distinct: n.Distinct}
	if n.IgnoreNull || n.FromLast || n.Spec.Frame != nil || n.Spec.Ref.O != "" || n.Spec.Name.O != "" {
		return nil, invalid(restore(n), "window frames, named windows and IGNORE NULLS are not supported: a window is OVER ([PARTITION BY ...] [ORDER BY ...])")
	}
	if err := c.windowArgs(n, spec, m); err != nil {
		return nil, err
	}
	if p := n.Spec.PartitionBy; p != nil {
		for _, item := range p.Items {
			e, err := c.expr(item.Expr, m)
			if err != nil {
				return nil, err
			}
			spec.partition = append(spec.partition, e)
		}
	}
	if o := n.Spec.OrderBy; o != nil {
		for _, item := range o.Items {
			e, err := c.expr(item.Expr, m)
			if err != nil {
				return nil, err
			}
			spec.order = append(spec.order, orderItem{e: e, desc: item.Desc})
		}
	}
	if (name == "rank" || name == "dense_rank") && len(spec.order) == 0 {
		return nil, invalid(restore(n), "%s needs an ORDER BY in its window", strings.ToUpper(name))
	}
	c.q.windows = append(c.q.windows, spec)
	return winRef{len(c.q.windows) - 1}, nil
}

// windowArgs compiles a window function's arguments.
func (c *compiler) windowArgs(n *ast.WindowFuncExpr, spec *windowSpec, m mode) error {
	args := n.Args
	switch spec.fn {
	case "row_number", "rank", "dense_rank":
		if len(args) != 0 {
			return invalid(restore(n), "%s takes no argument", strings.ToUpper(spec.fn))
		}
		return nil
	case "lag", "lead":
		if len(args) < 1 || len(args) > 3 {
			return invalid(restore(n), "%s takes 1 to 3 arguments", strings.ToUpper(spec.fn))
		}
		spec.offset = 1
		if len(args) >= 2 {
			off, err := c.constInt(args[1], strings.ToUpper(spec.fn)+"'s offset")
			if err != nil {
				return err
			}
			spec.offset = off
		}
		if len(args) == 3 {
			d, err := c.expr(args[2], m)
			if err != nil {
				return err
			}
			spec.deflt = d
		}
		arg, err := c.expr(args[0], m)
		spec.arg = arg
		return err
	case "count":
		if !spec.distinct && len(args) == 1 && isStar(n.Text(), n.Args) {
			return nil
		}
	}
	if len(args) != 1 {
		return invalid(restore(n), "%s takes one argument", strings.ToUpper(spec.fn))
	}
	// An aggregate's argument is read on the rows of the window: in a
	// grouped query those are groups, so it may itself be an aggregate
	// (SUM(COUNT(*)) OVER ()).
	arg, err := c.expr(args[0], m)
	spec.arg = arg
	return err
}

// winRow is one result row of a query with windows: its pre values, each
// window's inputs (partition keys, order keys, argument, default) and, at
// the end, each window's result.
type winRow struct {
	pre  []Value
	in   [][]Value
	outs []Value
}

// addWindowRow keeps the current row (or group) for the windows.
func (r *Run) addWindowRow() error {
	q := r.q
	row := winRow{pre: make([]Value, len(q.pres)), in: make([][]Value, len(q.windows))}
	size := int64(72)
	for j, e := range q.pres {
		row.pre[j] = e.eval(&r.c).owned()
		size += row.pre[j].size()
	}
	for j, w := range q.windows {
		in := make([]Value, 0, len(w.partition)+len(w.order)+2)
		for _, e := range w.partition {
			in = append(in, e.eval(&r.c).owned())
		}
		for _, o := range w.order {
			in = append(in, o.e.eval(&r.c).owned())
		}
		for _, e := range []expr{w.arg, w.deflt} {
			v := nullValue
			if e != nil {
				v = e.eval(&r.c).owned()
			}
			in = append(in, v)
		}
		for _, v := range in {
			size += v.size()
		}
		row.in[j] = in
	}
	r.wrows = append(r.wrows, row)
	return r.charge(size)
}

// computeWindows fills each kept row's window results.
func (r *Run) computeWindows() {
	idx := make([]int, len(r.wrows))
	for i := range r.wrows {
		r.wrows[i].outs = make([]Value, len(r.q.windows))
	}
	for j, w := range r.q.windows {
		np, no := len(w.partition), len(w.order)
		for i := range idx {
			idx[i] = i
		}
		in := func(i int) []Value { return r.wrows[i].in[j] }
		slices.SortStableFunc(idx, func(a, b int) int {
			if c := compareValues(in(a)[:np], in(b)[:np]); c != 0 {
				return c
			}
			return compareOrder(w.order, in(a)[np:np+no], in(b)[np:np+no])
		})
		for start := 0; start < len(idx); {
			end := start + 1
			for end < len(idx) && compareValues(in(idx[start])[:np], in(idx[end])[:np]) == 0 {
				end++
			}
			r.windowPartition(j, w, idx[start:end])
			start = end
		}
	}
}

// windowPartition computes window j over one partition's rows, in order.
func (r *Run) windowPartition(j int, w *windowSpec, rows []int) {
	np, no := len(w.partition), len(w.order)
	in := func(k int) []Value { return r.wrows[rows[k]].in[j] }
	set := func(k int, v Value) { r.wrows[rows[k]].outs[j] = v }
	peer := func(a, b int) bool { return compareOrder(w.order, in(a)[np:np+no], in(b)[np:np+no]) == 0 }
	switch w.fn {
	case "row_number":
		for k := range rows {
			set(k, intValue(int64(k+1)))
		}
		return
	case "rank", "dense_rank":
		rank, dense := int64(0), int64(0)
		for k := range rows {
			if k == 0 || !peer(k-1, k) {
				rank, dense = int64(k+1), dense+1
			}
			if w.fn == "rank" {
				set(k, intValue(rank))
			} else {
				set(k, intValue(dense))
			}
		}
		return
	case "lag", "lead":
		step := w.offset
		if w.fn == "lag" {
			step = -step
		}
		for k := range rows {
			at := int64(k) + step
			if at < 0 || at >= int64(len(rows)) {
				set(k, in(k)[np+no+1])
				continue
			}
			set(k, in(int(at))[np+no])
		}
		return
	}
	// An aggregate over the partition; with ORDER BY a running one, each
	// row's value taking its peers (SQL's default RANGE frame).
	spec := &aggSpec{fn: w.fn, distinct: w.distinct}
	if w.arg != nil {
		spec.args = []expr{outRef{0}}
	}
	var a acc
	var c rowCtx
	var key []byte
	for start := 0; start < len(rows); {
		end := start + 1
		for no > 0 && end < len(rows) && peer(start, end) {
			end++
		}
		if no == 0 {
			end = len(rows)
		}
		for k := start; k < end; k++ {
			c.out = in(k)[np+no:]
			key, _ = a.add(spec, &c, key)
		}
		v := a.result(spec)
		for k := start; k < end; k++ {
			set(k, v)
		}
		start = end
	}
}

// compareValues orders value lists as GROUP BY keys are told apart.
func compareValues(a, b []Value) int {
	for i := range a {
		if c := sortCompare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// compareOrder orders two rows' ORDER BY values.
func compareOrder(order []orderItem, a, b []Value) int {
	for i, o := range order {
		c := sortCompare(a[i], b[i])
		if o.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
