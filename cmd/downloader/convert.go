package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/biodiversity-downloads/downloader/abcd"
	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
	"github.com/biodiversity-downloads/downloader/internal/pzip"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

func init() {
	register("convert", "convert ABCD documents, archives or BioCASe endpoints to a Darwin Core Archive", runConvert)
}

// maxListedFailures caps the failed documents listed on stderr.
const maxListedFailures = 20

// convertConfig is the parsed command line of convert.
type convertConfig struct {
	from    string
	out     string
	dataset string
	workers int
	level   int
	inputs  []string
}

// parseConvert accepts flags before, between and after the inputs.
func parseConvert(args []string, env *Env) (convertConfig, error) {
	var c convertConfig
	fs := newFlagSet("convert", env)
	fs.StringVar(&c.from, "from", "", "input format: abcd")
	fs.StringVar(&c.out, "o", "", "output Darwin Core Archive (zip)")
	fs.StringVar(&c.dataset, "dataset", "", "dataset title to harvest from a BioCASe endpoint")
	fs.IntVar(&c.workers, "workers", 0, "documents parsed in parallel (0: one per CPU)")
	fs.IntVar(&c.level, "level", 0, "deflate level 1..9 (0: default)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: downloader convert --from abcd INPUT... -o OUT.zip\n\nINPUT is an ABCD document, an ABCD archive (zip, .abcda) or\nbiocase+https://host/path/pywrapper.cgi?dsa=NAME\n\nflags:")
		fs.PrintDefaults()
	}
	for {
		if err := fs.Parse(args); err != nil {
			return c, err
		}
		if fs.NArg() == 0 {
			break
		}
		c.inputs = append(c.inputs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case c.from != "abcd":
		return c, fmt.Errorf("--from %q: only abcd is supported", c.from)
	case c.out == "":
		return c, errors.New("-o OUT.zip is required")
	case len(c.inputs) == 0:
		return c, errors.New("no input given")
	}
	return c, nil
}

func runConvert(ctx context.Context, args []string, env *Env) error {
	c, err := parseConvert(args, env)
	if err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		// The live heap is a few units per worker; collecting less often
		// saves ~10% CPU for a few tens of MB.
		debug.SetGCPercent(400)
	}
	start := time.Now()
	src, err := abcd.OpenSources(ctx, c.inputs, abcd.SourceOptions{Workers: c.workers, Dataset: c.dataset, Logger: env.Logger})
	if err != nil {
		return err
	}
	defer src.Close()
	n, err := writeConverted(ctx, src, c)
	if err != nil {
		return err
	}
	st := src.Stats()
	secs := time.Since(start).Seconds()
	fmt.Fprintf(env.Stdout, "converted %d units from %d documents (%d failed, %d dropped by the provider) to %s in %.1fs (%.0f units/s)\n",
		n, st.Documents, st.FailedDocuments, st.Dropped, c.out, secs, float64(n)/secs)
	problems := src.Problems()
	for i, p := range problems {
		if i == maxListedFailures {
			fmt.Fprintf(env.Stderr, "... and %d more failed documents\n", len(problems)-i)
			break
		}
		fmt.Fprintf(env.Stderr, "failed: %v (%d units kept)\n", p.Err, p.Kept)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d of %d documents failed; %s holds the others", len(problems), st.Documents, c.out)
	}
	return nil
}

// writeConverted writes the archive to a temporary file beside c.out and
// moves it into place (durably, atomicfile) only when complete.
func writeConverted(ctx context.Context, src *abcd.Source, c convertConfig) (int, error) {
	dir := filepath.Dir(c.out)
	tmp, err := atomicfile.Create(c.out, 0o644)
	if err != nil {
		return 0, err
	}
	defer tmp.Abort() // no-op after the Commit
	n, err := writeArchive(ctx, src, tmp, dir, c.level)
	if err != nil {
		return n, err
	}
	return n, tmp.Commit()
}

// spool is an extension file deflated by pzip's workers into a temporary
// file while the core streams (a pzip.TempSpool, as dwca's download writer
// uses), then added to the archive without a second compression.
type spool struct {
	*pzip.TempSpool
	tw   *dwca.TextWriter
	rows int
}

