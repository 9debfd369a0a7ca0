// Command hbasebench loads generated occurrence records into an HBase table
// through the occurrence/hbase backend and times its parallel scans, with and
// without predicate pushdown. bench/hbase/run.sh runs it side by side with
// the Java peer (ScanBench.java).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

func main() {
	master := flag.String("master", os.Getenv("HBASE_MASTER"), "HBase master host:port")
	table := flag.String("table", "occ_bench", "HBase table")
	records := flag.Int("records", 500000, "records to load with -load")
	load := flag.Bool("load", false, "load the table (when it holds no records)")
	buckets := flag.Int("buckets", 8, "salt buckets of a new table")
	workers := flag.Int("workers", 2*runtime.GOMAXPROCS(0), "splits scanned in parallel")
	caching := flag.Int("caching", 0, "rows per scan call (0: the backend's default)")
	repeat := flag.Int("repeat", 3, "runs of each scan; the fastest is reported")
	serverPid := flag.Int("server-pid", 0, "pid of the HBase JVM, to report its CPU time per scan")
	only := flag.String("only", "", "run one scan: full, ids, nopush, push, nopush2 or push2 (none: only load)")
	query := flag.String("predicate", `{"type":"equals","key":"COUNTRY","value":"CA"}`, "predicate of the filtered scans")
	query2 := flag.String("predicate2", `{"type":"in","key":"BASIS_OF_RECORD","values":["OCCURRENCE","MATERIAL_SAMPLE"]}`,
		"a predicate on other columns than the country (answered by the filter header alone)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the scans to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "hbasebench:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	err := run(*master, *table, *records, *load, *buckets, *workers, *query, *only, *repeat, *serverPid, *caching, *query2)
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "hbasebench:", err)
		os.Exit(1)
	}
}

func run(master, table string, records int, load bool, buckets, workers int, query, only string, repeat, serverPid, caching int, query2 string) error {
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := hbase.Config{Master: master, Table: table, Buckets: buckets}
	s, err := hbase.OpenConfig(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer s.Close()
	if load {
		snap, err := s.Snapshot(ctx)
		if err != nil {
			return err
		}
		if len(snap.Splits) > 0 && snap.Splits[0].Rows == 0 {
			if err := loadTable(ctx, s, records); err != nil {
				return err
			}
		}
	}
	pred, err := occurrence.ParsePredicateJSON([]byte(query), occurrence.DefaultLimits())
	if err != nil {
		return err
	}
	pred2, err := occurrence.ParsePredicateJSON([]byte(query2), occurrence.DefaultLimits())
	if err != nil {
		return err
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return err
	}
	var total int64
	for _, sp := range snap.Splits {
		total += sp.Rows
	}
	fmt.Printf("go table=%s rows=%d splits=%d workers=%d\n", table, total, len(snap.Splits), workers)
	scan := func(name string, req occurrence.ScanRequest, noPush bool) error {
		s2, err := hbase.OpenConfig(ctx, hbase.Config{Master: master, Table: table, NoPushdown: noPush, Caching: caching}, logger)
		if err != nil {
			return err
		}
		defer s2.Close()
		best, bestCPU, bestClient := 0.0, 0.0, 0.0
		var n int64
		var bytesRead int64
		for i := 0; i < max(repeat, 1); i++ {
			cpu0, client0 := procCPU(serverPid), procCPU(os.Getpid())
			start := time.Now()
			n = 0
			st, err := occurrence.Scan(ctx, s2, snap, req, occurrence.ScanOptions{Workers: workers}, func(b arrow.RecordBatch) error {
				n += b.NumRows()
				return nil
			})
			if err != nil {
				return err
			}
			secs := time.Since(start).Seconds()
			if best == 0 || secs < best {
				best, bestCPU, bestClient = secs, procCPU(serverPid)-cpu0, procCPU(os.Getpid())-client0
			}
			bytesRead = st.BytesRead
		}
		fmt.Printf("go %-20s matched=%d best-of-%d seconds=%.2f table-rows/s=%.0f server-cpu=%.2fs client-cpu=%.2fs bytes=%d\n",
			name, n, max(repeat, 1), best, float64(total)/best, bestCPU, bestClient, bytesRead)
		return nil
	}
	runs := []struct {
		key, name string
		req       occurrence.ScanRequest
		noPush    bool
	}{
		{"full", "full-all-columns", occurrence.ScanRequest{}, false},
		{"ids", "full-gbifID", occurrence.ScanRequest{Columns: []string{occurrence.ColGBIFID}}, false},
		{"nopush", "filter-no-pushdown", occurrence.ScanRequest{Predicate: pred}, true},
		{"push", "filter-pushdown", occurrence.ScanRequest{Predicate: pred}, false},
		{"nopush2", "filter2-no-pushdown", occurrence.ScanRequest{Predicate: pred2}, true},
		{"push2", "filter2-pushdown", occurrence.ScanRequest{Predicate: pred2}, false},
	}
	for _, r := range runs {
		if only != "" && only != r.key {
			continue
		}
		if err := scan(r.name, r.req, r.noPush); err != nil {
			return err
		}
	}
	return nil
}

// procCPU returns the user+system CPU seconds of process pid (0 if unknown).
func procCPU(pid int) float64 {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the ")" closing the command name; utime and stime are
	// fields 14 and 15 of the whole line.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (u + st) / 100 // USER_HZ
}

func loadTable(ctx context.Context, s *hbase.Store, records int) error {
	g := occurrencetest.NewGenerator(1, 5000)
	plan := g.Datasets(records, 40)
	rec := occurrence.NewRecord()
	start := time.Now()
	for i := range plan {
		w, err := s.BeginDataset(ctx, plan[i].Info)
		if err != nil {
			return err
		}
		for j := 0; j < plan[i].Records; j++ {
			g.Fill(rec, &plan[i], j)
			if err := w.Append(ctx, rec); err != nil {
				w.Abort(ctx)
				return err
			}
		}
		if _, err := w.Commit(ctx, occurrence.LoadStats{}); err != nil {
			return err
		}
	}
	// Scans read HFiles, as they do on a table that is not freshly written.
	if err := s.Client().FlushTable(ctx, s.Table()); err != nil {
		return err
	}
	fmt.Printf("go load records=%d seconds=%.1f\n", records, time.Since(start).Seconds())
	return nil
}
