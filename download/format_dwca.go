package download

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// multimediaColumns are the columns of GBIF's multimedia.txt after gbifID;
// the multimedia column stores rows keyed by these names.
var multimediaColumns = []string{
	"type", "format", "identifier", "references", "title", "description", "source", "audience",
	"created", "creator", "contributor", "publisher", "license", "rightsHolder",
}

// FormatDWCA is GBIF's Darwin Core Archive download.
const FormatDWCA Format = "DWCA"

func init() {
	register(FormatInfo{
		Name:        FormatDWCA,
		Description: "Darwin Core Archive: interpreted occurrence.txt, verbatim.txt, multimedia.txt, meta.xml, the download's and each dataset's EML, citations and rights",
		Extension:   ".zip", ContentType: "application/zip", Dictionaries: true, Extensions: true,
		BytesPerRecord: 115, CompressionRatio: 10.5, Order: 0,
		open: newDWCAWriter,
	})
}

// dwcaWriter is GBIF's DWCA download, written with dwca's archive writer:
// occurrence.txt is the core, streamed into the zip, while verbatim.txt and
// multimedia.txt are extensions deflated by the same workers into temporary
// files and copied in at the end.
//
// occurrence.txt has GBIF's 230 columns in GBIF's order (the schema's
// leading columns). verbatim.txt has GBIF's columns (gbifID, then
// gbifVerbatimTerms), then every other term the table's datasets were
// published with (DatasetInfo.Terms, sorted), so that no value a publisher
// supplied is dropped. Only a table loaded before datasets recorded their
// terms can hold values without a column: those are counted in
// ExportResult.DroppedVerbatimTerms and logged.
type dwcaWriter struct {
	x        *Export
	aw       *dwca.Writer
	occ      *tableWriter
	verb     *dwca.TextWriter
	media    *dwca.TextWriter
	verbCols []string // terms of verbatim.txt after gbifID
	// vrows read the verbatim objects of verbatim.txt's rows, one for
	// each half of a batch (rowHalves), each counting the values without a
	// column in a dropped map of its own (merged by finish).
	vrows   [2]*verbatimRow
	dropped [2]map[string]int64
	halves  *rowHalves
	mrow    *verbatimRow         // one multimedia object, by multimediaColumns
	exts    []*verbatimExtension // the requested verbatim/<name>.txt files
	dna     *dwca.TextWriter     // dnaderiveddata.txt, when asked for
	// cites and dois are the datasets' citations and DOIs (citationsOf),
	// made from their EML as it is copied.
	cites, dois map[string]string
}

// occurrenceFields are the interpreted columns of occurrence.txt: GBIF's,
// gbifID first.
func occurrenceFields() []field {
	var fs []field
	for _, c := range occurrence.Columns()[:occurrence.GBIFColumns] {
		fs = append(fs, columnField(c)) // with its layout: modified to the second, as GBIF's
	}
	return fs
}

// verbatimTerms returns the terms of verbatim.txt after gbifID: GBIF's, then
// the other core terms in extra (sorted, canonical).
func verbatimTerms(extra []string) []string {
	terms := slices.Clone(gbifVerbatimTerms)
	seen := map[string]bool{occurrence.NSGBIF + "gbifID": true}
	for _, t := range terms {
		seen[t] = true
	}
	var more []string
	for _, t := range extra {
		if t = dwca.CanonicalTerm(t); !seen[t] {
			seen[t] = true
			more = append(more, t)
		}
	}
	slices.Sort(more)
	return append(terms, more...)
}

// tableTerms returns the union of the core terms of every dataset the
// catalog describes (nil without a catalog).
func tableTerms(ctx context.Context, c occurrence.Catalog) ([]string, error) {
	if c == nil {
		return nil, nil
	}
	infos, err := c.Datasets(ctx)
	if err != nil {
		return nil, fmt.Errorf("download: the datasets' terms: %w", err)
	}
	var out []string
	for _, in := range infos {
		out = append(out, in.Terms[occurrence.RowTypeOccurrence]...)
	}
	return out, nil
}

