package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase"
	"github.com/biodiversity-downloads/downloader/occurrence/ingest"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// table is what the commands need of an occurrence table backend.
type table interface {
	occurrence.Table
	dwca.Catalog // dataset descriptions and EML (export)
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
	w, err := t.BeginDataset(ctx, info)
	if err != nil {
		return nil, err // not a nil *DatasetWriter inside the interface
	}
	return w, nil
}

type hbaseTable struct{ *hbase.Store }

func (t hbaseTable) Begin(ctx context.Context, info occurrence.DatasetInfo) (ingest.Writer, error) {
	w, err := t.BeginDataset(ctx, info)
	if err != nil {
		return nil, err // not a nil *DatasetWriter inside the interface
	}
	return w, nil
}

func openHBaseTable(ctx context.Context, spec string, logger *slog.Logger) (table, error) {
	s, err := hbase.Open(ctx, spec, logger)
	if err != nil {
		return nil, err
	}
	return hbaseTable{s}, nil
}
