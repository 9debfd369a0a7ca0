package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/ingest"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// table is what the commands need of an occurrence table backend.
type table interface {
	occurrence.Table
	Datasets(ctx context.Context) ([]occurrence.DatasetInfo, error)
	DatasetEML(ctx context.Context, key string) (io.ReadCloser, error)
	// Begin starts replacing one dataset (ingest).
	Begin(ctx context.Context, info occurrence.DatasetInfo) (ingest.Writer, error)
	Close() error
}

// openTable opens the table a --table flag names: a directory (the embedded
// Parquet store, created if missing) or hbase://host:port/name.
func openTable(ctx context.Context, spec string, logger *slog.Logger) (table, error) {
	if spec == "" {
		return nil, fmt.Errorf("no table: give --table DIR or --table hbase://host:port/name")
	}
	if strings.HasPrefix(spec, "hbase://") {
		return openHBaseTable(ctx, spec, logger)
	}
	s, err := parquet.Open(spec, parquet.Config{}, logger)
	if err != nil {
		return nil, err
	}
	return parquetTable{s}, nil
}

type parquetTable struct{ *parquet.Store }

func (t parquetTable) Begin(ctx context.Context, info occurrence.DatasetInfo) (ingest.Writer, error) {
	return t.BeginDataset(ctx, info)
}

// openHBaseTable is replaced when the HBase backend is wired in.
var openHBaseTable = func(ctx context.Context, spec string, logger *slog.Logger) (table, error) {
	return nil, fmt.Errorf("table %s: the HBase backend is not built into this binary", spec)
}