// headerNames gives each term its simple name, or its verbatim key where
// two terms share a simple name.
func headerNames(terms []string) []string {
	count := map[string]int{}
	for _, t := range terms {
		count[occurrence.SimpleName(t)]++
	}
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = occurrence.SimpleName(t)
		if count[out[i]] > 1 {
			out[i] = occurrence.VerbatimKey(t)
		}
	}
	return out
}

func newDWCAWriter(ctx context.Context, x *Export) (formatWriter, error) {
	exts, err := resolveExtensions(x.spec.VerbatimExtensions)
	if err != nil {
		return nil, err
	}
	extra, err := tableTerms(ctx, x.opts.Catalog)
	if err != nil {
		return nil, err
	}
	d := &dwcaWriter{x: x, occ: newTableWriter(occurrenceFields()), verbCols: verbatimTerms(extra), halves: newRowHalves()}
	keys := make([]string, len(d.verbCols))
	for i, t := range d.verbCols {
		keys[i] = occurrence.VerbatimKey(t)
	}
	for k := range d.vrows {
		dropped := map[string]int64{}
		d.dropped[k] = dropped
		d.vrows[k] = newVerbatimRow(keys)
		d.vrows[k].unknown = func(key string) {
			// key points into the batch's buffer: clone it before keeping it.
			if _, ok := dropped[key]; !ok {
				key = strings.Clone(key)
			}
			dropped[key]++
		}
	}
	d.mrow = newVerbatimRow(multimediaColumns)
	d.aw = dwca.NewWriter(x.zw, dwca.WriterOptions{TempDir: x.opts.TempDir, Modified: x.created, Metadata: "metadata.xml"})
	occ, verb, media := d.fileSpecs()
	w, err := d.aw.Core(occ)
	if err != nil {
		return nil, err
	}
	d.occ.rw = dwca.NewExclusiveTextWriter(w)
	if err := d.occ.rw.WriteRow(d.occ.header()); err != nil {
		return nil, err
	}
	vw, err := d.aw.Extension(verb)
	if err != nil {
		return nil, err
	}
	mw, err := d.aw.Extension(media)
	if err != nil {
		d.abort()
		return nil, err
	}
	d.verb, d.media = dwca.NewExclusiveTextWriter(vw), dwca.NewExclusiveTextWriter(mw)
	if err := d.openExtensions(ctx, exts); err != nil {
		d.abort()
		return nil, err
	}
	if len(x.spec.InterpretedExtensions) > 0 { // NewExport took DNA_DERIVED_DATA only
		if err := d.openDNA(); err != nil {
			d.abort()
			return nil, err
		}
	}
	d.verb.WriteRow(append([]string{occurrence.ColGBIFID}, headerNames(d.verbCols)...))
	d.media.WriteRow(append([]string{occurrence.ColGBIFID}, multimediaColumns...))
	return d, nil
}

// fileSpecs describes occurrence.txt (the core), verbatim.txt and
// multimedia.txt (extensions whose column 0, gbifID, is the core id), as
// GBIF's meta.xml does: geodeticDatum is WGS84 for every record (a default
// field, first), and the core's list columns are delimitedBy ";".
func (d *dwcaWriter) fileSpecs() (occ, verb, media dwca.FileSpec) {
	occTerms := make([]string, len(d.occ.fields))
	for i, f := range d.occ.fields {
		occTerms[i] = f.term
	}
	occ = dwca.TextFile(occurrence.RowTypeOccurrence, "occurrence.txt", occTerms, 0)
	for i, f := range d.occ.fields {
		if f.multi {
			occ.Fields[i].Delimiter = ";"
		}
	}
	occ.Fields = append([]dwca.Field{{Index: -1, Term: occurrence.NSDwC + "geodeticDatum", Default: "WGS84"}}, occ.Fields...)
	gbifID := occurrence.NSGBIF + "gbifID"
	mediaTerms := []string{gbifID}
	for _, c := range multimediaColumns {
		mediaTerms = append(mediaTerms, occurrence.NSDC+c)
	}
	return occ,
		dwca.TextFile(occurrence.RowTypeOccurrence, "verbatim.txt", append([]string{gbifID}, d.verbCols...), 0),
		dwca.TextFile(occurrence.RowTypeMultimedia, "multimedia.txt", mediaTerms, 0)
}

