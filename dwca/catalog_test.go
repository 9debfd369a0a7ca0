package dwca

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// countingCatalog knows dataset "a" and counts the lookups it serves.
type countingCatalog struct{ lookups map[string]int }

func (c *countingCatalog) Dataset(_ context.Context, key string) (occurrence.DatasetInfo, error) {
	c.lookups[key]++
	if key != "a" {
		return occurrence.DatasetInfo{}, fmt.Errorf("%w: %s", occurrence.ErrNoDataset, key)
	}
	return occurrence.DatasetInfo{Key: "a", Title: "A", License: "CC0_1_0", Citation: "cite A"}, nil
}

func (c *countingCatalog) DatasetEML(_ context.Context, key string) (io.ReadCloser, error) {
	if key != "a" {
		return nil, fmt.Errorf("%w: %s", occurrence.ErrNoDataset, key)
	}
	return io.NopCloser(strings.NewReader("<eml/>")), nil
}

// An export asks for a dataset's description several times (licence, EML
// citations, usages); the catalog is asked once per dataset, and every
// answer is the same.
func TestCatalogDatasetsLooksUpEachDatasetOnce(t *testing.T) {
	ctx := context.Background()
	c := &countingCatalog{lookups: map[string]int{}}
	src := CatalogDatasets(c)
	want := DatasetInfo{Title: "A", License: "CC0_1_0", Citation: "cite A", DatasetKey: "a"}
	for i := 0; i < 3; i++ {
		info, err := src.DatasetInfo(ctx, "a")
		if err != nil || info != want {
			t.Fatalf("lookup %d of a: %+v %v", i, info, err)
		}
		if _, err := src.DatasetInfo(ctx, "b"); !errors.Is(err, ErrNoDataset) {
			t.Fatalf("lookup %d of unknown b: %v", i, err)
		}
	}
	if c.lookups["a"] != 1 || c.lookups["b"] != 1 {
		t.Fatalf("catalog lookups %v, want one per dataset", c.lookups)
	}
	if _, err := src.DatasetEML(ctx, "b"); !errors.Is(err, ErrNoDataset) {
		t.Fatalf("EML of unknown b: %v", err)
	}
}
