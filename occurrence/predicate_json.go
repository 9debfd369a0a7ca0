package occurrence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParsePredicateJSON parses and validates a GBIF predicate in JSON, the object
// a download request carries under "predicate". JSON null is the match-all
// (nil) predicate.
//
// Invalid UTF-8 is rejected, naming where (encoding/json would silently
// read it as U+FFFD).
func ParsePredicateJSON(data []byte, lim Limits) (*Predicate, error) {
	lim = lim.withDefaults()
	if !utf8.Valid(data) {
		off := invalidUTF8(data)
		return nil, ptErr(jsonPathAt(data, off), "", "", "not valid UTF-8 (byte %d of the predicate)", off)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, ptErr("", "", "", "not valid JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, ptErr("", "", "", "trailing data after the predicate object")
	}
	if raw == nil {
		return nil, nil
	}
	p, err := predicateFromJSON(raw, "")
	if err != nil {
		return nil, err
	}
	if err := validateTree(p, lim); err != nil {
		return nil, err
	}
	return p, nil
}

// typeNames maps a lower-cased predicate type to its canonical spelling.
var typeNames = func() map[string]string {
	m := map[string]string{}
	for _, t := range predicateTypes {
		m[strings.ToLower(t)] = t
	}
	return m
}()

// fieldsByType lists the JSON fields each predicate type takes besides "type".
var fieldsByType = func() map[string][]string {
	simple := []string{"key", "value", "matchCase", "checklistKey"}
	isNull := []string{"parameter", "checklistKey"}
	return map[string][]string{
		TypeAnd: {"predicates"}, TypeOr: {"predicates"}, TypeNot: {"predicate"},
		TypeEquals: simple, TypeLike: simple, TypeLessThan: simple, TypeLessThanOrEquals: simple,
		TypeGreaterThan: simple, TypeGreaterThanOrEquals: simple,
		TypeIn: {"key", "values", "matchCase", "checklistKey"}, TypeRange: {"key", "value"},
		TypeIsNull: isNull, TypeIsNotNull: isNull,
		TypeWithin: {"geometry"}, TypeGeoDistance: {"latitude", "longitude", "distance"},
	}
}()

func predicateFromJSON(raw any, path string) (*Predicate, error) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, ptErr(path, "", "", "a predicate must be a JSON object")
	}
	tv, ok := obj["type"]
	if !ok {
		if _, body := obj["predicate"]; body {
			return nil, ptErr(path, "", "", "missing \"type\"; pass the request's predicate object, not the whole download request")
		}
		return nil, ptErr(joinPath(path, "type"), "", "", "missing \"type\"")
	}
	ts, ok := tv.(string)
	if !ok {
		return nil, ptErr(joinPath(path, "type"), "", "", "\"type\" must be a string")
	}
	typ, ok := typeNames[strings.ToLower(ts)]
	if !ok && strings.EqualFold(ts, "fullTextSearch") {
		// gbif-api's FullTextSearchPredicate: "not currently supported for
		// occurrence downloads"; the occurrence search's q is.
		return nil, ptErr(joinPath(path, "type"), "", ts, "full-text search is not supported in downloads, as in GBIF; the occurrence search takes it as q")
	}
	if !ok {
		return nil, ptErr(joinPath(path, "type"), "", ts, "unknown predicate type (one of %s)", strings.Join(predicateTypes, ", "))
	}
	allowed := fieldsByType[typ]
	for _, f := range slices.Sorted(maps.Keys(obj)) {
		if f == "type" || slices.Contains(allowed, f) {
			continue
		}
		return nil, ptErr(joinPath(path, f), "", "", "field %q is not part of a %s predicate (fields: %s)", f, typ, strings.Join(allowed, ", "))
	}
	p := &Predicate{Type: typ}
	if ck, ok := obj["checklistKey"]; ok && ck != nil {
		s, ok := ck.(string)
		if !ok {
			return nil, ptErr(joinPath(path, "checklistKey"), "", fmt.Sprint(ck), "checklistKey must be a string")
		}
		p.ChecklistKey = strings.TrimSpace(s)
	}
	var err error
	switch typ {
	case TypeAnd, TypeOr:
		err = p.childrenFromJSON(obj["predicates"], joinPath(path, "predicates"))
	case TypeNot:
		v, ok := obj["predicate"]
		if !ok || v == nil {
			return nil, ptErr(joinPath(path, "predicate"), "", "", "not needs a predicate")
		}
		p.Predicate, err = predicateFromJSON(v, joinPath(path, "predicate"))
	case TypeIsNull, TypeIsNotNull:
		p.Parameter, err = jsonString(obj, "parameter", path)
	case TypeWithin:
		p.Geometry, err = jsonString(obj, "geometry", path)
	case TypeGeoDistance:
		err = p.geoDistanceFromJSON(obj, path)
	default:
		err = p.simpleFromJSON(obj, path)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Predicate) childrenFromJSON(v any, path string) error {
	arr, ok := v.([]any)
	if !ok {
		return ptErr(path, "", "", "%s needs an array of predicates", p.Type)
	}
	p.Predicates = make([]*Predicate, len(arr))
	for i, c := range arr {
		cp, err := predicateFromJSON(c, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return err
		}
		p.Predicates[i] = cp
	}
	return nil
}

