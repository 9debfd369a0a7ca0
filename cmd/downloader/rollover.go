package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/occurrence/hbase"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

func init() {
	register("rollover", "compact the embedded table, or snapshot an HBase table into one; retire unused snapshots", runRollover)
}

// The retention of `downloader rollover` and of the rollover schedules.
const (
	defaultKeepSnapshots = 5
	defaultKeepFor       = time.Hour
)

// rolloverSettings are what a rollover run needs (flags here; a schedule
// passes the same).
type rolloverSettings struct {
	// table is a directory or hbase://host:port/name; snapshotDir the
	// embedded table an HBase table is copied into.
	table, snapshotDir string
	smallRows          int64
	keepSnapshots      int
	keepFor            time.Duration
}

func runRollover(ctx context.Context, args []string, env *Env) error {
	var st rolloverSettings
	fs := newFlagSet("rollover", env)
	fs.StringVar(&st.table, "table", "", "occurrence table: a directory (compacted in place) or hbase://host:port/name (copied into --snapshot-dir)")
	fs.StringVar(&st.snapshotDir, "snapshot-dir", "", "with an HBase --table: the embedded table directory its snapshot is written to (what `serve --export-table` reads)")
	fs.Int64Var(&st.smallRows, "small-rows", 0, "datasets with fewer records are merged into shared files (0: one row group's worth, 65536)")
	fs.IntVar(&st.keepSnapshots, "keep-snapshots", defaultKeepSnapshots, "snapshots retained, the current one included, for reproducibility")
	fs.DurationVar(&st.keepFor, "keep-for", defaultKeepFor, "how long a replaced snapshot stays readable for unpinned readers (counts); 0: retire at once what no pin holds")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	memprofile := fs.String("memprofile", "", "write the heap profile taken at the largest live heap to this file")
	fs.Usage = func() {
		fmt.Fprintln(env.Stderr, "usage: downloader rollover --table DIR | --table hbase://host:port/name --snapshot-dir DIR\n\n"+
			"Compacts the embedded table (small datasets merged into clustered shared files, missing statistics\n"+
			"completed, one new snapshot) or writes an HBase table's snapshot into an embedded table, then\n"+
			"deletes the files of snapshots no running download pins and no retention keeps.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *memprofile != "" {
		p, err := startPeakProfile(*memprofile, 50*time.Millisecond)
		if err != nil {
			return err
		}
		defer func() {
			if peak, err := p.Stop(); err == nil {
				fmt.Fprintf(env.Stderr, "peak live heap %.0f MB, its profile in %s\n", float64(peak)/(1<<20), *memprofile)
			}
		}()
	}
	rep, err := rollover(ctx, st, env.Logger)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(env.Stdout, rep)
	}
	printRollover(env.Stdout, st, rep)
	return nil
}

// rollover runs one rollover of st.table: a compaction of an embedded
// table, or the snapshot of an HBase table (its old generations collected
// first) written into st.snapshotDir.
func rollover(ctx context.Context, st rolloverSettings, logger *slog.Logger) (parquet.RolloverReport, error) {
	if st.table == "" {
		return parquet.RolloverReport{}, errors.New("no table: give --table DIR or --table hbase://host:port/name")
	}
	cfg := parquet.Config{KeepSnapshots: max(st.keepSnapshots, 1), KeepFor: st.keepFor}
	if st.keepFor <= 0 {
		cfg.KeepFor = -1 // no grace period
	}
	opts := parquet.RolloverOptions{SmallRows: st.smallRows}
	if !strings.HasPrefix(st.table, "hbase://") {
		if st.snapshotDir != "" {
			return parquet.RolloverReport{}, errors.New("--snapshot-dir is for an HBase --table; an embedded table is compacted in place")
		}
		s, err := parquet.OpenExisting(st.table, cfg, logger)
		if err != nil {
			return parquet.RolloverReport{}, err
		}
		defer s.Close()
		return s.Rollover(ctx, opts)
	}
	if st.snapshotDir == "" {
		return parquet.RolloverReport{}, errors.New("an HBase --table needs --snapshot-dir DIR, the embedded table its snapshot is written to")
	}
	src, err := hbase.Open(ctx, st.table, logger)
	if err != nil {
		return parquet.RolloverReport{}, err
	}
	defer src.Close()
	collected, err := src.Collect(ctx)
	if err != nil {
		return parquet.RolloverReport{}, fmt.Errorf("collect old generations of %s: %w", st.table, err)
	}
	logger.Info("hbase generations collected", "table", st.table, "deleted", collected.Generations, "pinned", collected.Kept)
	dst, err := parquet.Open(st.snapshotDir, cfg, logger)
	if err != nil {
		return parquet.RolloverReport{}, err
	}
	defer dst.Close()
	opts.Source = st.table
	return dst.CopyFrom(ctx, src, opts)
}

// printRollover prints a report for people.
func printRollover(w io.Writer, st rolloverSettings, r parquet.RolloverReport) {
	where := st.table
	if st.snapshotDir != "" {
		where = st.table + " -> " + st.snapshotDir
	}
	fmt.Fprintf(w, "rollover of %s: snapshot %s -> %s in %.1fs\n", where, r.Before, r.After, r.Duration.Seconds())
	fmt.Fprintf(w, "  files       %d -> %d\n", r.FilesBefore, r.FilesAfter)
	fmt.Fprintf(w, "  row groups  %d -> %d\n", r.RowGroupsBefore, r.RowGroupsAfter)
	fmt.Fprintf(w, "  bytes       %s -> %s\n", mib(r.BytesBefore), mib(r.BytesAfter))
	fmt.Fprintf(w, "  records     %d; %d rewritten, %d dead rows dropped; %d datasets merged, %d segments replaced; %s of sort runs\n",
		r.Records, r.RowsRewritten, r.DeadRows, r.DatasetsMerged, r.SegmentsRewritten, mib(r.SpilledBytes))
	fmt.Fprintf(w, "  statistics  completed in %d row groups\n", r.StatsRefreshed)
	fmt.Fprintf(w, "  retired     %d snapshots %s: %d directories, %s freed\n", len(r.Retired), snapshotList(r.Retired), r.RemovedDirs, mib(r.FreedBytes))
	for _, p := range r.Pins {
		fmt.Fprintf(w, "  pinned      snapshot %d by %q (%s pid %d), expires %s\n", p.Snapshot, p.Holder, p.Host, p.PID, p.Expires.Format(time.RFC3339))
	}
}

// mib writes a byte count in MB, or kB below one MB.
func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// snapshotList writes snapshot numbers, the first and last of a long list.
func snapshotList(ns []int64) string {
	if len(ns) > 6 {
		return fmt.Sprintf("[%d %d %d ... %d]", ns[0], ns[1], ns[2], ns[len(ns)-1])
	}
	return fmt.Sprint(ns)
}
