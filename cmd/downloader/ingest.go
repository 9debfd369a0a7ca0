package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/ingest"
)

func init() {
	register("ingest", "load DwC-A, ABCD or BioCASe sources into an occurrence table", runIngest)
}

func runIngest(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("ingest", env)
	tableSpec := fs.String("table", "", "occurrence table: a directory or hbase://host:port/name")
	key := fs.String("dataset-key", "", "dataset key to store the source under (default: its metadata's identifier, else one derived from its content)")
	dataset := fs.String("dataset", "", "dataset title to harvest from a BioCASe endpoint serving several")
	tmp := fs.String("tmp", "", "directory for downloads and spill files (default: the system's)")
	timeout := fs.Duration("http-timeout", 10*time.Minute, "timeout of one HTTP download")
	memprofile := fs.String("memprofile", "", "write the heap profile taken at the largest live heap to this file")
	cpuprofile := fs.String("cpuprofile", "", "write a Go CPU profile of the ingest to this file")
	replace := fs.Bool("replace", false, "let a source replace a dataset of its key that the table holds from another source (other place and content)")
	taxDir := fs.String("taxonomy", "", "taxonomy directory records are matched against (default: DIR/taxonomy of a directory table; give one for an HBase table)")
	matchTaxa := fs.Bool("match-taxa", true, "match each record's name to the table's checklist (else its derived taxonomy) and fill taxonKey..speciesKey")
	maxInput := fs.Int64("max-input-bytes", dwca.DefaultMaxFileBytes, "cap on each data file of an archive, each ABCD document and each download, in bytes (docs/limits.md lists every input limit)")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: downloader ingest --table DIR SOURCE...\n\nSOURCE is a DwC-A zip, an unpacked archive folder, a lone CSV, an http(s) URL of a DwC-A,\nan ABCD document or archive (.xml, .zip, .abcda), or biocase+https://host/pywrapper.cgi?dsa=NAME.\nEach source replaces its dataset atomically.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("no source given")
	}
	if *key != "" && fs.NArg() > 1 {
		return errors.New("--dataset-key names one dataset: give one source")
	}
	if *cpuprofile != "" {
		stop, err := startCPUProfile(*cpuprofile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if *memprofile != "" {
		p, err := startPeakProfile(*memprofile, 50*time.Millisecond)
		if err != nil {
			return err
		}
		defer func() {
			peak, err := p.Stop()
			if err != nil {
				fmt.Fprintln(env.Stderr, err)
				return
			}
			fmt.Fprintf(env.Stderr, "peak live heap %.0f MB, its profile in %s\n", float64(peak)/(1<<20), *memprofile)
		}()
	}
	t, err := createTable(ctx, *tableSpec, env.Logger)
	if err != nil {
		return err
	}
	defer t.Close()
	opts := ingest.OpenOptions{HTTPClient: &http.Client{Timeout: *timeout}, TempDir: *tmp, Dataset: *dataset, Logger: env.Logger,
		MaxInputBytes: *maxInput}
	lopts := ingest.Options{DatasetKey: *key, Replace: *replace}
	if *matchTaxa {
		if dir := taxonomyDir(*tableSpec, *taxDir); dir != "" {
			taxa, err := ingest.OpenTaxa(dir)
			if err != nil {
				return err
			}
			defer func() {
				h, m := taxa.Stats()
				env.Logger.Info("taxon matching", "cache_hits", h, "cache_misses", m)
				taxa.Close()
			}()
			lopts.Taxa = taxa
			env.Logger.Info("matching taxa", "taxonomy", taxa.Describe(), "dir", dir)
		} else {
			fmt.Fprintln(env.Stderr, "warning: no --taxonomy directory for this HBase table: records are not matched to taxa")
		}
	}
	var failed []string
	for _, src := range fs.Args() {
		if err := ingestOne(ctx, t, src, opts, lopts, env); err != nil {
			fmt.Fprintf(env.Stderr, "%s: %v\n", src, limitHint(err))
			failed = append(failed, src)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d sources failed; the table keeps their previous data", len(failed), fs.NArg())
	}
	return nil
}

func ingestOne(ctx context.Context, t ingest.Table, src string, opts ingest.OpenOptions, lopts ingest.Options, env *Env) error {
	start := time.Now()
	s, err := ingest.Open(ctx, src, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := ingest.Load(ctx, t, s, lopts)
	if _, ok := errors.AsType[*ingest.NoRecordsError](err); !ok {
		printProblems(env, src, res) // else the error shows the first ones
	}
	if err != nil {
		return err
	}
	d := time.Since(start)
	fmt.Fprintf(env.Stdout, "%s: dataset %s (%q): %d records, %d broken rows skipped, snapshot %s, %.1fs (%.0f records/s)\n",
		src, res.DatasetKey, res.Title, res.Records, res.BrokenRows, res.Snapshot, d.Seconds(), float64(res.Records)/d.Seconds())
	printIssues(env, res.Issues)
	return nil
}

// taxonomyDir is the taxonomy directory of a table: the one given, else
// DIR/taxonomy of a directory table; "" for an HBase table without one
// (ingest then matches no taxa and says so; serve's species API answers
// 503).
func taxonomyDir(table, given string) string {
	switch {
	case given != "":
		return given
	case table == "" || strings.Contains(table, "://"):
		return ""
	}
	return filepath.Join(table, "taxonomy")
}

// limitHint adds to an input over a size cap that --max-input-bytes
// raises the one a user may have to raise (the others are far above real
// data; docs/limits.md).
func limitHint(err error) error {
	var te *dwca.TooLargeError
	if errors.As(err, &te) {
		switch te.What {
		case "data file", "data file (declared size)", "ABCD document", "ABCD document (declared size)", "download", "download (Content-Length)", "ABCD archive download":
			return fmt.Errorf("%w (raise it with --max-input-bytes)", err)
		}
	}
	return err
}

func printProblems(env *Env, src string, res ingest.Result) {
	for i, p := range res.Problems {
		if i == 10 {
			fmt.Fprintf(env.Stderr, "%s: ... %d more broken rows\n", src, res.BrokenRows-10)
			break
		}
		fmt.Fprintf(env.Stderr, "%s: skipped %s\n", src, p)
	}
}

func printIssues(env *Env, issues map[string]int64) {
	names := make([]string, 0, len(issues))
	for k := range issues {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return issues[names[i]] > issues[names[j]] })
	for _, n := range names {
		fmt.Fprintf(env.Stdout, "  issue %-40s %d records\n", n, issues[n])
	}
}
