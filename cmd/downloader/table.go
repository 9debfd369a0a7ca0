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

// openTable opens the table a --table flag names: a directory (the embedded
// Parquet store, created if missing) or hbase://host:port/name.
func openTable(ctx context.Context, spec string, logger *slog.Logger) (occurrence.Backend, error) {
	if spec == "" {
		return nil, fmt.Errorf("no table: give --table DIR or --table hbase://host:port/name")
	}
	if strings.HasPrefix(spec, "hbase://") {
		s, err := hbase.Open(ctx, spec, logger)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	s, err := parquet.Open(spec, parquet.Config{}, logger)
	if err != nil {
		return nil, err
	}
	return s, nil
}
