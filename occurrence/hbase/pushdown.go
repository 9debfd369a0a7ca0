package hbase

import (
	"math"
	"strconv"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc"
)

// maxPushedValues bounds the values of one in-predicate turned into a
// server-side filter; longer lists are only evaluated client-side.
const maxPushedValues = 256

// pushed is a server-side filter built from a predicate. The filter never
// drops a row the predicate matches (it selects a superset); exact says it
// selects exactly the matching rows, so the client need not re-check them.
type pushed struct {
	filter hrpc.Filter
	exact  bool
}

type cellKind int

const (
	cellString cellKind = iota
	cellInt
	cellFloat
	cellBool
	cellTaxon
)

type keyTarget struct {
	qual  []byte
	kind  cellKind
	exact bool // false: the cell holds a superset of what the key matches
}

// pushKeys maps GBIF search keys to the filter cells that can answer them.
var pushKeys = map[string]keyTarget{
	"COUNTRY":              {fCountry.qual, cellString, true},
	"DATASET_KEY":          {fDataset.qual, cellString, true},
	"BASIS_OF_RECORD":      {fBasis.qual, cellString, true},
	"LICENSE":              {fLicense.qual, cellString, true},
	"OCCURRENCE_STATUS":    {fStatus.qual, cellString, true},
	"PUBLISHING_ORG":       {fPublisher.qual, cellString, true},
	"YEAR":                 {fYear.qual, cellInt, true},
	"MONTH":                {fMonth.qual, cellInt, true},
	"HAS_COORDINATE":       {fHasCoord.qual, cellBool, true},
	"HAS_GEOSPATIAL_ISSUE": {fGeoIssue.qual, cellBool, true},
	"DECIMAL_LATITUDE":     {fLatitude.qual, cellFloat, false},
	"DECIMAL_LONGITUDE":    {fLongitude.qual, cellFloat, false},
	"TAXON_KEY":            {qualTaxa, cellTaxon, true},
	"ACCEPTED_TAXON_KEY":   {qualTaxa, cellTaxon, false},
	"KINGDOM_KEY":          {qualTaxa, cellTaxon, false},
	"PHYLUM_KEY":           {qualTaxa, cellTaxon, false},
	"CLASS_KEY":            {qualTaxa, cellTaxon, false},
	"ORDER_KEY":            {qualTaxa, cellTaxon, false},
	"FAMILY_KEY":           {qualTaxa, cellTaxon, false},
	"GENUS_KEY":            {qualTaxa, cellTaxon, false},
	"SPECIES_KEY":          {qualTaxa, cellTaxon, false},
}