func (p *Predicate) simpleFromJSON(obj map[string]any, path string) error {
	var err error
	if p.Key, err = jsonString(obj, "key", path); err != nil {
		return err
	}
	if mc, ok := obj["matchCase"]; ok && mc != nil {
		b, ok := mc.(bool)
		if !ok {
			return ptErr(joinPath(path, "matchCase"), p.Key, "", "matchCase must be true or false")
		}
		p.MatchCase = &b
	}
	switch p.Type {
	case TypeIn:
		arr, ok := obj["values"].([]any)
		if !ok {
			return ptErr(joinPath(path, "values"), p.Key, "", "in needs an array of values")
		}
		p.Values = make([]string, len(arr))
		for i, v := range arr {
			s, ok := scalarString(v)
			if !ok {
				return ptErr(fmt.Sprintf("%s[%d]", joinPath(path, "values"), i), p.Key, "", "a value must be a string, number or boolean")
			}
			p.Values[i] = s
		}
	case TypeRange:
		return p.rangeFromJSON(obj["value"], joinPath(path, "value"))
	default:
		p.Value, err = jsonString(obj, "value", path)
	}
	return err
}

func (p *Predicate) rangeFromJSON(v any, path string) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return ptErr(path, p.Key, "", "range needs a value object {gte|gt, lte|lt}")
	}
	r := &RangeValue{}
	for _, f := range slices.Sorted(maps.Keys(obj)) {
		var dst *string
		switch f {
		case "gte":
			dst = &r.Gte
		case "gt":
			dst = &r.Gt
		case "lte":
			dst = &r.Lte
		case "lt":
			dst = &r.Lt
		default:
			return ptErr(joinPath(path, f), p.Key, "", "a range takes gte, gt, lte, lt")
		}
		if obj[f] == nil {
			continue
		}
		s, ok := scalarString(obj[f])
		if !ok || s == "" {
			return ptErr(joinPath(path, f), p.Key, "", "a range bound must be a non-empty string or number")
		}
		*dst = s
	}
	p.Range = r
	return nil
}

