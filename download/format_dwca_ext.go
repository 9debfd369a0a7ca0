package download

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/tidwall/gjson"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// verbatimExtension is one verbatim/<name>.txt file of a DWCA: the source
// rows of one extension, for every record of the download that has any.
//
// Its columns are GBIF's: gbifID, datasetKey, then every property of the
// extension's definition, in definition order (extensionDefinitions, the
// definitions GBIF's download tables are made from). Terms the table's
// datasets published for that row type that the definition lacks follow,
// sorted, so that no published value is dropped; an extension GBIF has no
// definition for has those alone. The header names are GBIF's: gbifid,
// datasetkey, then each term's simple name lower-cased without "-" or "_".
type verbatimExtension struct {
	ext   Extension
	terms []string
	tw    *dwca.TextWriter
	row   *verbatimRow
}

// resolveExtensions parses a request's verbatimExtensions (row types or
// GBIF's enum names), without duplicates, in the order asked.
func resolveExtensions(names []string) ([]Extension, error) {
	var out []Extension
	for _, n := range names {
		e, err := LookupExtension(n)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// extensionDefinition is the definition of one of GBIF's extensions.
type extensionDefinition struct {
	rowType string
	terms   []string // qualified names, in definition order
}

// extensionTerms returns an extension file's terms: its definition's
// properties in definition order, then, sorted, the terms the catalog's
// datasets published for its row type that the definition lacks.
func extensionTerms(ctx context.Context, c occurrence.Catalog, e Extension) ([]string, error) {
	out := slices.Clone(extensionDefinitions[e.Name].terms)
	if c == nil {
		return out, nil
	}
	infos, err := c.Datasets(ctx)
	if err != nil {
		return nil, fmt.Errorf("download: the datasets' %s terms: %w", e.RowType, err)
	}
	seen := map[string]bool{}
	for _, t := range out {
		seen[t] = true
	}
	var extra []string
	for _, in := range infos {
		for _, t := range in.Terms[e.RowType] {
			if !seen[t] {
				seen[t] = true
				extra = append(extra, t)
			}
		}
	}
	slices.Sort(extra)
	return append(out, extra...), nil
}

// extensionHeader returns GBIF's column names for an extension file:
// gbifid, datasetkey, then each term normalised as GBIF's
// TermNormalizationUtils.normalizeFieldName does, with the namespace
// prefix kept where two terms would share a name.
func extensionHeader(terms []string) []string {
	names := headerNames(terms)
	out := []string{"gbifid", "datasetkey"}
	for _, n := range names {
		out = append(out, normalizeFieldName(n))
	}
	return out
}

// normalizeFieldName lower-cases a name and drops "-" and "_", turns ":"
// into "_", and prefixes "_" when it starts with a digit.
func normalizeFieldName(n string) string {
	n = strings.ToLower(strings.NewReplacer("-", "", "_", "", ":", "_").Replace(n))
	if n != "" && unicode.IsDigit(rune(n[0])) {
		n = "_" + n
	}
	return n
}

// openExtensions adds one verbatim/<name>.txt extension per requested
// extension to the archive, with its header written.
func (d *dwcaWriter) openExtensions(ctx context.Context, exts []Extension) error {
	gbifID, datasetKey := occurrence.NSGBIF+"gbifID", occurrence.NSGBIF+"datasetKey"
	for _, e := range exts {
		terms, err := extensionTerms(ctx, d.x.opts.Catalog, e)
		if err != nil {
			return err
		}
		dw, err := d.aw.Extension(dwca.TextFile(e.RowType, e.File(), append([]string{gbifID, datasetKey}, terms...), 0))
		if err != nil {
			return err
		}
		keys := make([]string, len(terms))
		for i, t := range terms {
			keys[i] = occurrence.VerbatimKey(t)
		}
		ve := &verbatimExtension{ext: e, terms: terms, tw: dwca.NewExclusiveTextWriter(dw), row: newVerbatimRow(keys)}
		if err := ve.tw.WriteRow(extensionHeader(terms)); err != nil {
			return err
		}
		d.exts = append(d.exts, ve)
	}
	return nil
}

// writeExtensions writes the rows of the requested extensions of one
// record, whose extension rows are js (the extensions column).
func (d *dwcaWriter) writeExtensions(id, dataset cellFn, i int, js string) error {
	if js == "" || len(d.exts) == 0 {
		return nil
	}
	var err error
	gjson.Parse(js).ForEach(func(rowType, rows gjson.Result) bool {
		for _, ve := range d.exts {
			if ve.ext.RowType == rowType.Str {
				err = ve.writeRows(id, dataset, i, rows)
				break
			}
		}
		return err == nil
	})
	return err
}

// writeRows writes one record's rows of the extension.
func (ve *verbatimExtension) writeRows(id, dataset cellFn, i int, rows gjson.Result) error {
	var err error
	buf := ve.tw.Rows()
	rows.ForEach(func(_, row gjson.Result) bool {
		ve.row.parse(row.Raw)
		buf = dataset(append(id(buf, i), '\t'), i)
		buf, err = ve.tw.SetRows(append(ve.row.appendCells(buf), '\n'))
		return err == nil
	})
	return err
}
