// Command gen writes a generated occurrence table of realistic records for
// benchmarks: skewed country, year and taxon distributions, ~15% of records
// without coordinates, long text fields, datasets of Zipf-distributed sizes.
//
//	go run ./bench/gen -table DIR -records 1000000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

func main() {
	dir := flag.String("table", "", "table directory to create")
	records := flag.Int("records", 1_000_000, "number of records")
	datasets := flag.Int("datasets", 200, "number of datasets")
	species := flag.Int("species", 50_000, "species in the generated backbone")
	seed := flag.Uint64("seed", 1, "random seed")
	workers := flag.Int("workers", 2, "datasets written in parallel")
	pageBytes := flag.Int("page-bytes", 0, "Parquet data page size (0: the store's default)")
	dna := flag.Float64("dna", 0, "share of records with DNA-derived data rows (eDNA reads; 0: none, isSequenced left empty)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "gen: -table is required")
		os.Exit(2)
	}
	if err := run(*dir, *records, *datasets, *species, *seed, *workers, *pageBytes, *dna); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir string, records, datasets, species int, seed uint64, workers, pageBytes int, dna float64) error {
	ctx := context.Background()
	s, err := parquet.Open(dir, parquet.Config{DataPageBytes: pageBytes}, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	start := time.Now()
	plan := occurrencetest.NewGenerator(seed, species).Datasets(records, datasets)
	jobs := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each worker has its own generator (same backbone); each dataset
			// its own random stream, so the table does not depend on which
			// worker wrote which dataset.
			g := occurrencetest.NewGenerator(seed, species)
			rec := occurrence.NewRecord()
			for i := range jobs {
				g.Reseed(seed + uint64(i) + 1)
				if err := writeDataset(ctx, s, g, &plan[i], rec, dna); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range plan {
		select {
		case jobs <- i:
		case err := <-errs:
			close(jobs)
			wg.Wait()
			return err
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	d := time.Since(start)
	fmt.Printf("gen: %d records in %d datasets, %.1fs (%.0f records/s)\n", records, datasets, d.Seconds(), float64(records)/d.Seconds())
	return nil
}

func writeDataset(ctx context.Context, s *parquet.Store, g *occurrencetest.Generator, ds *occurrencetest.Dataset, rec *occurrence.Record, dna float64) error {
	w, err := s.BeginDataset(ctx, ds.Info)
	if err != nil {
		return err
	}
	for j := 0; j < ds.Records; j++ {
		g.Fill(rec, ds, j)
		if dna > 0 {
			addDNA(rec, ds.Info.Key, j, dna)
		}
		if err := w.Append(ctx, rec); err != nil {
			w.Abort(ctx)
			return err
		}
	}
	_, err = w.Commit(ctx, occurrence.LoadStats{Terms: occurrencetest.Terms()})
	return err
}
