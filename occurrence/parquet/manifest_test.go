package parquet

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// referenceManifest decodes data with encoding/json, the way manifests were
// decoded before decodeManifest walked them with gjson.
func referenceManifest(data []byte) (*manifest, error) {
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if m.Datasets == nil {
		m.Datasets = map[string]*datasetEntry{}
	}
	return &m, nil
}

// sameManifest compares two manifests field by field (the decoded
// statistics caches aside).
func sameManifest(a, b *manifest) bool {
	clearSplits := func(m *manifest) *manifest {
		c := *m
		c.Datasets = map[string]*datasetEntry{}
		for k, ds := range m.Datasets {
			d := *ds
			d.Files = append([]fileEntry(nil), ds.Files...)
			for i := range d.Files {
				d.Files[i].RowGroups = append([]rowGroupEntry(nil), d.Files[i].RowGroups...)
				for j := range d.Files[i].RowGroups {
					d.Files[i].RowGroups[j].split = nil
				}
			}
			c.Datasets[k] = &d
		}
		c.Segments = nil
		for _, seg := range m.Segments {
			sg := *seg
			sg.Files = append([]fileEntry(nil), seg.Files...)
			for i := range sg.Files {
				sg.Files[i].RowGroups = append([]rowGroupEntry(nil), sg.Files[i].RowGroups...)
				for j := range sg.Files[i].RowGroups {
					sg.Files[i].RowGroups[j].split = nil
				}
			}
			c.Segments = append(c.Segments, &sg)
		}
		return &c
	}
	return reflect.DeepEqual(clearSplits(a), clearSplits(b))
}

// TestDecodeManifestMatchesEncodingJSON decodes the manifest of a table
// written through the store both ways.
func TestDecodeManifestMatchesEncodingJSON(t *testing.T) {
	files := storeFiles(t)
	dir := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(files[0]))))
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeManifest(data, manifestName)
	if err != nil {
		t.Fatal(err)
	}
	want, err := referenceManifest(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Datasets) != 2 || !sameManifest(got, want) {
		t.Fatalf("decoded %+v\nencoding/json %+v", got, want)
	}
	for _, ds := range got.Datasets {
		for _, f := range ds.Files {
			for _, g := range f.RowGroups {
				if g.split == nil || g.split.rows != g.Rows || len(g.split.raw) == 0 {
					t.Fatalf("row group of %s without its statistics", f.Path)
				}
			}
		}
	}
}

func TestDecodeManifestRejectsBadInput(t *testing.T) {
	for name, in := range map[string]string{
		"not json":        `{"format":1,`,
		"array":           `[1]`,
		"wrong format":    `{"format":3,"datasets":{}}`,
		"segment rows":    `{"format":2,"segments":[{"generation":"g","datasets":["a"],"files":[{"path":"p","rowGroups":[{"rows":1,"datasets":{}}]}]}]}`,
		"unsorted keys":   `{"format":2,"segments":[{"generation":"g","datasets":["b","a"]}]}`,
		"string rows":     `{"format":1,"datasets":{"d":{"key":"d","files":[{"path":"p","rows":"5"}]}}}`,
		"fraction rows":   `{"format":1,"datasets":{"d":{"key":"d","files":[{"path":"p","rowGroups":[{"rows":1.5}]}]}}}`,
		"stats array":     `{"format":1,"datasets":{"d":{"key":"d","files":[{"path":"p","rowGroups":[{"rows":1,"stats":[]}]}]}}}`,
		"bad created":     `{"format":1,"created":"yesterday","datasets":{}}`,
		"bad dataset key": `{"format":1,"datasets":{"d":{"key":5}}}`,
	} {
		_, err := decodeManifest([]byte(in), "m.json")
		if !errors.Is(err, ErrCorruptManifest) || !strings.Contains(err.Error(), "m.json") {
			t.Errorf("%s: %v, want ErrCorruptManifest naming the file", name, err)
		}
	}
}

// FuzzDecodeManifest: whatever decodeManifest accepts, encoding/json
// accepts too and decodes to the same manifest; it never panics.
func FuzzDecodeManifest(f *testing.F) {
	f.Add([]byte(`{"format":1,"snapshot":3,"created":"2026-11-30T04:33:26Z","datasets":{"d":{"key":"d","title":"T","records":2,"generation":"g","files":[{"path":"data/d/g/part-00000.parquet","rows":2,"bytes":10,"rowGroups":[{"rows":2,"stats":{"year":{"nulls":0,"min":1990,"max":2001}}}]}]}}}`))
	f.Add([]byte(`{"format":1,"datasets":null}`))
	// where the walker once differed from encoding/json: a null (or a
	// repeated) stats, a repeated datasets ending in null, a key that is not
	// UTF-8
	f.Add([]byte(`{"format":1,"datasets":{"d":{"key":"d","files":[{"path":"p","rowGroups":[{"rows":1,"stats":null}]}]}}}`))
	f.Add([]byte(`{"format":1,"datasets":{"d":{"key":"d","files":[{"path":"p","rowGroups":[{"rows":1,"stats":{"year":{}},"stats":null}]}]}}}`))
	f.Add([]byte(`{"format":1,"datasets":{"a":{"key":"a"}},"datasets":null}`))
	f.Add([]byte("{\"format\":1,\"datasets\":{\"\xff\":{\"key\":\"a\"}}}"))
	f.Add([]byte(`{"format":2,"source":"t@1","datasets":{"a":{"key":"a","segment":"s"}},"segments":[{"generation":"s","datasets":["a"],"files":[{"path":"data/.segments/s/part-00000.parquet","rows":2,"rowGroups":[{"rows":2,"datasets":[[0,2]],"stats":{}}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeManifest(data, "fuzz")
		if err != nil {
			if !errors.Is(err, ErrCorruptManifest) {
				t.Fatalf("error of no known kind: %v", err)
			}
			return
		}
		want, err := referenceManifest(data)
		if err != nil {
			t.Fatalf("accepted what encoding/json rejects (%v): %q", err, data)
		}
		if !sameManifest(got, want) {
			t.Fatalf("decoded %+v, encoding/json %+v from %q", got, want, data)
		}
	})
}

// BenchmarkDecodeManifest decodes a generated table's manifest with
// decodeManifest and, side by side, with encoding/json (the former decoder).
func BenchmarkDecodeManifest(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(dir, Config{RowGroupRows: 250}, nil)
	if err != nil {
		b.Fatal(err)
	}
	occurrencetest.Load(b, s, 20000, 40)
	s.Close()
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("walker", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := decodeManifest(data, manifestName); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := referenceManifest(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
