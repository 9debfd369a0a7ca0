package abcd

import (
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// File names of a converted archive (WriteArchive).
const (
	coreFile = "occurrence.txt"
	emlFile  = "eml.xml"
)

// extensionFiles names the data file of each extension row type.
var extensionFiles = map[string]string{
	occurrence.RowTypeIdentification: "identification.txt",
	occurrence.RowTypeMultimedia:     "multimedia.txt",
	occurrence.RowTypeMeasurement:    "measurementorfact.txt",
}

// coreHeader is the header row of the core file (short term names).
func coreHeader() []string { return shortNames(coreTerms) }

// extensionHeader is the header row of an extension file.
func extensionHeader(rowType string) []string {
	return append([]string{"coreid"}, shortNames(extensionTerms[rowType])...)
}

func shortNames(terms []string) []string {
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = t[strings.LastIndexAny(t, "/#")+1:]
	}
	return out
}

// RecordID is the archive row id of a record: its occurrenceID, else its
// Source (never empty for records from a Reader).
func RecordID(rec occurrence.RawRecord) string {
	if id := rec.Core[dwc+"occurrenceID"]; id != "" {
		return id
	}
	return rec.Source
}

// coreRow fills buf (reused when large enough) with the core columns.
func coreRow(rec occurrence.RawRecord, buf []string) []string {
	buf = fill(buf, len(coreTerms))
	for i, t := range coreTerms {
		buf[i] = rec.Core[t]
	}
	buf[0] = RecordID(rec)
	return buf
}

// extensionRow fills buf with one extension row: the core id then the terms.
func extensionRow(id, rowType string, row occurrence.Terms, buf []string) []string {
	terms := extensionTerms[rowType]
	buf = fill(buf, len(terms)+1)
	buf[0] = id
	for i, t := range terms {
		buf[i+1] = row[t]
	}
	return buf
}

func fill(buf []string, n int) []string {
	if cap(buf) < n {
		return make([]string, n)
	}
	return buf[:n]
}
