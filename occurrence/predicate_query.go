package occurrence

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// reservedQueryParams are query parameters that are not search criteria:
// ParseQuery skips them and the caller handles them (download format,
// notification, paging of search pages).
var reservedQueryParams = []string{"format", "notification_address", "notificationAddress", "limit", "offset", "locale"}

// ParseQuery turns portal search parameters into a predicate, the way GBIF's
// download service does for GET requests: parameters are ANDed; repeated
// values of one parameter are ORed (plain values become one "in"); "*" means
// isNotNull; "a,b" on a number or date parameter is a range ("*" for an open
// end); geometry=WKT is within; geoDistance=lat,lon,distance; hasCoordinate=
// true|false. Parameter names are GBIF's in any spelling (taxonKey,
// taxon_key, TAXON_KEY). It returns nil, nil when q has no criteria.
func ParseQuery(q url.Values, lim Limits) (*Predicate, error) {
	lim = lim.withDefaults()
	names := make([]string, 0, len(q))
	for n := range q {
		if !slices.Contains(reservedQueryParams, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var parts []*Predicate
	paths := map[*Predicate]string{}
	w := &shapeWalker{lim: lim}
	for _, name := range names {
		p, err := queryParam(name, q[name])
		if err != nil {
			return nil, err
		}
		if p != nil {
			parts = append(parts, p)
			paths[p] = "query parameter " + name
			w.fixed = paths[p]
			w.walk(p, "", 2)
		}
	}
	if err := w.finish(); err != nil {
		return nil, err
	}
	for _, p := range parts {
		if err := compileTree(p, "", 1, lim); err != nil {
			if pe, ok := err.(*PredicateError); ok {
				name := strings.TrimPrefix(paths[p], "query parameter ")
				pe.Path = paths[p]
				if pe.Key == "" {
					pe.Key = name
				}
			}
			return nil, err
		}
	}
	var p *Predicate
	switch len(parts) {
	case 0:
		return nil, nil
	case 1:
		p = parts[0]
	default:
		p = &Predicate{Type: TypeAnd, Predicates: parts}
	}
	if err := checkWork(p, lim, paths); err != nil {
		return nil, err
	}
	return p, nil
}

// queryParam builds the predicate of one parameter (compiled by the
// caller).
func queryParam(name string, values []string) (*Predicate, error) {
	path := "query parameter " + name
	var alts []*Predicate
	var plain []string
	lk := looseKey(name)
	var spec *keySpec
	gte := lk == "EVENTDATEGTE" // GBIF's eventDateGte=v: an event date from v on
	switch {
	case gte:
		spec = keySpecs["EVENT_DATE"]
	case lk != "GEOMETRY" && lk != "GEODISTANCE":
		s, ok := lookupKey(name)
		if !ok {
			if lk == "Q" {
				return nil, ptErr(path, name, "", "q (full-text search) is the occurrence search's; downloads select by search parameters, as GBIF's do (search parameters: %s)",
					strings.Join(SearchKeys(), ", "))
			}
			if gbifName, isGBIF := gbifOnlyParameter(lk); isGBIF {
				return nil, ptErr(path, name, "", "GBIF's search parameter %s is not supported here: this table holds no such data (search parameters: %s)",
					gbifName, strings.Join(SearchKeys(), ", "))
			}
			return nil, ptErr(path, name, "", "unknown query parameter (search parameters: %s)", strings.Join(SearchKeys(), ", "))
		}
		spec = s
	}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, ptErr(path, name, v, "empty value")
		}
		switch {
		case lk == "GEOMETRY":
			alts = append(alts, &Predicate{Type: TypeWithin, Geometry: v})
		case lk == "GEODISTANCE":
			p, err := geoDistanceParam(path, v)
			if err != nil {
				return nil, err
			}
			alts = append(alts, p)
		case gte:
			if strings.Contains(v, ",") {
				return nil, ptErr(path, name, v, "one date: eventDateGte is a lower bound")
			}
			alts = append(alts, rangeParam(spec, v+",*"))
		case v == "*":
			alts = append(alts, &Predicate{Type: TypeIsNotNull, Parameter: spec.name})
		case spec.geoTime:
			plain = append(plain, v) // "A,B" is a span of concepts in either order
		case spec.kind.numeric() && strings.Count(v, ",") > 1:
			return nil, ptErr(path, name, v, "several values in one: a,b is a range; for several values repeat the parameter (%s)",
				repeatedParam(name, v))
		case spec.kind.numeric() && strings.Contains(v, ","):
			alts = append(alts, rangeParam(spec, v))
		default:
			plain = append(plain, v)
		}
	}
	switch len(plain) {
	case 0:
	case 1:
		alts = append(alts, &Predicate{Type: TypeEquals, Key: spec.name, Value: plain[0]})
	default:
		alts = append(alts, &Predicate{Type: TypeIn, Key: spec.name, Values: plain})
	}
	switch len(alts) {
	case 0:
		return nil, nil
	case 1:
		return alts[0], nil
	}
	return &Predicate{Type: TypeOr, Predicates: alts}, nil
}

// gbifOnlyParameter reports a GBIF search parameter (in loose spelling)
// that this table cannot answer (no column holds its data: network and
// collection keys, DNA sequences, clustering...), with its GBIF name.
func gbifOnlyParameter(loose string) (string, bool) {
	for _, p := range searchParameters {
		if looseKey(p.name) == loose {
			return p.name, true
		}
	}
	return "", false
}

