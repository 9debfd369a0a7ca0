package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/readers"
)

// The readers scientists open downloads with, other than Python: R as
// rgbif's occ_download_import reads a download (data.table::fread), and
// GDAL's CSV driver (ogr2ogr, which QGIS and most GIS tools build on).
// Debian's r-base-core, r-cran-data.table and gdal-bin, installed by
// scripts/ci/export-readers.sh.

// readerTable ingests the real samples the fidelity tests use, and
// testdata/readers/tricky (five hand-made records whose values readers
// stumble on: a tab and line breaks, the country code NA, leading zeros,
// quotes, a non-BMP character, edge spaces, a backslash, TRUE and NA as
// text), and exports them as SIMPLE_CSV (entry k.csv) and DWCA, returning
// both archives and the number of records.
func readerTable(t *testing.T) (simple, dwcaZip string, records int) {
	t.Helper()
	dir := t.TempDir()
	table := filepath.Join(dir, "table")
	runCmd(t, append([]string{"ingest", "--table", table, "testdata/readers/tricky"}, fidelitySources...)...)
	simple = filepath.Join(dir, "k.zip")
	runCmd(t, "export", "--table", table, "--format", "SIMPLE_CSV", "--key", "k", "-o", simple)
	dwcaZip = filepath.Join(dir, "d.zip")
	runCmd(t, "export", "--table", table, "--format", "DWCA", "-o", dwcaZip)
	records = len(tsvColumn(t, zipEntry(t, simple, "k.csv"), "gbifID"))
	if records < 100 {
		t.Fatalf("the samples gave %d records; the test wants the five sources' records", records)
	}
	return simple, dwcaZip, records
}

// TestRReadsDownloadsAsRgbif reads SIMPLE_CSV, occurrence.txt and
// verbatim.txt as rgbif's occ_download_import does and compares every cell
// R holds with the text written: fread must see every row and column
// without a warning, and each value, whatever type fread gave its column,
// must be the one in the file (gbifID exactly: it stays below 2^53, which
// R's doubles hold without bit64).
func TestRReadsDownloadsAsRgbif(t *testing.T) {
	rscript := readers.Require(t, "Rscript")
	readers.Run(t, time.Minute, rscript, "-e", "library(data.table)")
	simple, dwcaZip, records := readerTable(t)
	script, err := filepath.Abs("testdata/fidelity/occ_download_import.R")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ zip, key, entry, pick string }{
		{simple, "k", "k.csv", ""},
		{dwcaZip, "d", "occurrence.txt", ""},
		{dwcaZip, "d", "verbatim.txt", "verbatim.txt"},
	} {
		t.Run(c.entry, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.tsv")
			args := []string{script, c.zip, c.key, out}
			if c.pick != "" {
				args = append(args, c.pick)
			}
			said := readers.Run(t, 2*time.Minute, rscript, args...)
			written := zipEntry(t, c.zip, c.entry)
			header, _, _ := bytes.Cut(written, []byte("\n"))
			cols := len(strings.Split(string(header), "\t"))
			if want := fmt.Sprintf("rows %d cols %d warnings 0", records, cols); !strings.Contains(said, want) {
				t.Fatalf("R read %s as\n%s\nwant %q", c.entry, said, want)
			}
			compareRCells(t, c.entry, written, []byte(mustRead(t, out)))
		})
	}
}

// compareRCells compares the text an entry was written with (written) with
// what R held after reading it (got: a line of column classes, then the data
// frame as fwrite writes it). It checks that at least one column of each
// of character, number and time was compared, so that a fread that read
// everything as text would not pass unnoticed.
func compareRCells(t *testing.T, entry string, written, got []byte) {
	t.Helper()
	classLine, rest, _ := bytes.Cut(got, []byte("\n"))
	classes := strings.Split(string(classLine), "\t")
	want, have := tsvRows(written), tsvRows(rest)
	if len(want) != len(have) || len(want[0]) != len(classes) {
		t.Fatalf("%s: R gave %d lines of %d classes for %d written lines", entry, len(have), len(classes), len(want))
	}
	if strings.Join(have[0], "\t") != strings.Join(want[0], "\t") {
		t.Fatalf("%s: R's column names differ:\n%v\nwant\n%v", entry, have[0], want[0])
	}
	kinds := map[string]int{}
	bad := 0
	for j, class := range classes {
		kinds[class]++
		for i := 1; i < len(want); i++ {
			if msg := rCellDiffers(class, want[i][j], have[i][j]); msg != "" {
				if bad++; bad <= 10 {
					t.Errorf("%s line %d column %s (%s): %s", entry, i+1, want[0][j], class, msg)
				}
			}
		}
	}
	if bad > 10 {
		t.Errorf("%s: %d cells differ in all", entry, bad)
	}
	t.Logf("%s: %d rows, column classes %v", entry, len(want)-1, kinds)
	if kinds["character"] == 0 || kinds["integer"]+kinds["numeric"] == 0 {
		t.Errorf("%s: R typed no column as text or as a number (%v): the comparison saw too little", entry, kinds)
	}
}

