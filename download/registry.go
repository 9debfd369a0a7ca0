package download

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Format is a download format's name, as GBIF names them ("SIMPLE_CSV").
type Format string

// FormatInfo is what the service knows of one download format: the job
// service validates requests and estimates sizes with it, the API lists it
// in its OpenAPI document, the command line in its help. Each format's file
// registers its FormatInfo (see register); nothing else lists the formats.
type FormatInfo struct {
	Name Format
	// Description says in a line what the archive holds.
	Description string
	// Extension and ContentType are those of the archive file.
	Extension   string
	ContentType string
	// Fields is set when a request may choose the columns (ExportSpec.Fields).
	Fields bool
	// Dictionaries is set when the writer takes string columns
	// dictionary-encoded as well as plain (occurrence.ScanRequest's
	// Dictionaries); a writer that writes the scan's arrays as they are
	// needs one type per column for its whole file.
	Dictionaries bool
	// BytesPerRecord is the archive's compressed size per record and
	// CompressionRatio its uncompressed/compressed ratio, for size estimates
	// before any download of the format has run (the built-in formats'
	// were measured by exporting web/testdata's two samples, 1,553 records).
	BytesPerRecord   float64
	CompressionRatio float64
	// Order places the format in lists (GBIF's DownloadFormat order).
	Order int
	// Extensions is set for the formats that carry extension files
	// (ExportSpec.VerbatimExtensions and InterpretedExtensions): the
	// Darwin Core Archives.
	Extensions bool
	// ImpliedExtensions are verbatim extensions the format always carries,
	// asked for or not (FASTA_ARCHIVE's DNA_DERIVED_DATA, which GBIF's
	// DownloadResource adds to the request).
	ImpliedExtensions []string
	// SQL is set for the format that answers a SQL query (ExportSpec.SQL)
	// rather than a predicate: a form that builds predicates does not
	// offer it.
	SQL bool
	// Project is set for a project's export (GBIF's MAP_OF_LIFE): the
	// API takes it, the portal page does not offer it, as GBIF.org does
	// not.
	Project bool

	// open starts the format's writer on an export; checkFields, when
	// set, checks a choice of fields beyond their names (CheckFields).
	open        func(ctx context.Context, x *Export) (formatWriter, error)
	checkFields func(fields []field) error
	// narrowing is the condition the format's records meet whatever the
	// request, for the scan to leave the others unread (scanPredicate);
	// nil for most.
	narrowing *occurrence.Predicate
}

// ErrFormat marks an unknown format or a bad field choice.
var ErrFormat = errors.New("download: bad download format")

// registry holds the formats in Order. It is written only by the formats'
// init functions, before anything reads it.
var registry []FormatInfo

// register adds a format; each format file calls it from init.
func register(f FormatInfo) {
	if f.Name == "" || f.open == nil || f.Extension == "" || f.ContentType == "" || f.BytesPerRecord <= 0 || f.CompressionRatio <= 0 {
		panic(fmt.Sprintf("download: format %q registered without a name, writer, extension, content type or estimate", f.Name))
	}
	for _, g := range registry {
		if strings.EqualFold(string(g.Name), string(f.Name)) {
			panic(fmt.Sprintf("download: format %s registered twice", f.Name))
		}
	}
	registry = append(registry, f)
	slices.SortStableFunc(registry, func(a, b FormatInfo) int { return a.Order - b.Order })
}

// Formats returns every registered format, in Order.
func Formats() []FormatInfo { return slices.Clone(registry) }

// FormatNames returns the names of Formats, in Order.
func FormatNames() []string {
	fs := Formats()
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f.Name)
	}
	return names
}

// LookupFormat returns the format named exactly name (as the API takes it).
func LookupFormat(name string) (FormatInfo, error) {
	for _, f := range registry {
		if string(f.Name) == name {
			return f, nil
		}
	}
	return FormatInfo{}, fmt.Errorf("%w: %q (want one of %s)", ErrFormat, name, strings.Join(FormatNames(), ", "))
}

// ParseFormat accepts a format name in any case (as the command line takes
// it) and returns its registered name.
func ParseFormat(s string) (Format, error) {
	for _, f := range registry {
		if strings.EqualFold(s, string(f.Name)) {
			return f.Name, nil
		}
	}
	_, err := LookupFormat(s)
	return "", err
}

// FileOf returns the extension and content type of a download file of
// the format named name: a zip for every format but SIMPLE_AVRO, and for
// a name no longer registered.
func FileOf(name string) (ext, contentType string) {
	if f, err := LookupFormat(name); err == nil {
		return f.Extension, f.ContentType
	}
	return ".zip", "application/zip"
}

// zipped says whether the download is a zip archive the export assembles
// (internal/pzip) rather than one file the format writes itself.
func (f FormatInfo) zipped() bool { return f.Extension == ".zip" }

// Info returns the registered description of f.
func (f Format) Info() (FormatInfo, error) { return LookupFormat(string(f)) }

// fieldFormats names the formats whose fields a request may choose.
func fieldFormats() []string { return formatsWhere(func(f FormatInfo) bool { return f.Fields }) }

// ExtensionFormats names the formats that carry extension files.
func ExtensionFormats() []string {
	return formatsWhere(func(f FormatInfo) bool { return f.Extensions })
}

// formatsWhere names the registered formats keep keeps, in Order.
func formatsWhere(keep func(FormatInfo) bool) []string {
	var out []string
	for _, f := range registry {
		if keep(f) {
			out = append(out, string(f.Name))
		}
	}
	return out
}
