package download

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// TestAccountingRuns feeds accounting batches whose dataset and licence
// columns are plain strings or dictionaries, with runs, nulls and licences
// changing inside a dataset, and compares with a count made row by row.
func TestAccountingRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	keys := []string{"a", "b", "c"}
	lics := []string{occurrence.LicenseCC0, occurrence.LicenseCCBY, occurrence.LicenseCCBYNC, "my own terms"}
	for _, dict := range []bool{false, true} {
		var acct accounting
		acct.init()
		want := map[string]*datasetAcct{}
		for range 20 {
			n := 1 + r.IntN(300)
			kb, lb := newCol(dict), newCol(dict)
			k, l := r.IntN(3), r.IntN(4)
			nulls := r.IntN(2) == 0 // half the batches have none
			for range n {
				if r.IntN(40) == 0 {
					k = r.IntN(3)
				}
				if r.IntN(60) == 0 {
					l = r.IntN(4)
				}
				key, lic := keys[k], lics[l]
				if nulls && r.IntN(50) == 0 {
					kb.null()
					key = ""
				} else {
					kb.add(key)
				}
				if nulls && r.IntN(50) == 0 {
					lb.null()
					lic = ""
				} else {
					lb.add(lic)
				}
				d := want[key]
				if d == nil {
					d = &datasetAcct{}
					want[key] = d
				}
				d.records++
				rank := rankLicence(lic)
				d.unknown = d.unknown || rank == licUnknown
				d.maxLic = max(d.maxLic, rank)
			}
			kc, lc := kb.array(), lb.array()
			acct.add(&batch{n: n, byName: map[string]arrow.Array{occurrence.ColDatasetKey: kc, occurrence.ColLicense: lc}})
			kc.Release()
			lc.Release()
		}
		if len(acct.datasets) != len(want) {
			t.Fatalf("dict %v: %d datasets, want %d", dict, len(acct.datasets), len(want))
		}
		for k, w := range want {
			if g := acct.datasets[k]; g == nil || *g != *w {
				t.Fatalf("dict %v: dataset %q: %+v, want %+v", dict, k, g, w)
			}
		}
	}
}

// col builds a plain or dictionary-encoded string column.
type col struct {
	plain *array.StringBuilder
	dict  *array.BinaryDictionaryBuilder
}

func newCol(dict bool) *col {
	if dict {
		return &col{dict: array.NewDictionaryBuilder(memory.DefaultAllocator, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)}
	}
	return &col{plain: array.NewStringBuilder(memory.DefaultAllocator)}
}

func (c *col) add(v string) {
	if c.dict != nil {
		_ = c.dict.AppendString(v)
		return
	}
	c.plain.Append(v)
}

func (c *col) null() {
	if c.dict != nil {
		c.dict.AppendNull()
		return
	}
	c.plain.AppendNull()
}

func (c *col) array() arrow.Array {
	if c.dict != nil {
		defer c.dict.Release()
		return c.dict.NewArray()
	}
	defer c.plain.Release()
	return c.plain.NewArray()
}

// TestLicenceCells: the licence column is written as GBIF's enum names
// whether it comes plain (a name per row) or as a dictionary (names made
// once per dictionary, kept while batches share it); a value GBIF has no
// name for is written cleaned, a null empty.
func TestLicenceCells(t *testing.T) {
	vals := []string{occurrence.LicenseCCBY, occurrence.LicenseCC0, "own\tterms", "", occurrence.LicenseCCBYNC, occurrence.LicenseCCBY}
	want := "CC_BY_4_0\nCC0_1_0\nown terms\n\nCC_BY_NC_4_0\nCC_BY_4_0\n"
	fields := mustFields([]string{occurrence.ColLicense})
	for _, dict := range []bool{false, true} {
		c := newCol(dict)
		for _, v := range vals {
			if v == "" {
				c.null()
			} else {
				c.add(v)
			}
		}
		a := c.array()
		var buf bytes.Buffer
		tw := newTableWriter(fields)
		tw.rw = dwca.NewExclusiveTextWriter(&buf)
		for range 2 { // the second batch meets the dictionary already made
			if err := tw.writeBatch(&batch{n: a.Len(), byName: map[string]arrow.Array{occurrence.ColLicense: a}}); err != nil {
				t.Fatal(err)
			}
		}
		a.Release()
		if err := tw.rw.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := buf.String(); got != want+want {
			t.Errorf("dictionary %v: licence cells\n%q\nwant\n%q", dict, got, want+want)
		}
	}
}
