package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
	"github.com/biodiversity-downloads/downloader/internal/pzip"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/sqlquery"
)

func init() {
	register("export", "write a download archive ("+strings.Join(download.FormatNames(), ", ")+") of matching records", runExport)
}

// exportConfig is the export command's flags.
type exportConfig struct {
	table, query, predicate, format, fields, out, key, tmp, progress, cpuprofile string
	extensions, interpreted, checklistKey, sql, sqlFile                          string
	portal                                                                       download.Portal
	limits                                                                       occurrence.Limits
	workers, zipWorkers, level, chunkKiB, sqlMemoryMiB                           int
}

func parseExportFlags(args []string, env *Env) (exportConfig, error) {
	var c exportConfig
	fs := newFlagSet("export", env)
	fs.StringVar(&c.table, "table", "", "occurrence table: a directory or hbase://host:port/name")
	fs.StringVar(&c.query, "query", "", "portal query string, e.g. 'country=DK&year=2000,2010'")
	fs.StringVar(&c.predicate, "predicate", "", "file with GBIF predicate JSON ('-' for stdin)")
	fs.StringVar(&c.format, "format", string(download.FormatDWCA), "download format: "+formatHelp())
	fs.StringVar(&c.sql, "sql", "", "a SQL query over the table occurrence, as GBIF's SQL downloads take (format SQL_TSV_ZIP; docs/sql.md)")
	fs.StringVar(&c.sqlFile, "sql-file", "", "file with the SQL query ('-' for stdin)")
	fs.IntVar(&c.sqlMemoryMiB, "sql-memory", sqlquery.DefaultMemory>>20, "MiB a SQL query's groups or sorted rows may hold")
	fs.StringVar(&c.fields, "fields", "", "columns of the formats that take a choice (see --format), comma separated: interpreted columns or verbatim terms")
	fs.StringVar(&c.extensions, "verbatim-extensions", "", "DWCA: extensions whose source rows to add as verbatim/<name>.txt, comma separated row types or GBIF names (MEASUREMENT_OR_FACT)")
	fs.StringVar(&c.interpreted, "interpreted-extensions", "", "DWCA, FASTA_ARCHIVE: extensions to add interpreted: DNA_DERIVED_DATA (dnaderiveddata.txt)")
	fs.StringVar(&c.checklistKey, "checklist-key", "", "taxonomy asked for (GBIF's checklistKey); the table's own answers and the metadata says so")
	fs.StringVar(&c.portal.Name, "portal-name", download.DefaultPortalName, "publisher named in citations and metadata, where GBIF's say GBIF.org")
	fs.StringVar(&c.portal.Short, "portal-short", "", "prefix of the download's title, where GBIF's says GBIF (\"GBIF Occurrence Download\")")
	fs.StringVar(&c.out, "o", "", "output file, a zip (an .avro file for SIMPLE_AVRO); '-' for stdout")
	fs.StringVar(&c.key, "key", "", "download key (names the SIMPLE_CSV entry; default: occurrence)")
	fs.StringVar(&c.tmp, "tmp", "", "directory for DWCA's temporary files (default: the system's)")
	fs.StringVar(&c.progress, "progress", "auto", "progress bar on stderr: auto (when a terminal), always, never")
	fs.StringVar(&c.cpuprofile, "cpuprofile", "", "write a Go CPU profile of the export to this file")
	fs.IntVar(&c.workers, "workers", 0, "splits scanned in parallel (0: one per CPU)")
	fs.IntVar(&c.zipWorkers, "zip-workers", 0, "goroutines deflating chunks (0: one per CPU)")
	fs.IntVar(&c.level, "level", pzip.DefaultLevel, "deflate level 1..9")
	fs.IntVar(&c.chunkKiB, "chunk", pzip.DefaultChunkSize>>10, "deflate chunk size in KiB")
	limitFlags(fs, &c.limits)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	if c.out == "" {
		return c, errors.New("no output: give -o FILE or -o - for stdout")
	}
	if c.sql != "" || c.sqlFile != "" {
		if c.sql != "" && c.sqlFile != "" {
			return c, errors.New("give the query with --sql or --sql-file, not both")
		}
		if c.query != "" || c.predicate != "" {
			return c, errors.New("a SQL query has its own WHERE clause: give --sql without --query or --predicate")
		}
		set := false
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == "format" })
		if !set {
			c.format = string(download.FormatSQLTSVZip)
		}
	}
	switch c.progress {
	case "auto", "always", "never":
	default:
		return c, fmt.Errorf("--progress %q: want auto, always or never", c.progress)
	}
	return c, nil
}

