package abcd

import (
	"context"
	"io"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/internal/pzip"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// WriteArchive converts every record src yields into a Darwin Core Archive
// written into zw with dwca's archive writer: occurrence.txt (the core, one
// row per unit, its occurrenceID the row id), one file per extension that
// got rows (identification.txt, multimedia.txt, measurementorfact.txt;
// column 0 the core id), meta.xml and eml.xml (the dataset's metadata from
// the first document). Extension files are spooled in tempDir. It returns
// the number of records written; the caller closes zw.
func WriteArchive(ctx context.Context, src *Source, zw *pzip.Writer, tempDir string) (int, error) {
	aw := dwca.NewWriter(zw, dwca.WriterOptions{TempDir: tempDir, Metadata: emlFile})
	defer aw.Abort() // removes the spools on an error; no-op after Finish
	cf, err := aw.Core(dwca.TextFile(occurrence.RowTypeOccurrence, coreFile, coreTerms, 0))
	if err != nil {
		return 0, err
	}
	core := dwca.NewExclusiveTextWriter(cf)
	exts := map[string]*extensionFile{}
	for _, rt := range extensionOrder {
		f, err := aw.Extension(dwca.TextFile(rt, extensionFiles[rt], extensionTerms[rt], 1))
		if err != nil {
			return 0, err
		}
		e := &extensionFile{f: f, tw: dwca.NewExclusiveTextWriter(f)}
		if err := e.tw.WriteHeader(extensionHeader(rt)); err != nil {
			return 0, err
		}
		exts[rt] = e
	}
	n, err := writeRows(ctx, src, core, exts)
	if err != nil {
		return n, err
	}
	for _, e := range exts {
		if err := e.tw.Flush(); err != nil {
			return n, err
		}
		if e.rows == 0 {
			e.f.Omit()
		}
	}
	if err := aw.Finish(); err != nil {
		return n, err
	}
	meta := src.Dataset()
	return n, aw.CreateWith(emlFile, func(w io.Writer) error { return WriteEML(w, meta) })
}

// extensionFile is one extension of a converted archive and its row count.
type extensionFile struct {
	f    *dwca.DataFile
	tw   *dwca.TextWriter
	rows int
}

// writeRows streams every record: the core row into the zip, extension rows
// into their spools.
func writeRows(ctx context.Context, src *Source, core *dwca.TextWriter, exts map[string]*extensionFile) (int, error) {
	if err := core.WriteHeader(coreHeader()); err != nil {
		return 0, err
	}
	var row []string
	n := 0
	for {
		rec, err := src.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		row = coreRow(rec, row)
		if err := core.WriteRow(row); err != nil {
			return n, err
		}
		id := row[0]
		for rt, rows := range rec.Extensions {
			e := exts[rt]
			if e == nil {
				continue
			}
			for _, r := range rows {
				row = extensionRow(id, rt, r, row)
				if err := e.tw.WriteRow(row); err != nil {
					return n, err
				}
				e.rows++
			}
		}
		n++
	}
	return n, core.Flush()
}
