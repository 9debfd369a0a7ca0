// Command exportgen fills an embedded occurrence table with generated
// records (occurrencetest.Generator: skewed countries, years and taxa, ~15%
// without coordinates) for the export benchmark. bench/export.sh uses
// `downloader gen` when the binary has it and this otherwise.
//
//	go run ./bench/exportgen -table DIR -records 1000000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

func main() {
	dir := flag.String("table", "", "table directory (created)")
	records := flag.Int("records", 1_000_000, "records to generate")
	datasets := flag.Int("datasets", 200, "datasets to spread them over")
	flag.Parse()
	if err := run(context.Background(), *dir, *records, *datasets); err != nil {
		fmt.Fprintln(os.Stderr, "exportgen:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir string, records, datasets int) error {
	if dir == "" {
		return fmt.Errorf("give -table DIR")
	}
	s, err := parquet.Open(dir, parquet.Config{}, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	g := occurrencetest.NewGenerator(42, 20000)
	rec := occurrence.NewRecord()
	for _, ds := range g.Datasets(records, datasets) {
		w, err := s.BeginDataset(ctx, ds.Info)
		if err != nil {
			return err
		}
		for i := range ds.Records {
			g.Fill(rec, &ds, i)
			if err := w.Append(rec); err != nil {
				w.Abort()
				return err
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			return err
		}
	}
	return nil
}