// repeatedParam spells "1,2,3" of parameter name as name=1&name=2&name=3
// (the first few).
func repeatedParam(name, v string) string {
	vals := strings.Split(v, ",")
	var b strings.Builder
	for i, x := range vals {
		if i == 3 {
			b.WriteString("&...")
			break
		}
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(name + "=" + strings.TrimSpace(x))
	}
	return b.String()
}

// rangeParam turns "a,b", "*,b", "a,*" into range, lessThanOrEquals,
// greaterThanOrEquals ("*,*" is isNotNull).
func rangeParam(spec *keySpec, v string) *Predicate {
	a, b, _ := strings.Cut(v, ",")
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	switch {
	case a == "*" && b == "*":
		return &Predicate{Type: TypeIsNotNull, Parameter: spec.name}
	case a == "*":
		return &Predicate{Type: TypeLessThanOrEquals, Key: spec.name, Value: b}
	case b == "*":
		return &Predicate{Type: TypeGreaterThanOrEquals, Key: spec.name, Value: a}
	}
	return &Predicate{Type: TypeRange, Key: spec.name, Range: &RangeValue{Gte: a, Lte: b}}
}

// geoDistanceParam parses "lat,lon,distance".
func geoDistanceParam(path, v string) (*Predicate, error) {
	f := strings.Split(v, ",")
	if len(f) != 3 {
		return nil, ptErr(path, "geoDistance", v, "want latitude,longitude,distance")
	}
	lat, err1 := strconv.ParseFloat(strings.TrimSpace(f[0]), 64)
	lon, err2 := strconv.ParseFloat(strings.TrimSpace(f[1]), 64)
	if err1 != nil || err2 != nil {
		return nil, ptErr(path, "geoDistance", v, "latitude and longitude must be numbers")
	}
	return &Predicate{Type: TypeGeoDistance, Latitude: lat, Longitude: lon, Distance: strings.TrimSpace(f[2])}, nil
}

// Describe returns the predicate in words for EML and e-mails, e.g.
// "Country is one of DK, SE AND Year 2000-2010".
func (p *Predicate) Describe() string {
	if p == nil {
		return "All records"
	}
	return p.describe(false)
}

func (p *Predicate) describe(nested bool) string {
	switch p.Type {
	case TypeAnd, TypeOr:
		parts := make([]string, len(p.Predicates))
		for i, c := range p.Predicates {
			parts[i] = c.describe(true)
		}
		s := strings.Join(parts, " "+strings.ToUpper(p.Type)+" ")
		if nested && len(parts) > 1 {
			s = "(" + s + ")"
		}
		return s
	case TypeNot:
		return "NOT " + p.Predicate.describe(true)
	case TypeWithin:
		return "Geometry within " + p.Geometry
	case TypeFullText:
		return p.describeFullText()
	case TypeGeoDistance:
		return fmt.Sprintf("Within %s of latitude %s, longitude %s", p.Distance,
			strconv.FormatFloat(p.Latitude, 'f', -1, 64), strconv.FormatFloat(p.Longitude, 'f', -1, 64))
	case TypeIsNull, TypeIsNotNull:
		label := p.Parameter
		if s, ok := keySpecs[p.Parameter]; ok {
			label = s.label
		}
		if p.Type == TypeIsNull {
			return label + " is empty"
		}
		return label + " is present"
	}
	label := p.Key
	if s, ok := keySpecs[p.Key]; ok {
		label = s.label
	}
	switch p.Type {
	case TypeEquals:
		v := describeValue(p.Key, p.Value)
		if strings.Contains(p.Value, ",") && isNumericKey(p.Key) {
			return label + " " + v
		}
		return label + " is " + v
	case TypeIn:
		return label + " is one of " + describeValues(p.Key, p.Values)
	case TypeLike:
		return label + " matches " + p.Value
	case TypeLessThan:
		return label + " before/below " + p.Value
	case TypeLessThanOrEquals:
		return label + " up to " + p.Value
	case TypeGreaterThan:
		return label + " after/above " + p.Value
	case TypeGreaterThanOrEquals:
		return label + " from " + p.Value
	case TypeRange:
		r := p.Range
		lo, hi := r.Gte, r.Lte
		if r.Gt != "" {
			lo = "above " + r.Gt
		}
		if r.Lt != "" {
			hi = "below " + r.Lt
		}
		return label + " " + lo + "-" + hi
	}
	return p.String()
}

func isNumericKey(key string) bool {
	s, ok := keySpecs[key]
	return ok && s.kind.numeric()
}

func describeValue(key, v string) string {
	if key == "LICENSE" {
		return licenseName(v)
	}
	if isNumericKey(key) {
		a, b, ok := strings.Cut(v, ",")
		if ok {
			a, b = strings.TrimSpace(a), strings.TrimSpace(b)
			switch {
			case a == "*":
				return "up to " + b
			case b == "*":
				return "from " + a
			}
			return a + "-" + b
		}
	}
	return v
}

func describeValues(key string, vs []string) string {
	const max = 20
	out := make([]string, 0, max+1)
	for i, v := range vs {
		if i == max {
			out = append(out, fmt.Sprintf("and %d more", len(vs)-max))
			break
		}
		out = append(out, describeValue(key, v))
	}
	return strings.Join(out, ", ")
}
