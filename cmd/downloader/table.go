package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// openTable opens the existing table a --table flag names: a directory
// (the embedded Parquet store) or hbase://host:port/name. A table that does
// not exist is an error naming it (occurrence.ErrNoTable): only ingest
// creates tables (createTable), so that a mistyped path is not answered
// with an empty table.
func openTable(ctx context.Context, spec string, logger *slog.Logger) (occurrence.Backend, error) {
	return openSpec(ctx, spec, logger, false)
}

// createTable opens the table a --table flag names, creating it if needed.
func createTable(ctx context.Context, spec string, logger *slog.Logger) (occurrence.Backend, error) {
	return openSpec(ctx, spec, logger, true)
}

func openSpec(ctx context.Context, spec string, logger *slog.Logger, create bool) (occurrence.Backend, error) {
	if spec == "" {
		return nil, fmt.Errorf("no table: give --table DIR or --table hbase://host:port/name")
	}
	if strings.HasPrefix(spec, "hbase://") {
		open := hbase.OpenExisting
		if create {
			open = hbase.Open
		}
		s, err := open(ctx, spec, logger)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	open := parquet.OpenExisting
	if create {
		open = parquet.Open
	}
	s, err := open(spec, parquet.Config{}, logger)
	if err != nil {
		return nil, err
	}
	return s, nil
}
