package dwca

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Catalog is what an occurrence table knows of its datasets (both stores
// implement it): their descriptions and the EML documents they came with.
type Catalog interface {
	Dataset(ctx context.Context, key string) (occurrence.DatasetInfo, error)
	DatasetEML(ctx context.Context, key string) (io.ReadCloser, error)
}

// CatalogDatasets adapts a table's Catalog to the DatasetSource of one
// export. An export asks for a dataset's description several times (the
// licence, the EML's citations, the dataset usages) and a lookup may be a
// round trip to the table (HBase): each dataset is looked up once.
func CatalogDatasets(c Catalog) DatasetSource {
	return &catalogDatasets{c: c, infos: map[string]datasetLookup{}}
}

type catalogDatasets struct {
	c     Catalog
	mu    sync.Mutex
	infos map[string]datasetLookup
}

type datasetLookup struct {
	info DatasetInfo
	err  error
}

func (s *catalogDatasets) DatasetInfo(ctx context.Context, key string) (DatasetInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.infos[key]; ok {
		return l.info, l.err
	}
	var l datasetLookup
	if d, err := s.c.Dataset(ctx, key); err != nil {
		l.err = fmt.Errorf("%w: %w", ErrNoDataset, err)
	} else {
		l.info = DatasetInfo{Title: d.Title, License: d.License, Citation: d.Citation, DatasetKey: d.Key}
	}
	s.infos[key] = l
	return l.info, l.err
}

func (s *catalogDatasets) DatasetEML(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := s.c.DatasetEML(ctx, key)
	if errors.Is(err, occurrence.ErrNoDataset) {
		return nil, fmt.Errorf("%w: %w", ErrNoDataset, err)
	}
	if err != nil {
		return nil, err // an I/O failure fails the download, it is not a missing EML
	}
	return r, nil
}
