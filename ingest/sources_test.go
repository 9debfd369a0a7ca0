package ingest

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The samples are copies of ../shared/data (testdata/SOURCES.md).

// zipOf writes a zip holding the given entries in order: a name ending in
// "/" is a folder, "@file" content is the named testdata file's bytes.
func zipOf(t *testing.T, entries [][2]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "archive.zip")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, e := range entries {
		w, err := zw.Create(e[0])
		if err != nil {
			t.Fatal(err)
		}
		content := []byte(e[1])
		if len(e[1]) > 0 && e[1][0] == '@' {
			if content, err = os.ReadFile(filepath.Join("testdata", e[1][1:])); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Write(content); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// macABCD is an ABCD archive of two real documents zipped on a Mac with their
// folder: the root folder, __MACOSX/ resource forks and dot-files. The .txt
// entries among the junk would make it a DwC-A if they were not skipped.
var macABCD = [][2]string{
	{"abcd-export/", ""},
	{"abcd-export/response.00001.xml", "@cdmlib-DNA_AlgaTerra.xml"},
	{"abcd-export/response.00002.xml", "@gbif-crawler-dropped_records_response.xml"},
	{"abcd-export/.DS_Store", "\x00\x00\x00\x01Bud1"},
	{"abcd-export/.export-log.txt", "harvested 2 pages"},
	{"__MACOSX/", ""},
	{"__MACOSX/abcd-export/", ""},
	{"__MACOSX/abcd-export/._response.00001.xml", "\x00\x05\x16\x07"},
	{"__MACOSX/abcd-export/._notes.txt", "\x00\x05\x16\x07"},
}

func TestSniffZipSamples(t *testing.T) {
	abcda := filepath.Join("testdata", "gbif-pipelines-7ef15372-1387-11e2-bb2e-00145eb45e9a.abcda")
	for _, c := range []struct {
		name string
		path string
		want sourceKind
	}{
		// root folder archive-occ/ plus __MACOSX/archive-occ/._eml.xml
		{"dwca root folder + __MACOSX", filepath.Join("testdata", "dwca-io-archive-occ.zip"), kindDwCA},
		// flat, with __MACOSX/._meta.xml and the like
		{"dwca flat + __MACOSX", filepath.Join("testdata", "gbif-validator-Archive.zip"), kindDwCA},
		// no meta.xml: one CSV and EML.xml
		{"csv + EML, no meta.xml", filepath.Join("testdata", "pydwca-dwca-simple-csv-eml.zip"), kindDwCA},
		// GBIF's stored ABCD archive: one .response document (the zip content decides, not the name)
		{"abcda", abcda, kindABCD},
		{"abcd root folder + __MACOSX + dot-files", zipOf(t, macABCD), kindABCD},
		{"abcd documents + a data file", zipOf(t, append(macABCD[:3:3], [2]string{"abcd-export/occurrence.txt", "id\n1\n"})), kindDwCA},
		{"only EML", zipOf(t, [][2]string{{"eml.xml", "@cdmlib-DNA_AlgaTerra.xml"}}), kindDwCA},
		{"dot-folder", zipOf(t, [][2]string{{"x/.svn/entries.txt", "10"}, {"x/doc.xml", "@cdmlib-DNA_AlgaTerra.xml"}}), kindABCD},
		{"not a zip", filepath.Join("testdata", "SOURCES.md"), kindDwCA},
	} {
		got, err := sniffZip(c.path)
		if err != nil || got != c.want {
			t.Errorf("%s: sniffZip = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// Open hands a .zip holding ABCD documents to the ABCD reader, which reads
// the one unit of each document past the Mac junk.
func TestOpenMacZippedABCD(t *testing.T) {
	p := zipOf(t, macABCD)
	src, err := Open(context.Background(), p, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, isABCD := src.(*abcdSource)
	src.Close()
	if !isABCD {
		t.Fatalf("opened as %T, want *abcdSource", src)
	}
	res, err := load(t, openStore(t), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 2 || res.BrokenRows != 0 {
		t.Errorf("%d records, %d broken; want 2 (one unit per document), 0", res.Records, res.BrokenRows)
	}
}
