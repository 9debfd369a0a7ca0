package dwca

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// dataExtensions are the file name extensions taken for data files when an
// archive has no meta.xml.
var dataExtensions = map[string]bool{".csv": true, ".txt": true, ".tsv": true, ".tab": true}

// occurrenceTerms are columns that make a lone data file occurrence data.
var occurrenceTerms = []string{
	"occurrenceID", "basisOfRecord", "catalogNumber", "decimalLatitude", "eventDate",
	"recordedBy", "institutionCode", "countryCode", "individualCount", "occurrenceStatus",
}

// deriveMeta builds the meta.xml of an archive without one: it must hold a
// single data file whose header row names the terms. The delimiter (tab,
// comma, semicolon or pipe) and quoting are sniffed from the header line.
func (a *Archive) deriveMeta(ctx context.Context) (*Meta, error) {
	var data []string
	for _, n := range a.names {
		if dataExtensions[strings.ToLower(path.Ext(n))] {
			data = append(data, n)
		}
	}
	sort.Strings(data)
	if len(data) != 1 {
		return nil, fmt.Errorf("dwca: %s: %w (data files: %q)", a.Path, ErrNoMeta, data)
	}
	spec, err := a.sniff(ctx, data[0])
	if err != nil {
		return nil, err
	}
	return &Meta{Core: spec}, nil
}

func (a *Archive) sniff(ctx context.Context, name string) (FileSpec, error) {
	rc, err := a.openFile(name)
	if err != nil {
		return FileSpec{}, err
	}
	r, err := prepareText(rc, DefaultEncoding)
	if err != nil {
		rc.Close()
		return FileSpec{}, err
	}
	head, err := bufio.NewReaderSize(r, maxSniffLine).ReadSlice('\n')
	rc.Close()
	if err == bufio.ErrBufferFull {
		return FileSpec{}, fmt.Errorf("dwca: %w", &TooLargeError{Name: a.where(name), What: "header line", Limit: maxSniffLine})
	}
	if err != nil && err != io.EOF {
		return FileSpec{}, fmt.Errorf("dwca: %s: read header line: %w", name, err)
	}
	head = bytes.TrimRight(head, "\r\n")
	spec := newFileSpec()
	spec.Files = []string{name}
	spec.IgnoreHeaderLines = 1
	spec.FieldsTerminatedBy = sniffSeparator(head)
	spec.FieldsEnclosedBy = ""
	if bytes.HasPrefix(head, []byte(`"`)) || spec.FieldsTerminatedBy != "\t" {
		spec.FieldsEnclosedBy = `"`
	}
	rr := newRowReader(ctx, a, &spec) // a copy: Fields come after the header
	rr.maxRow = a.opts.Limits.RowBytes
	_, err = rr.Next()
	header := rr.Header()
	rr.Close()
	if len(header) == 0 {
		return FileSpec{}, fmt.Errorf("dwca: %s: %w: %s has no header row (%v)", a.Path, ErrNoMeta, name, err)
	}
	seen := map[string]bool{}
	for i, h := range header {
		term := TermForName(h)
		if term == "" || seen[term] {
			continue
		}
		seen[term] = true
		spec.Fields = append(spec.Fields, Field{Index: i, Term: term})
	}
	spec.RowType = occurrence.RowTypeOccurrence
	for _, t := range occurrenceTerms {
		if seen[occurrence.NSDwC+t] {
			a.opts.Logger.Info("derived meta.xml from header row", "file", name,
				"separator", spec.FieldsTerminatedBy, "columns", len(header))
			return spec, nil
		}
	}
	return FileSpec{}, fmt.Errorf("dwca: %s: %w: %s has no occurrence columns (%s ...)",
		a.Path, ErrNotOccurrenceData, name, strings.Join(header[:min(5, len(header))], ", "))
}

// maxSniffLine caps the header line of a data file read without meta.xml.
const maxSniffLine = 1 << 20

// sniffSeparator picks the most frequent of tab, comma, semicolon and pipe
// outside double quotes in the header line; ties go to the earlier one.
func sniffSeparator(head []byte) string {
	counts := map[byte]int{}
	inQuote := false
	for _, c := range head {
		switch {
		case c == '"':
			inQuote = !inQuote
		case !inQuote && (c == '\t' || c == ',' || c == ';' || c == '|'):
			counts[c]++
		}
	}
	best, n := byte('\t'), 0
	for _, c := range []byte{'\t', ',', ';', '|'} {
		if counts[c] > n {
			best, n = c, counts[c]
		}
	}
	return string(best)
}