func newSpool(zw *pzip.Writer, dir string) (*spool, error) {
	t, err := zw.NewTempSpool(dir, ".convert-ext-*.txt")
	if err != nil {
		return nil, err
	}
	return &spool{TempSpool: t, tw: dwca.NewTextWriter(t)}, nil
}

// addTo closes the spool and adds it to the archive as name.
func (s *spool) addTo(zw *pzip.Writer, name string) error {
	if err := s.tw.Flush(); err != nil {
		return err
	}
	return s.Add(zw, &pzip.FileHeader{Name: name})
}

func writeArchive(ctx context.Context, src *abcd.Source, out io.Writer, dir string, level int) (int, error) {
	zw, err := pzip.NewWriter(out, pzip.Options{Level: level})
	if err != nil {
		return 0, err
	}
	defer zw.Abort() // stops the workers on an error; no-op after Close
	spools := map[string]*spool{}
	defer func() {
		for _, s := range spools {
			s.Remove()
		}
	}()
	for _, rt := range abcd.ExtensionOrder {
		s, err := newSpool(zw, dir)
		if err != nil {
			return 0, err
		}
		spools[rt] = s
		s.tw.WriteHeader(abcd.ExtensionHeader(rt))
	}
	core, err := zw.Create(abcd.CoreFile)
	if err != nil {
		return 0, err
	}
	n, err := writeRows(ctx, src, dwca.NewTextWriter(core), spools)
	if err != nil {
		return n, err
	}
	var present []string
	for _, rt := range abcd.ExtensionOrder {
		s := spools[rt]
		if s.rows == 0 {
			continue
		}
		present = append(present, rt)
		if err := s.addTo(zw, abcd.ExtensionFiles[rt]); err != nil {
			return n, err
		}
	}
	if err := writeEntry(zw, "meta.xml", archiveMeta(present).WriteXML); err != nil {
		return n, err
	}
	meta := src.Dataset()
	if err := writeEntry(zw, abcd.EMLFile, func(w io.Writer) error { return abcd.WriteEML(w, meta) }); err != nil {
		return n, err
	}
	return n, zw.Close()
}

// writeRows streams every record: the core row into the zip, extension rows
// into their spools.
func writeRows(ctx context.Context, src *abcd.Source, core *dwca.TextWriter, spools map[string]*spool) (int, error) {
	if err := core.WriteHeader(abcd.CoreHeader()); err != nil {
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
		row = abcd.CoreRow(rec, row)
		if err := core.WriteRow(row); err != nil {
			return n, err
		}
		id := row[0]
		for rt, rows := range rec.Extensions {
			s := spools[rt]
			if s == nil {
				continue
			}
			for _, r := range rows {
				row = abcd.ExtensionRow(id, rt, r, row)
				if err := s.tw.WriteRow(row); err != nil {
					return n, err
				}
				s.rows++
			}
		}
		n++
	}
	return n, core.Flush()
}

func writeEntry(zw *pzip.Writer, name string, write func(io.Writer) error) error {
	w, err := zw.Create(name)
	if err != nil {
		return err
	}
	return write(w)
}

// archiveMeta is the meta.xml of a converted archive: the occurrence core
// (column 0, occurrenceID, is the id) and the given extensions (column 0 is
// the core id, then the extension's terms). Files are UTF-8, tab separated,
// unquoted, one header line.
func archiveMeta(extensions []string) *dwca.Meta {
	m := &dwca.Meta{Core: convertSpec(occurrence.RowTypeOccurrence, abcd.CoreFile, abcd.CoreTerms, 0), Metadata: abcd.EMLFile}
	for _, rt := range extensions {
		m.Extensions = append(m.Extensions, convertSpec(rt, abcd.ExtensionFiles[rt], abcd.ExtensionTerms[rt], 1))
	}
	return m
}

func convertSpec(rowType, file string, terms []string, first int) dwca.FileSpec {
	s := dwca.FileSpec{RowType: rowType, Files: []string{file}, Encoding: "UTF-8",
		FieldsTerminatedBy: "\t", LinesTerminatedBy: "\n", FieldsEnclosedBy: "",
		IgnoreHeaderLines: 1, IDIndex: 0}
	for i, t := range terms {
		s.Fields = append(s.Fields, dwca.Field{Index: first + i, Term: t})
	}
	return s
}