func (p *Predicate) geoDistanceFromJSON(obj map[string]any, path string) error {
	coord := func(field string, lim float64) (float64, error) {
		s, err := jsonString(obj, field, path)
		if err != nil {
			return 0, err
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || f < -lim || f > lim {
			return 0, ptErr(joinPath(path, field), "", s, "%s must be a number in -%g..%g", field, lim, lim)
		}
		return f, nil
	}
	var err error
	if p.Latitude, err = coord("latitude", 90); err != nil {
		return err
	}
	if p.Longitude, err = coord("longitude", 180); err != nil {
		return err
	}
	p.Distance, err = jsonString(obj, "distance", path)
	return err
}

// jsonString reads a required scalar field as a string.
func jsonString(obj map[string]any, field, path string) (string, error) {
	v, ok := obj[field]
	if !ok || v == nil {
		return "", ptErr(joinPath(path, field), "", "", "missing %q", field)
	}
	s, ok := scalarString(v)
	if !ok {
		return "", ptErr(joinPath(path, field), "", "", "%q must be a string", field)
	}
	return s, nil
}

func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// jsonPredicate is the wire form, fields in GBIF's order.
type jsonPredicate struct {
	Type       string          `json:"type"`
	Key        string          `json:"key,omitempty"`
	Value      any             `json:"value,omitempty"`
	Values     []string        `json:"values,omitempty"`
	MatchCase  *bool           `json:"matchCase,omitempty"`
	Parameter  string          `json:"parameter,omitempty"`
	Geometry   string          `json:"geometry,omitempty"`
	Latitude   string          `json:"latitude,omitempty"`
	Longitude  string          `json:"longitude,omitempty"`
	Distance   string          `json:"distance,omitempty"`
	Predicate  *Predicate      `json:"predicate,omitempty"`
	Predicates []*Predicate    `json:"predicates,omitempty"`
	Range      *jsonRangeValue `json:"-"`

	// ChecklistKey comes last: the predicates that take it have none of
	// the fields above after matchCase and parameter, so it follows them
	// as in GBIF's JSON.
	ChecklistKey string `json:"checklistKey,omitempty"`

	// Words, MinWords and MaxWords are a search's fullText predicate, which has no
	// GBIF JSON: written for its String (a cache key), never parsed.
	Words    []string `json:"words,omitempty"`
	MinWords int      `json:"minWords,omitempty"`
	MaxWords int      `json:"maxWords,omitempty"`
}

type jsonRangeValue struct {
	Gte string `json:"gte,omitempty"`
	Gt  string `json:"gt,omitempty"`
	Lte string `json:"lte,omitempty"`
	Lt  string `json:"lt,omitempty"`
}

// MarshalJSON writes GBIF predicate JSON; ParsePredicateJSON reads it back to
// an equal predicate. A nil predicate is null.
func (p *Predicate) MarshalJSON() ([]byte, error) {
	if p == nil {
		return []byte("null"), nil
	}
	j := jsonPredicate{Type: p.Type, Key: p.Key, Values: p.Values, MatchCase: p.MatchCase,
		Parameter: p.Parameter, ChecklistKey: p.ChecklistKey, Geometry: p.Geometry, Distance: p.Distance,
		Predicate: p.Predicate, Predicates: p.Predicates, Words: p.Words, MinWords: p.MinWords, MaxWords: p.MaxWords}
	switch p.Type {
	case TypeGeoDistance:
		j.Latitude = strconv.FormatFloat(p.Latitude, 'f', -1, 64)
		j.Longitude = strconv.FormatFloat(p.Longitude, 'f', -1, 64)
	case TypeRange:
		if p.Range != nil {
			j.Value = jsonRangeValue{Gte: p.Range.Gte, Gt: p.Range.Gt, Lte: p.Range.Lte, Lt: p.Range.Lt}
		}
	case TypeIn, TypeAnd, TypeOr, TypeNot, TypeIsNull, TypeIsNotNull, TypeWithin, TypeFullText:
	default:
		j.Value = p.Value
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// String returns the predicate's JSON.
func (p *Predicate) String() string {
	b, err := p.MarshalJSON()
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}

// invalidUTF8 returns the offset of the first byte of data that is not
// valid UTF-8 (len(data) if none is).
func invalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// jsonPathAt returns the path (predicates[2].value) of the JSON value or
// key whose text holds byte off of data; "" for the top level.
func jsonPathAt(data []byte, off int) string {
	type frame struct {
		obj     bool
		key     string
		idx     int
		wantKey bool
	}
	var stack []*frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			switch {
			case f.obj && f.key != "" && !f.wantKey:
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			case !f.obj && f.idx >= 0:
				fmt.Fprintf(&b, "[%d]", f.idx)
			}
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return path()
		}
		end := dec.InputOffset()
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if s, ok := tok.(string); ok && top != nil && top.obj && top.wantKey {
			top.key, top.wantKey = s, false
			if int(end) > off {
				return path()
			}
			continue
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].wantKey = true
			}
			continue
		}
		// A value begins.
		if top != nil && !top.obj {
			top.idx++
		}
		if int(end) > off {
			return path()
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, &frame{obj: d == '{', idx: -1, wantKey: d == '{'})
			continue
		}
		if top != nil && top.obj {
			top.wantKey = true
		}
	}
}
