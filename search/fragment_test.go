package search

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// TestFragmentJSON: a record's fragment is GBIF's DwC-A fragment: members
// in Java's key order, source terms by simple name, "id" the
// occurrenceID, and extensions by row type with rows by simple name.
func TestFragmentJSON(t *testing.T) {
	rec := testRecord()
	b := batchOf(t, rec, fragmentCols)
	js := appendFragment(nil, b, 0)
	var got map[string]any
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	want := map[string]any{
		"catalogNumber": "C-1", "country": "Danmark", "verbatimLatitude": "55 40 N", "someNewTerm": "x",
		"private": "y", "modified": "2001", "decimalLatitude": "55.676098123",
		"extensions": map[string]any{
			"http://rs.tdwg.org/dwc/terms/MeasurementOrFact": []any{map[string]any{"measurementType": "length", "measurementValue": "12", "measurementUnit": "cm"}},
			"http://rs.gbif.org/terms/1.0/Multimedia":        []any{map[string]any{"identifier": "https://example.org/a.jpg"}},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fragment:\n got %#v\nwant %#v\n%s", got, want, js)
	}
	// Members in key order, as GBIF's TreeMap writes them.
	var order []string
	dec := json.NewDecoder(strings.NewReader(string(js)))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		order = append(order, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	if !slices.IsSorted(order) || len(order) != len(want) {
		t.Fatalf("member order %q", order)
	}
	if i := strings.Index(string(js), "MeasurementOrFact"); i < strings.Index(string(js), "Multimedia") {
		t.Fatalf("extensions not in row type order: %s", js)
	}

	// With an occurrenceID, "id" is it; without terms, an empty object.
	rec.SetString(occurrence.ColumnIndex(occurrence.ColVerbatim), `{"occurrenceID":"urn:x:1","dcterms:type":"PhysicalObject"}`)
	rec.SetString(occurrence.ColumnIndex(occurrence.ColExtensions), "")
	js = appendFragment(nil, batchOf(t, rec, fragmentCols), 0)
	if string(js) != `{"id":"urn:x:1","occurrenceID":"urn:x:1","type":"PhysicalObject"}` {
		t.Fatalf("with occurrenceID: %s", js)
	}
	rec.SetString(occurrence.ColumnIndex(occurrence.ColVerbatim), "")
	if js = appendFragment(nil, batchOf(t, rec, fragmentCols), 0); string(js) != `{}` {
		t.Fatalf("no terms: %s", js)
	}
}

// TestCompareUTF16 orders as Java's String.compareTo: a character above
// U+FFFF (a surrogate pair) before U+E000-U+FFFF, unlike UTF-8 byte order.
func TestCompareUTF16(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"a", "b", -1}, {"ab", "a", 1}, {"", "", 0}, {"Z", "a", -1},
		{"\U0001F600", "\uFF21", -1}, // UTF-8 bytes would say 1
		{"x\U0001F600", "x\U0001F601", -1},
	} {
		got := compareUTF16(c.a, c.b)
		if got < 0 {
			got = -1
		} else if got > 0 {
			got = 1
		}
		if got != c.want {
			t.Errorf("compareUTF16(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
