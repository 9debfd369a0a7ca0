package parquet

import (
	"encoding/json"
	"sort"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// maxExactValues is the most distinct values of a string column a row group's
// statistics list completely; above it only min and max are kept.
const maxExactValues = 32

// statsColumn reports whether a column's statistics are worth keeping:
// everything a predicate can read. The large payload columns are left out.
func statsColumn(c occurrence.Column) bool {
	switch c.Name {
	case occurrence.ColVerbatim, occurrence.ColMultimedia, occurrence.ColExtensions:
		return false
	}
	return true
}

// addColumnStats adds the statistics of a row group's column name to out
// unless the column is not worth them.
func addColumnStats(out map[string]json.RawMessage, name string, a arrow.Array) {
	c, _, ok := occurrence.ColumnByName(name)
	if !ok || !statsColumn(c) {
		return
	}
	data, err := json.Marshal(arrayStats(a))
	if err != nil {
		return // no statistics: the column is never pruned on
	}
	out[name] = data
}

func arrayStats(a arrow.Array) colStats {
	s := colStats{Nulls: int64(a.NullN())}
	if a.NullN() == a.Len() {
		s.Exact = true
		return s
	}
	switch a := a.(type) {
	case *array.String:
		stringStats(a, &s)
	case *array.Int32:
		minMax(a.Len(), a.IsNull, func(i int) int64 { return int64(a.Value(i)) }, &s)
	case *array.Int64:
		minMax(a.Len(), a.IsNull, a.Value, &s)
	case *array.Timestamp:
		minMax(a.Len(), a.IsNull, func(i int) int64 { return int64(a.Value(i)) }, &s)
	case *array.Float64:
		floatMinMax(a, &s)
	case *array.Boolean:
		var seenT, seenF bool
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) {
				if a.Value(i) {
					seenT = true
				} else {
					seenF = true
				}
			}
		}
		s.Min, s.Max = !seenF, seenT
	}
	return s
}

func stringStats(a *array.String, s *colStats) {
	distinct := map[string]struct{}{}
	first := true
	var min, max string
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			continue
		}
		v := a.Value(i)
		if first || v < min {
			min = v
		}
		if first || v > max {
			max = v
		}
		first = false
		if distinct != nil {
			if _, ok := distinct[v]; !ok {
				if len(distinct) == maxExactValues {
					distinct = nil
				} else {
					distinct[string([]byte(v))] = struct{}{}
				}
			}
		}
	}
	s.Min, s.Max = string([]byte(min)), string([]byte(max))
	if distinct != nil {
		s.Exact = true
		s.Values = make([]string, 0, len(distinct))
		for v := range distinct {
			s.Values = append(s.Values, v)
		}
		sort.Strings(s.Values)
	}
}

func minMax(n int, isNull func(int) bool, val func(int) int64, s *colStats) {
	first := true
	var min, max int64
	for i := 0; i < n; i++ {
		if isNull(i) {
			continue
		}
		v := val(i)
		if first || v < min {
			min = v
		}
		if first || v > max {
			max = v
		}
		first = false
	}
	s.Min = json.Number(strconv.FormatInt(min, 10))
	s.Max = json.Number(strconv.FormatInt(max, 10))
}

func floatMinMax(a *array.Float64, s *colStats) {
	first := true
	var min, max float64
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			continue
		}
		v := a.Value(i)
		if v != v { // NaN: no usable bounds
			return
		}
		if first || v < min {
			min = v
		}
		if first || v > max {
			max = v
		}
		first = false
	}
	s.Min = json.Number(strconv.FormatFloat(min, 'g', -1, 64))
	s.Max = json.Number(strconv.FormatFloat(max, 'g', -1, 64))
}