func runExport(ctx context.Context, args []string, env *Env) error {
	c, err := parseExportFlags(args, env)
	if err != nil {
		return err
	}
	format, err := download.ParseFormat(c.format)
	if err != nil {
		return err
	}
	pred, err := loadPredicate(c.query, c.predicate, c.limits, env)
	if err != nil {
		return err
	}
	if c.sqlFile != "" {
		if c.sql, err = readSQL(c.sqlFile, env); err != nil {
			return err
		}
	}
	t, err := openTable(ctx, c.table, env.Logger)
	if err != nil {
		return err
	}
	defer t.Close()
	snap, unpin, err := pinnedSnapshot(ctx, t, env)
	if err != nil {
		return err
	}
	defer unpin()
	sink, err := openSink(c.out, env)
	if err != nil {
		return err
	}
	if c.cpuprofile != "" {
		stop, err := startCPUProfile(c.cpuprofile)
		if err != nil {
			sink.abort()
			return err
		}
		defer stop()
	}
	start := time.Now()
	res, err := exportTo(ctx, sink, t, snap, c, format, pred, env)
	if err != nil {
		sink.abort()
		return err
	}
	if err := sink.commit(); err != nil {
		return err
	}
	what := "records"
	if res.Format == download.FormatSQLTSVZip {
		what = "result rows"
	}
	fmt.Fprintf(env.Stderr, "exported %d %s from %d datasets as %s to %s: %d bytes in %.2fs, licence %s, sha256 %s\n",
		res.Records, what, len(res.Datasets), res.Format, c.out, res.Bytes, time.Since(start).Seconds(), licenceName(res), res.SHA256)
	return nil
}

// exportTo scans the snapshot into an archive written to sink.
func exportTo(ctx context.Context, sink *sink, t occurrence.Backend, snap occurrence.Snapshot, c exportConfig, format download.Format,
	pred *occurrence.Predicate, env *Env) (download.ExportResult, error) {
	x, err := download.NewExport(ctx, sink.w, download.ExportSpec{Format: format, Key: c.key, Fields: splitList(c.fields), Predicate: pred,
		Snapshot: snap.ID, VerbatimExtensions: splitList(c.extensions), InterpretedExtensions: splitList(c.interpreted), ChecklistKey: c.checklistKey, SQL: c.sql},
		download.ExportOptions{Zip: pzip.Options{Workers: c.zipWorkers, Level: c.level, ChunkSize: c.chunkKiB << 10},
			Catalog: t, TempDir: c.tmp, Logger: env.Logger, Portal: c.portal,
			SQL: sqlquery.Options{Limits: c.limits}, SQLMemory: int64(c.sqlMemoryMiB) << 20})
	if err != nil {
		return download.ExportResult{}, err
	}
	bar := newProgressBar(env.Stderr, c.progress, snap)
	res, _, err := x.WriteScan(ctx, t, snap, occurrence.ScanOptions{Workers: c.workers}, bar.progress)
	bar.done()
	return res, err
}

// readSQL reads a query from a file or, for "-", standard input, at most
// sqlquery.DefaultMaxBytes and one byte more (Parse then says it is too long).
func readSQL(path string, env *Env) (string, error) {
	var r io.Reader = env.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, sqlquery.DefaultMaxBytes+1))
	if err != nil {
		return "", fmt.Errorf("--sql-file %s: %w", path, err)
	}
	return string(b), nil
}

// splitList splits a comma-separated flag value (nil when empty).
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// formatHelp lists the registered formats for --format's help.
func formatHelp() string {
	var b strings.Builder
	for _, f := range download.Formats() {
		fmt.Fprintf(&b, "\n    %s: %s", f.Name, f.Description)
		if f.Fields {
			b.WriteString(" (--fields)")
		}
	}
	return b.String()
}

func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func licenceName(res download.ExportResult) string {
	l := res.License
	if l == "" {
		l = "unspecified"
	}
	if len(res.UnknownLicense) > 0 {
		l += fmt.Sprintf(" (%d datasets without a recognized licence)", len(res.UnknownLicense))
	}
	return l
}

// sink is the archive's destination: stdout, or a file written under a
// temporary name and moved into place (durably, atomicfile) only when the
// archive is complete.
type sink struct {
	w *bufio.Writer
	f *atomicfile.File
}

func openSink(out string, env *Env) (*sink, error) {
	if out == "-" {
		return &sink{w: bufio.NewWriterSize(env.Stdout, 1<<20)}, nil
	}
	f, err := atomicfile.Create(out, 0o644)
	if err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	return &sink{w: bufio.NewWriterSize(newWriteback(f.Temp()), 1<<20), f: f}, nil
}

// commit flushes the archive and, for a file, moves it into place; on
// failure the temporary file is removed.
func (s *sink) commit() error {
	if err := s.w.Flush(); err != nil {
		s.abort()
		return err
	}
	if s.f == nil {
		return nil
	}
	if err := s.f.Commit(); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}

func (s *sink) abort() {
	if s.f != nil {
		s.f.Abort()
	}
}

// pinnedSnapshot takes the table's snapshot pinned, so that a rollover
// meanwhile retires none of its files. A table this process may not write
// to (read-only media) cannot be pinned: the export then reads it unpinned,
// as nothing on such media is retired anyway.
func pinnedSnapshot(ctx context.Context, t occurrence.Backend, env *Env) (occurrence.Snapshot, func(), error) {
	snap, unpin, err := occurrence.PinSnapshot(ctx, t, "downloader export", 2*time.Minute, env.Logger)
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		env.Logger.Warn("export reads an unpinned snapshot: the table cannot be written to", "err", err)
		snap, err = t.Snapshot(ctx)
		unpin = func() {}
	}
	return snap, unpin, err
}
