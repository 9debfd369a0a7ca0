package sqlquery

import (
	"slices"
	"strings"
)

// aggregate is one aggregate function of the dialect.
type aggregate struct {
	name string
	doc  string
}

// aggregates lists the aggregate functions by lower-case name.
var aggregates = map[string]aggregate{
	"count": {"COUNT", "COUNT(*) rows; COUNT(x) rows where x is not NULL; COUNT(DISTINCT x, ...) distinct values"},
	"sum":   {"SUM", "sum of the values that are not NULL"},
	"avg":   {"AVG", "mean of the values that are not NULL, a double"},
	"min":   {"MIN", "smallest value that is not NULL"},
	"max":   {"MAX", "largest value that is not NULL"},
}

// aggSpec is one aggregate call of a query.
type aggSpec struct {
	fn       string // lower-case name
	args     []expr // none for COUNT(*)
	distinct bool
}

// acc accumulates one aggregate of one group.
type acc struct {
	n     int64
	sumI  int64
	sumF  float64
	float bool
	best  Value
	set   map[string]struct{}
}

// add feeds one row; it returns the bytes newly held (a distinct value).
func (a *acc) add(s *aggSpec, c *rowCtx, key []byte) ([]byte, int64) {
	if len(s.args) == 0 { // COUNT(*)
		a.n++
		return key, 0
	}
	if s.distinct {
		key = key[:0]
		for _, e := range s.args {
			v := e.eval(c)
			if v.Kind == Null {
				return key, 0
			}
			key = appendKey(key, v)
		}
		if a.set == nil {
			a.set = map[string]struct{}{}
		}
		if _, ok := a.set[string(key)]; ok {
			return key, 0
		}
		a.set[string(key)] = struct{}{}
		a.n++
		return key, int64(len(key)) + 48
	}
	v := s.args[0].eval(c)
	if v.Kind == Null {
		return key, 0
	}
	a.n++
	switch s.fn {
	case "sum", "avg":
		if v.Kind == Int && !a.float {
			a.sumI += v.Int
			return key, 0
		}
		f, ok := v.number()
		if !ok {
			a.n--
			return key, 0
		}
		if !a.float {
			a.float, a.sumF = true, float64(a.sumI)
		}
		a.sumF += f
	case "min", "max":
		sign := 1
		if s.fn == "min" {
			sign = -1
		}
		if a.best.Kind == Null || sortCompare(v, a.best)*sign > 0 {
			old := len(a.best.Str)
			a.best = v.owned()
			return key, int64(len(a.best.Str) - old)
		}
	}
	return key, 0
}

// result is the aggregate's value for its group.
func (a *acc) result(s *aggSpec) Value {
	switch s.fn {
	case "count":
		return intValue(a.n)
	case "sum":
		if a.n == 0 {
			return nullValue
		}
		if a.float {
			return floatValue(a.sumF)
		}
		return intValue(a.sumI)
	case "avg":
		if a.n == 0 {
			return nullValue
		}
		if a.float {
			return floatValue(a.sumF / float64(a.n))
		}
		return floatValue(float64(a.sumI) / float64(a.n))
	}
	return a.best
}

func sortInfos(fs []FunctionInfo) {
	slices.SortFunc(fs, func(a, b FunctionInfo) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
}