// rCellDiffers says how R's value (as fwrite gives it back) differs from the
// written text, or "" when it is the same value.
func rCellDiffers(class, written, r string) string {
	if r == "<NA>" {
		// fread reads an empty field, and "NA", as NA.
		if written == "" || written == "NA" {
			return ""
		}
		return fmt.Sprintf("written %q, R holds NA", written)
	}
	switch class {
	case "character":
		if written == r {
			return ""
		}
	case "integer", "numeric", "integer64":
		if wi, err := strconv.ParseInt(written, 10, 64); err == nil {
			// An identifier or a count: R must hold it exactly.
			if ri, err := strconv.ParseInt(r, 10, 64); err == nil && ri == wi {
				return ""
			}
			if g, err := strconv.ParseFloat(r, 64); err == nil && g == float64(wi) && wi <= 1<<53 && wi >= -(1<<53) {
				return ""
			}
			break
		}
		w, err1 := strconv.ParseFloat(written, 64)
		g, err2 := strconv.ParseFloat(r, 64)
		if err1 == nil && err2 == nil && math.Abs(w-g) <= 1e-12*math.Max(1, math.Abs(w)) {
			return ""
		}
	case "logical":
		if strings.EqualFold(written, r) {
			return ""
		}
	case "IDate", "Date":
		if written == r {
			return ""
		}
	case "POSIXct":
		w, err1 := parseRTime(written)
		g, err2 := parseRTime(r)
		if err1 == nil && err2 == nil && w.Equal(g) {
			return ""
		}
	default:
		return "a column class the test does not know"
	}
	return fmt.Sprintf("written %q, R holds %q", written, r)
}

// parseRTime parses the timestamps the formats write (UTC, with or without
// milliseconds and zone), the verbatim forms fread reads as times (a space
// for the T, a date alone: midnight UTC) and fwrite's ISO form of R's times.
func parseRTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999",
		"2006-01-02T15:04", "2006-01-02"} {
		if v, err := time.Parse(layout, s); err == nil {
			return v, nil
		}
	}
	return time.Time{}, fmt.Errorf("not a time: %q", s)
}

// tsvRows splits tab-separated text into rows of cells.
func tsvRows(b []byte) [][]string {
	var out [][]string
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		out = append(out, strings.Split(line, "\t"))
	}
	return out
}

// TestGDALReadsSimpleCSV opens SIMPLE_CSV and the DWCA's occurrence.txt
// inside their zips with GDAL's CSV driver, points made of
// decimalLongitude and decimalLatitude, as a GIS user would, and compares
// each feature with the row written: its point is the row's coordinates
// (none without them) and each property the row's value. GDAL's CSV driver
// takes every '"' as a quote, and has no option to read none (GBIF's files
// enclose nothing, so a published value such as "J. Neff, A. Hook" or
// label "297" keeps its quotes): GDAL dropping the double quotes of a value
// is the one difference allowed, and docs/clients.md says so and what an
// odd number of them does.
func TestGDALReadsSimpleCSV(t *testing.T) {
	ogr2ogr := readers.Require(t, "ogr2ogr")
	simple, dwcaZip, records := readerTable(t)
	for _, c := range []struct{ zip, entry string }{{simple, "k.csv"}, {dwcaZip, "occurrence.txt"}} {
		t.Run(c.entry, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "o.geojson")
			readers.Run(t, 2*time.Minute, ogr2ogr, "-f", "GeoJSON", out,
				"CSV:/vsizip/"+c.zip+"/"+c.entry,
				"-oo", "X_POSSIBLE_NAMES=decimalLongitude", "-oo", "Y_POSSIBLE_NAMES=decimalLatitude",
				"-oo", "KEEP_GEOM_COLUMNS=YES")
			var fc struct {
				Features []struct {
					Properties map[string]any
					Geometry   *geoJSONGeometry
				}
			}
			if err := json.Unmarshal([]byte(mustRead(t, out)), &fc); err != nil {
				t.Fatal(err)
			}
			rows := tsvRows(zipEntry(t, c.zip, c.entry))
			if len(fc.Features) != records || len(rows)-1 != records {
				t.Fatalf("GDAL read %d features from %d written rows, want %d", len(fc.Features), len(rows)-1, records)
			}
			header := rows[0]
			lat, lon := slices.Index(header, "decimalLatitude"), slices.Index(header, "decimalLongitude")
			points, dequoted, bad := 0, 0, 0
			for i, f := range fc.Features {
				row := rows[i+1]
				if msg := gdalPointDiffers(row[lon], row[lat], f.Geometry); msg != "" {
					bad++
					t.Errorf("row %d: %s", i+2, msg)
				} else if f.Geometry != nil {
					points++
				}
				for j, name := range header {
					got := ""
					if v, ok := f.Properties[name]; ok && v != nil {
						got = fmt.Sprint(v)
					}
					switch w := row[j]; {
					case got == w:
					case strings.Contains(w, `"`) && got == strings.ReplaceAll(w, `"`, ""):
						dequoted++
					default:
						if bad++; bad <= 10 {
							t.Errorf("row %d %s: GDAL reads %q, written %q", i+2, name, got, w)
						}
					}
				}
			}
			t.Logf("%s: %d features, %d with points, %d values GDAL de-quoted", c.entry, len(fc.Features), points, dequoted)
			if points == 0 {
				t.Error("no feature has a point: the coordinates were not read")
			}
		})
	}
}

// gdalPointDiffers compares a feature's geometry with the row's coordinates.
// geoJSONGeometry is a GeoJSON feature's geometry, as ogr2ogr writes it.
type geoJSONGeometry struct {
	Type        string
	Coordinates []float64
}

func gdalPointDiffers(lon, lat string, g *geoJSONGeometry) string {
	if lon == "" || lat == "" {
		if g != nil {
			return fmt.Sprintf("a %s where the row has no coordinates", g.Type)
		}
		return ""
	}
	x, err1 := strconv.ParseFloat(lon, 64)
	y, err2 := strconv.ParseFloat(lat, 64)
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("coordinates %q %q are not numbers", lon, lat)
	}
	if g == nil || g.Type != "Point" || len(g.Coordinates) < 2 || g.Coordinates[0] != x || g.Coordinates[1] != y {
		return fmt.Sprintf("geometry %+v, want POINT (%s %s)", g, lon, lat)
	}
	return ""
}
