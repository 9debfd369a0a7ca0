package occurrence

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestOccurrenceKey(t *testing.T) {
	cases := []struct {
		occID, inst, coll, cat string
		key                    string
		ok                     bool
	}{
		{"urn:x:1", "I", "C", "1", "urn:x:1", true}, // occurrenceID first
		{"", "I", "C", "1", "I|C|1|null", true},     // GBIF's triplet string
		{"", "", "C", "1", "", false},               // incomplete triplets identify nothing
		{"", "I", "", "1", "", false},
		{"", "I", "C", "", "", false},
		{"", "", "", "", "", false},
	}
	for _, c := range cases {
		key, ok := OccurrenceKey(c.occID, c.inst, c.coll, c.cat)
		if key != c.key || ok != c.ok {
			t.Errorf("OccurrenceKey(%q, %q, %q, %q) = %q, %v; want %q, %v", c.occID, c.inst, c.coll, c.cat, key, ok, c.key, c.ok)
		}
	}
}

// TestRecordKeyFromInterpretation: the key is made of the values as
// interpreted (trimmed), and case is kept.
func TestRecordKeyFromInterpretation(t *testing.T) {
	cases := []struct {
		terms Terms
		key   string
		ok    bool
	}{
		{dwcTerms("occurrenceID", "  urn:X:1 \t", "catalogNumber", "9"), "urn:X:1", true},
		{dwcTerms("institutionCode", " NHMD", "collectionCode", "Herb ", "catalogNumber", " c-1 "), "NHMD|Herb|c-1|null", true},
		{dwcTerms("institutionCode", "NHMD", "collectionCode", "  ", "catalogNumber", "c-1"), "", false},
		{dwcTerms("catalogNumber", "c-1", "locality", "Copenhagen"), "", false},
	}
	for _, c := range cases {
		key, ok := RecordKey(interpret(t, c.terms, nil))
		if key != c.key || ok != c.ok {
			t.Errorf("%v: key %q, %v; want %q, %v", c.terms, key, ok, c.key, c.ok)
		}
	}
	a, _ := RecordKey(interpret(t, dwcTerms("occurrenceID", "urn:x:1"), nil))
	b, _ := RecordKey(interpret(t, dwcTerms("occurrenceID", "URN:X:1"), nil))
	if a == b {
		t.Errorf("keys %q and %q differ only in case and must stay two occurrences", a, b)
	}
}

// mapMinter mints from a map, recording each call's keys.
type mapMinter struct {
	ids   map[string]int64
	calls [][]string
}

func (m *mapMinter) MintIDs(_ context.Context, ds string, keys []string, ids []int64) error {
	m.calls = append(m.calls, slices.Clone(keys))
	for i, k := range keys {
		id, ok := m.ids[ds+"\x00"+k]
		if !ok {
			id = int64(len(m.ids) + 1)
			m.ids[ds+"\x00"+k] = id
		}
		ids[i] = id
	}
	return nil
}

func TestLegacyAliases(t *testing.T) {
	mem := memory.NewGoAllocator()
	b := array.NewRecordBuilder(mem, SchemaOf(LegacyIDColumns))
	defer b.Release()
	rows := []struct {
		id                     int64
		occID, inst, coll, cat string
	}{
		{9_000_000_000_000_000_001, "urn:a", "", "", ""},
		{9_000_000_000_000_000_002, "", "I", "C", "7"},
		{9_000_000_000_000_000_003, "", "", "", "only-a-catalogue-number"}, // no key: no alias
		{1, "urn:b", "", "", ""},                                           // already what it is minted as
	}
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.id)
		for c, v := range []string{r.occID, r.inst, r.coll, r.cat} {
			sb := b.Field(c + 1).(*array.StringBuilder)
			if v == "" {
				sb.AppendNull()
			} else {
				sb.Append(v)
			}
		}
	}
	batch := b.NewRecordBatch()
	defer batch.Release()
	m := &mapMinter{ids: map[string]int64{"ds\x00urn:b": 1}}
	old, new, err := LegacyAliases(context.Background(), m, "ds", batch)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.calls) != 1 || !slices.Equal(m.calls[0], []string{"urn:a", "I|C|7|null", "urn:b"}) {
		t.Fatalf("minted %q, want one call for the three keyed records", m.calls)
	}
	if !slices.Equal(old, []int64{9_000_000_000_000_000_001, 9_000_000_000_000_000_002}) || !slices.Equal(new, []int64{2, 3}) {
		t.Fatalf("aliases %v -> %v", old, new)
	}
}
