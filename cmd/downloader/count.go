package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

func init() {
	register("count", "print the number of records matching a query", runCount)
}

func runCount(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("count", env)
	tableSpec := fs.String("table", "", "occurrence table: a directory or hbase://host:port/name")
	query := fs.String("query", "", "portal query string, e.g. 'country=DK&year=2000,2010'")
	predFile := fs.String("predicate", "", "file with GBIF predicate JSON ('-' for stdin)")
	workers := fs.Int("workers", 0, "splits scanned in parallel (0: one per CPU)")
	verbose := fs.Bool("v", false, "report splits pruned, rows scanned and time on stderr")
	materialize := fs.Bool("materialize", false, "read every column of the matching records, as an export does (measures scan speed)")
	repeat := fs.Int("repeat", 1, "run the count this many times on the open table (warm timings with -v)")
	cpuprofile := fs.String("cpuprofile", "", "write a Go CPU profile to this file")
	var lim occurrence.Limits
	limitFlags(fs, &lim)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	pred, err := loadPredicate(*query, *predFile, lim, env)
	if err != nil {
		return err
	}
	t, err := openTable(ctx, *tableSpec, env.Logger)
	if err != nil {
		return err
	}
	defer t.Close()
	if *cpuprofile != "" {
		stop, err := startCPUProfile(*cpuprofile)
		if err != nil {
			return err
		}
		defer stop()
	}
	var n int64
	for i := 0; i < max(*repeat, 1); i++ {
		if n, err = countOnce(ctx, t, pred, *workers, *materialize, *verbose, env); err != nil {
			return err
		}
	}
	fmt.Fprintln(env.Stdout, n)
	return nil
}

// countOnce takes a snapshot and counts (or materializes) its matches.
func countOnce(ctx context.Context, t occurrence.Table, pred *occurrence.Predicate, workers int, materialize, verbose bool, env *Env) (int64, error) {
	start := time.Now()
	snap, err := t.Snapshot(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	var st occurrence.ScanStats
	if materialize {
		st, err = occurrence.Scan(ctx, t, snap, occurrence.ScanRequest{Predicate: pred}, occurrence.ScanOptions{Workers: workers},
			func(b arrow.RecordBatch) error {
				n += b.NumRows()
				return nil
			})
	} else {
		n, st, err = occurrence.Count(ctx, t, snap, pred, occurrence.ScanOptions{Workers: workers})
	}
	if err != nil {
		return 0, err
	}
	if verbose {
		reportScan(env.Stderr, snap, st, time.Since(start))
	}
	return n, nil
}

func reportScan(w io.Writer, snap occurrence.Snapshot, st occurrence.ScanStats, d time.Duration) {
	var rows int64
	for _, s := range snap.Splits {
		rows += s.Rows
	}
	fmt.Fprintf(w, "snapshot %s: %d splits (%d pruned), %d rows, %d scanned, %d matched in %.3fs (%.1fM rows/s)",
		snap.ID, len(snap.Splits), st.SplitsPruned, rows, st.RowsScanned, st.RowsMatched,
		d.Seconds(), float64(rows)/d.Seconds()/1e6)
	if st.ColumnsTrimmed > 0 {
		fmt.Fprintf(w, ", %d predicate columns of splits left unread", st.ColumnsTrimmed)
	}
	fmt.Fprintln(w)
}