// pushdown translates what it can of p into a server-side filter: and keeps
// the children it can translate (a superset), or needs all of them, leaves
// are equals/in/comparisons/range on the keys of pushKeys. ok is false when
// nothing can be pushed.
func pushdown(p *occurrence.Predicate) (pushed, bool) {
	if p == nil {
		return pushed{}, false
	}
	switch p.Type {
	case occurrence.TypeAnd:
		list := hrpc.FilterList{}
		exact := true
		for _, c := range p.Predicates {
			f, ok := pushdown(c)
			if !ok {
				exact = false
				continue
			}
			exact = exact && f.exact
			list.Filters = append(list.Filters, f.filter)
		}
		if len(list.Filters) == 0 {
			return pushed{}, false
		}
		return pushed{list, exact}, true
	case occurrence.TypeOr:
		list := hrpc.FilterList{Or: true}
		exact := true
		for _, c := range p.Predicates {
			f, ok := pushdown(c)
			if !ok {
				return pushed{}, false
			}
			exact = exact && f.exact
			list.Filters = append(list.Filters, f.filter)
		}
		return pushed{list, exact}, len(list.Filters) > 0
	}
	t, ok := pushKeys[p.Key]
	if !ok {
		return pushed{}, false
	}
	switch p.Type {
	case occurrence.TypeEquals:
		return leaf(t, p.Value)
	case occurrence.TypeIn:
		if len(p.Values) > maxPushedValues {
			return pushed{}, false
		}
		list := hrpc.FilterList{Or: true}
		exact := true
		for _, v := range p.Values {
			f, ok := leaf(t, v)
			if !ok {
				return pushed{}, false
			}
			exact = exact && f.exact
			list.Filters = append(list.Filters, f.filter)
		}
		return pushed{list, exact}, true
	case occurrence.TypeLessThan, occurrence.TypeLessThanOrEquals, occurrence.TypeGreaterThan, occurrence.TypeGreaterThanOrEquals:
		op := map[string]hrpc.CompareOp{
			occurrence.TypeLessThan: hrpc.Less, occurrence.TypeLessThanOrEquals: hrpc.LessOrEqual,
			occurrence.TypeGreaterThan: hrpc.Greater, occurrence.TypeGreaterThanOrEquals: hrpc.GreaterOrEqual,
		}[p.Type]
		v, ok := numeric(t, p.Value)
		if !ok {
			return pushed{}, false
		}
		return pushed{scvf(t.qual, op, v), t.exact}, true
	case occurrence.TypeRange:
		r := p.Range
		if r == nil {
			return pushed{}, false
		}
		list := hrpc.FilterList{}
		for _, b := range []struct {
			v  string
			op hrpc.CompareOp
		}{{r.Gte, hrpc.GreaterOrEqual}, {r.Gt, hrpc.Greater}, {r.Lte, hrpc.LessOrEqual}, {r.Lt, hrpc.Less}} {
			if b.v == "" {
				continue
			}
			v, ok := numeric(t, b.v)
			if !ok {
				return pushed{}, false
			}
			list.Filters = append(list.Filters, scvf(t.qual, b.op, v))
		}
		if len(list.Filters) == 0 {
			return pushed{}, false
		}
		return pushed{list, t.exact}, true
	}
	return pushed{}, false
}

func scvf(qual []byte, op hrpc.CompareOp, v []byte) hrpc.Filter {
	return hrpc.SingleColumnValueFilter{Family: famFilter, Qualifier: qual, Op: op,
		Comparator: hrpc.BinaryComparator(v), FilterIfMissing: true}
}

// leaf builds the filter of one equals value (a number range "a,b" for
// numeric keys).
func leaf(t keyTarget, v string) (pushed, bool) {
	switch t.kind {
	case cellString:
		return pushed{scvf(t.qual, hrpc.Equal, []byte(v)), t.exact}, true
	case cellBool:
		switch v {
		case "true":
			return pushed{scvf(t.qual, hrpc.Equal, []byte{1}), t.exact}, true
		case "false":
			return pushed{scvf(t.qual, hrpc.Equal, []byte{0}), t.exact}, true
		}
		return pushed{}, false
	case cellTaxon:
		if _, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil {
			return pushed{}, false
		}
		return pushed{hrpc.SingleColumnValueFilter{Family: famFilter, Qualifier: t.qual, Op: hrpc.Equal,
			Comparator: hrpc.SubstringComparator(";" + strings.TrimSpace(v) + ";"), FilterIfMissing: true}, t.exact}, true
	}
	lo, hi, isRange := strings.Cut(v, ",")
	if !isRange {
		hi = lo
	}
	list := hrpc.FilterList{}
	for _, b := range []struct {
		v  string
		op hrpc.CompareOp
	}{{lo, hrpc.GreaterOrEqual}, {hi, hrpc.LessOrEqual}} {
		if strings.TrimSpace(b.v) == "*" {
			continue
		}
		enc, ok := numeric(t, b.v)
		if !ok {
			return pushed{}, false
		}
		list.Filters = append(list.Filters, scvf(t.qual, b.op, enc))
	}
	if len(list.Filters) == 0 { // "*,*": any value
		return pushed{scvf(t.qual, hrpc.NotEqual, nil), t.exact}, true
	}
	return pushed{list, t.exact}, true
}

// numeric encodes a number value of a numeric key like its filter cell.
func numeric(t keyTarget, v string) ([]byte, bool) {
	v = strings.TrimSpace(v)
	switch t.kind {
	case cellInt:
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return nil, false
		}
		return sortableInt32(int32(n)), true
	case cellFloat:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		return sortableFloat(f), true
	}
	return nil, false
}