func (d *dwcaWriter) columns() []string {
	cols := append(fieldColumns(d.occ.fields), occurrence.ColVerbatim, occurrence.ColMultimedia)
	if len(d.exts) > 0 || d.hasDNA() {
		cols = append(cols, occurrence.ColExtensions)
	}
	return cols
}

// transient names the columns write reads only while it runs
// (occurrence.ScanRequest.Transient): all of them. The verbatim,
// multimedia and extension JSON are parsed into rows at once (verbatimRow
// keeps no string of an object past the next; the keys it remembers and
// the dropped terms it counts are copies); occurrence.txt's cells are
// copied into the rows (dictText keeps a dictionary's identity, which
// holding its ArrayData keeps from being reused, and cleans entries into
// memory of its own); the accounting clones the dataset keys it keeps.
func (d *dwcaWriter) transient() []string { return d.columns() }

func (d *dwcaWriter) write(b *batch) error {
	if err := d.occ.writeBatch(b); err != nil {
		return err
	}
	id, err := cleanCellFor(b.col(occurrence.ColGBIFID))
	if err != nil {
		return err
	}
	verb, media, exts := b.col(occurrence.ColVerbatim), b.col(occurrence.ColMultimedia), b.col(occurrence.ColExtensions)
	dataset, err := cleanCellFor(b.col(occurrence.ColDatasetKey))
	if err != nil {
		return err
	}
	// verbatim.txt's rows: gbifID (a number, clean) and the values
	// appendCells cleans, on two goroutines (rowHalves).
	verbRow := func(v *verbatimRow) rowFn {
		return func(buf []byte, i int) []byte {
			v.parse(str(verb, i))
			return append(v.appendCells(id(buf, i)), '\n')
		}
	}
	if err := d.halves.write(d.verb, b.n, verbRow(d.vrows[0]), verbRow(d.vrows[1])); err != nil {
		return err
	}
	for i := 0; i < b.n; i++ {
		if m := str(media, i); m != "" {
			if err := d.writeMedia(id, i, m); err != nil {
				return err
			}
		}
		if err := d.writeExtensions(id, dataset, i, str(exts, i)); err != nil {
			return err
		}
		if d.hasDNA() {
			if err := d.writeDNA(id, i, str(exts, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// droppedTerms returns the counts of verbatim values without a column of
// both halves' verbatim readers (ExportResult.DroppedVerbatimTerms).
func (d *dwcaWriter) droppedTerms() map[string]int64 {
	for k, n := range d.dropped[1] {
		d.dropped[0][k] += n
	}
	clear(d.dropped[1])
	return d.dropped[0]
}

// writeMedia writes the multimedia rows of one record.
func (d *dwcaWriter) writeMedia(id cellFn, i int, js string) error {
	var err error
	buf := d.media.Rows()
	gjson.Parse(js).ForEach(func(_, row gjson.Result) bool {
		d.mrow.parse(row.Raw)
		buf = d.mrow.appendCells(id(buf, i))
		buf, err = d.media.SetRows(append(buf, '\n'))
		return err == nil
	})
	return err
}

func (d *dwcaWriter) abort() { d.aw.Abort() }

func (d *dwcaWriter) finish(ctx context.Context, res ExportResult, infos []occurrence.DatasetInfo) error {
	x := d.x
	tws := []*dwca.TextWriter{d.occ.rw, d.verb, d.media}
	for _, ve := range d.exts {
		tws = append(tws, ve.tw)
	}
	if d.hasDNA() {
		tws = append(tws, d.dna)
	}
	for _, tw := range tws {
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if err := d.aw.Finish(); err != nil {
		return err
	}
	if dropped := d.droppedTerms(); len(dropped) > 0 {
		x.opts.Logger.WarnContext(ctx, "verbatim terms without a column in verbatim.txt", "terms", len(dropped))
	}
	if err := writeEntry(x, "metadata.xml", func(w io.Writer) error {
		return writeDownloadEML(w, x, res, infos)
	}); err != nil {
		return err
	}
	parts, err := d.writeDatasetEML(ctx, infos)
	if err != nil {
		return err
	}
	d.cites, d.dois = citationsOf(x, infos, parts)
	if err := writeEntry(x, "citations.txt", func(w io.Writer) error { return writeCitations(w, x, infos, d.cites) }); err != nil {
		return err
	}
	return writeEntry(x, "rights.txt", func(w io.Writer) error { return writeRights(w, infos, &x.acct) })
}

// writeEntry adds one small entry produced by fn.
func writeEntry(x *Export, name string, fn func(io.Writer) error) error {
	w, err := x.create(name)
	if err != nil {
		return err
	}
	if err := fn(w); err != nil {
		return fmt.Errorf("dwca: write %s: %w", name, err)
	}
	return nil
}

// writeDatasetEML copies the EML of each constituent dataset that was
// ingested with one, and returns each dataset's citation parts: the
// catalog's, or, for a dataset ingested before the catalog kept them, read
// from the copied EML. Failing to read a document the catalog says it
// holds fails the export, a document whose citation parts cannot be read
// is only copied.
func (d *dwcaWriter) writeDatasetEML(ctx context.Context, infos []occurrence.DatasetInfo) (map[string]dwca.CitationParts, error) {
	x := d.x
	parts := cataloguedParts(infos)
	err := eachDatasetEML(ctx, x.opts.Catalog, infos, func(key string, r io.Reader) error {
		_, known := parts[key]
		var doc bytes.Buffer
		err := writeEntry(x, "dataset/"+key+".xml", func(w io.Writer) error {
			if !known {
				r = io.TeeReader(r, &doc)
			}
			_, err := io.Copy(w, r)
			return err
		})
		if err != nil || known {
			return err
		}
		if p, err := dwca.ReadCitationParts(&doc); err == nil {
			parts[key] = p
		}
		return nil
	})
	return parts, err
}

// cataloguedParts are the citation parts the catalog keeps, by dataset.
func cataloguedParts(infos []occurrence.DatasetInfo) map[string]dwca.CitationParts {
	parts := map[string]dwca.CitationParts{}
	for _, in := range infos {
		if in.CitationParts != nil {
			parts[in.Key] = *in.CitationParts
		}
	}
	return parts
}

// citationPartsOf returns each dataset's citation parts: the catalog's,
// read at ingest, or, for a dataset ingested before the catalog kept them,
// read from its EML.
func citationPartsOf(ctx context.Context, c occurrence.Catalog, infos []occurrence.DatasetInfo) (map[string]dwca.CitationParts, error) {
	parts := cataloguedParts(infos)
	var older []occurrence.DatasetInfo
	for _, in := range infos {
		if _, ok := parts[in.Key]; !ok && in.HasEML {
			older = append(older, in)
		}
	}
	err := eachDatasetEML(ctx, c, older, func(key string, r io.Reader) error {
		if p, err := dwca.ReadCitationParts(r); err == nil {
			parts[key] = p
		}
		return nil
	})
	return parts, err
}

// eachDatasetEML calls f with the EML of each constituent dataset that was
// ingested with one (and whose key can name a file); failing to read a
// document the catalog says it holds is an error.
func eachDatasetEML(ctx context.Context, c occurrence.Catalog, infos []occurrence.DatasetInfo, f func(key string, r io.Reader) error) error {
	if c == nil {
		return nil
	}
	for _, in := range infos {
		key := in.Key
		if !in.HasEML || key == "" || checkKey(key) != nil {
			continue
		}
		rc, err := c.DatasetEML(ctx, key)
		if err != nil {
			return fmt.Errorf("dwca: EML of dataset %s: %w", key, err)
		}
		err = f(key, rc)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
