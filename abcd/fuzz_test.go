package abcd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReader feeds arbitrary documents to the Reader: it must end with
// io.EOF, a *ParseError or (past the document cap) a *TooLargeError, never
// panic or loop, and every record it returns has a Source.
func FuzzReader(f *testing.F) {
	for _, name := range samples {
		if filepath.Ext(name) != ".xml" {
			continue
		}
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 64<<10 { // keep the seed corpus quick to mutate
			data = data[:64<<10]
		}
		f.Add(data)
	}
	f.Add([]byte("<DataSets><DataSet><Units><Unit><UnitID>1</UnitID></Unit></Units></DataSet></DataSets>"))
	f.Add([]byte("<!DOCTYPE x [<!ENTITY a 'b'>]><DataSets/>"))
	f.Add([]byte("<a:DataSets><![CDATA[x]]><!-- c --><?pi x?></a:DataSets>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "fuzz.xml", Options{MaxTokenBytes: 1 << 16, MaxUnitBytes: 1 << 18, MaxDocumentBytes: 1 << 15})
		for i := 0; ; i++ {
			rec, err := r.Next(context.Background())
			if err == io.EOF {
				return
			}
			if err != nil {
				var pe *ParseError
				var te *TooLargeError
				if !errors.As(err, &pe) && !(errors.As(err, &te) && len(data) > 1<<15) {
					t.Fatalf("error %v is not a *ParseError", err)
				}
				return
			}
			if rec.Source == "" || i > len(data) {
				t.Fatalf("record %d without source or more records than bytes", i)
			}
		}
	})
}

// FuzzArchive feeds arbitrary zips to OpenArchive and the Source: errors
// are fine, panics and hangs are not; document failures are listed.
func FuzzArchive(f *testing.F) {
	abcda, err := os.ReadFile(filepath.Join("testdata", "gbif-pipelines-7ef15372-1387-11e2-bb2e-00145eb45e9a.abcda"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(abcda)
	f.Add([]byte("PK\x05\x06" + string(make([]byte, 18))))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.zip")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := OpenArchive(path, ArchiveOptions{MaxRatio: 50})
		if err != nil {
			return
		}
		a.Close()
		ctx := context.Background()
		src, err := OpenSource(ctx, path, SourceOptions{Workers: 2, Reader: Options{MaxTokenBytes: 1 << 16, MaxUnitBytes: 1 << 18, MaxDocumentBytes: 1 << 20}})
		if err != nil {
			return
		}
		defer src.Close()
		for {
			if _, err := src.Next(ctx); err != nil {
				if err != io.EOF {
					t.Fatalf("source error %v (document failures belong in Problems)", err)
				}
				break
			}
		}
		st := src.Stats()
		if st.FailedDocuments != len(src.Problems()) {
			t.Fatalf("stats %+v vs %d problems", st, len(src.Problems()))
		}
	})
}
