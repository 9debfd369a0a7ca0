package download

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

var rowKeys = []string{"country", "locality", "dcterms:modified", "habitat", "scientificName", "http://example.org/x"}

// referenceRow is what a verbatimRow must hold after parsing js: every key
// of the object with a column, the last one winning, read by gjson.
func referenceRow(js string) ([]string, []string, bool) {
	vals := make([]string, len(rowKeys))
	var unknown []string
	res := gjson.Parse(js)
	if js != "" && !res.IsObject() {
		return vals, nil, false
	}
	res.ForEach(func(k, v gjson.Result) bool {
		if i := slices.Index(rowKeys, k.Str); i >= 0 {
			vals[i] = v.String()
		} else if v.String() != "" {
			unknown = append(unknown, k.Str)
		}
		return true
	})
	return vals, unknown, true
}

func checkRow(t *testing.T, v *verbatimRow, unknown *[]string, js string) {
	t.Helper()
	*unknown = (*unknown)[:0]
	ok := v.parse(js)
	want, wantUnknown, wantOK := referenceRow(js)
	if ok != wantOK || !slices.Equal(v.values, want) || !slices.Equal(*unknown, wantUnknown) {
		t.Fatalf("parse(%q) = %v %q unknown %q; want %v %q unknown %q", js, ok, v.values, *unknown, wantOK, want, wantUnknown)
	}
	var buf bytes.Buffer
	tw := dwca.NewTextWriter(&buf)
	if _, err := tw.SetRows(append(v.appendCells(append(tw.Rows(), "id"...)), '\n')); err != nil {
		t.Fatal(err)
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	cells := []string{"id"}
	for _, s := range want {
		cells = append(cells, dwca.CleanValue(s))
	}
	if got, w := buf.String(), strings.Join(cells, "\t")+"\n"; got != w {
		t.Fatalf("write after parse(%q) = %q, want %q", js, got, w)
	}
}

// One row reads objects in sequence: the keys predicted from the previous
// object must never leak values into the next.
func TestVerbatimRow(t *testing.T) {
	var unknown []string
	v := newVerbatimRow(rowKeys)
	v.unknown = func(k string) { unknown = append(unknown, k) }
	enc := func(m map[string]string) string { b, _ := json.Marshal(m); return string(b) }
	for _, js := range []string{
		enc(map[string]string{"country": "Denmark", "locality": "Mols", "habitat": "heath"}),
		enc(map[string]string{"country": "Sweden", "locality": "Lund", "habitat": "forest"}), // same keys
		enc(map[string]string{"country": "Norway", "scientificName": "Bufo bufo"}),           // fewer, others
		enc(map[string]string{"habitat": "tab\there, <&>", "dcterms:modified": "2020", "custom": "x"}),
		enc(map[string]string{"http://example.org/x": "u\u2028v", "locality": "ä ö \x00"}),
		`{"country":"A","country":"B"}`,
		`{ "country" : "spaced" }`,
		`{"country":1,"locality":null,"habitat":["a"]}`,
		`{}`, ``, `[]`, `"x"`, `{"country":"unterminated`, `{"country":"a"`, `{"country":"a"}x`,
		enc(map[string]string{"country": "Denmark", "locality": "Mols", "habitat": "heath"}),
	} {
		checkRow(t, v, &unknown, js)
	}
}

// FuzzVerbatimRowSequence parses objects in sequence, as a batch's rows
// are: the scanner with key prediction agrees with gjson on every one.
func FuzzVerbatimRowSequence(f *testing.F) {
	f.Add(`{"country":"Denmark","locality":"Mols"}`, `{"habitat":"a\tb","other":"x"}`)
	f.Add(`{"country":"\u00e6","dcterms:modified":"2020"}`, `{}`)
	f.Add(`{"a":"b"}`, `not json`)
	f.Fuzz(func(t *testing.T, a, b string) {
		var unknown []string
		v := newVerbatimRow(rowKeys)
		v.unknown = func(k string) { unknown = append(unknown, k) }
		for _, js := range []string{a, b, a} {
			checkRow(t, v, &unknown, js)
		}
	})
}

// generatedVerbatim returns the verbatim column of n generated records.
func generatedVerbatim(n int) []string {
	g := occurrencetest.NewGenerator(3, 500)
	ds := g.Datasets(n, 20)
	rec := occurrence.NewRecord()
	iv := occurrence.ColumnIndex(occurrence.ColVerbatim)
	var out []string
	for d := range ds {
		for i := 0; i < ds[d].Records; i++ {
			g.Fill(rec, &ds[d], i)
			out = append(out, rec.Get(iv).S)
		}
	}
	return out
}

// BenchmarkVerbatimTxt writes verbatim.txt rows (GBIF's 194 columns and
// the generated terms) from generated records: the scanner with key
// prediction against gjson with a map lookup per key, as before.
func BenchmarkVerbatimTxt(b *testing.B) {
	rows := generatedVerbatim(20000)
	var size int64
	for _, r := range rows {
		size += int64(len(r))
	}
	terms := verbatimTerms(nil)
	keys := make([]string, len(terms))
	for i, t := range terms {
		keys[i] = occurrence.VerbatimKey(t)
	}
	run := func(b *testing.B, parse func(v *verbatimRow, js string)) {
		v := newVerbatimRow(keys)
		tw := dwca.NewTextWriter(discard{})
		b.SetBytes(size)
		buf := tw.Rows()
		for b.Loop() {
			for _, js := range rows {
				parse(v, js)
				var err error
				if buf, err = tw.SetRows(append(v.appendCells(append(buf, '1')), '\n')); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("scanner", func(b *testing.B) { run(b, func(v *verbatimRow, js string) { v.parse(js) }) })
	b.Run("gjson", func(b *testing.B) {
		run(b, func(v *verbatimRow, js string) {
			v.reset()
			gjson.Parse(js).ForEach(func(k, val gjson.Result) bool {
				if i, ok := v.index[k.Str]; ok {
					v.values[i] = val.String()
					v.set[i>>6] |= 1 << (i & 63)
				}
				return true
			})
		})
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// quotedBytewise is quoted one byte at a time.
func quotedBytewise(js string, p int) (string, int, bool) {
	if p >= len(js) || js[p] != '"' {
		return "", 0, false
	}
	for i := p + 1; i < len(js); i++ {
		if js[i] == '"' {
			return js[p+1 : i], i + 1, true
		}
	}
	return "", 0, false
}

// quoted agrees with a byte loop for a quote at every place of the first
// 40 bytes, after bytes that differ from it in one bit or have the high
// bit set, with and without a backslash before it (parse sends documents
// with escapes to gjson; quoted does not look at them).
func TestQuoted(t *testing.T) {
	fill := []byte{'a', '"' ^ 1, '\\' ^ 0x80, 0xa2, 0xdc, 0x21, 0x23, 0x5d, 0xff, 0x00, 0x01}
	for _, f := range fill {
		for n := 0; n < 40; n++ {
			for _, end := range []string{`"`, `\`, `\"`, `"\`, ``} {
				for _, tail := range []string{"", `,"x":"y"}`} {
					body := bytes.Repeat([]byte{f}, n)
					for _, js := range []string{`"` + string(body) + end + tail, `{` + `"` + string(body) + end + tail} {
						p := strings.IndexByte(js, '"')
						s, i, ok := quoted(js, p)
						ws, wi, wok := quotedBytewise(js, p)
						if s != ws || i != wi || ok != wok {
							t.Fatalf("quoted(%q, %d) = %q %d %v, want %q %d %v", js, p, s, i, ok, ws, wi, wok)
						}
					}
				}
			}
		}
	}
}

// FuzzQuoted checks quoted against a byte loop at any start.
func FuzzQuoted(f *testing.F) {
	f.Add(`"abc"`, 0)
	f.Add(`{"key":"a longer value with \" an escape"}`, 7)
	f.Fuzz(func(t *testing.T, js string, p int) {
		if p < 0 {
			return
		}
		s, i, ok := quoted(js, p)
		ws, wi, wok := quotedBytewise(js, p)
		if s != ws || i != wi || ok != wok {
			t.Fatalf("quoted(%q, %d) = %q %d %v, want %q %d %v", js, p, s, i, ok, ws, wi, wok)
		}
	})
}

// appendAvro over any range of columns writes what encoding each column
// on its own writes: the set columns' cleaned values, nulls for the rest
// and for values that clean to nothing, across the bitmap's words.
func TestVerbatimRowAppendAvro(t *testing.T) {
	keys := make([]string, 150)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	v := newVerbatimRow(keys)
	obj := map[string]string{}
	for _, c := range []int{0, 1, 5, 63, 64, 65, 100, 127, 128, 149} {
		obj[keys[c]] = "v" + strconv.Itoa(c)
	}
	obj[keys[5]] = " \t "        // cleans to nothing
	obj[keys[100]] = " a\tb\n  " // cleans to "a b"
	js, _ := json.Marshal(obj)
	if !v.parse(string(js)) {
		t.Fatal("not parsed")
	}
	one := func(from, to int) []byte {
		var b []byte
		for c := from; c < to; c++ {
			b = appendAvroText(b, dwca.CleanValue(v.values[c]))
		}
		return b
	}
	for from := 0; from <= len(keys); from++ {
		for to := from; to <= len(keys); to += 7 {
			if got, want := v.appendAvro(nil, from, to), one(from, to); !bytes.Equal(got, want) {
				t.Fatalf("[%d, %d): %q, want %q", from, to, got, want)
			}
		}
	}
	if got := v.appendAvro(nil, 100, 101); string(got) != "\x00\x06a b" {
		t.Errorf("column 100: %q", got)
	}
}
