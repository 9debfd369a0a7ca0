package ingest

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// datasetParts returns the catalog's description of the table's one
// dataset and the citation parts its stored EML gives.
func datasetParts(t *testing.T, s occurrence.Catalog) (occurrence.DatasetInfo, dwca.CitationParts) {
	t.Helper()
	ctx := context.Background()
	infos, err := s.Datasets(ctx)
	if err != nil || len(infos) != 1 {
		t.Fatalf("datasets %v: %v", infos, err)
	}
	r, err := s.DatasetEML(ctx, infos[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := dwca.ReadCitationParts(r)
	if err != nil {
		t.Fatal(err)
	}
	return infos[0], p
}

// olderCatalog shows the table's datasets as a catalog written before it
// kept citation parts.
type olderCatalog struct{ *parquet.Store }

func (o olderCatalog) Datasets(ctx context.Context) ([]occurrence.DatasetInfo, error) {
	infos, err := o.Store.Datasets(ctx)
	for i := range infos {
		infos[i].CitationParts = nil
	}
	return infos, err
}

// TestCitationPartsKept: an ingest keeps the citation parts of the
// dataset's EML in the catalog (downloads cite from them without reading
// the EML), and a re-interpretation fills them for a dataset ingested
// before they were kept.
func TestCitationPartsKept(t *testing.T) {
	s := openStore(t)
	if _, err := load(t, s, filepath.Join("..", "dwca", "testdata", "gbif-validator-Archive.zip"), Options{}); err != nil {
		t.Fatal(err)
	}
	info, want := datasetParts(t, s)
	if info.CitationParts == nil || !reflect.DeepEqual(*info.CitationParts, want) || !slices.Contains(want.Authors, "Sheffield C") {
		t.Fatalf("catalog's parts %+v, the EML's %+v", info.CitationParts, want)
	}

	dir := t.TempDir()
	loadBackbone(t, dir)
	taxa, err := OpenTaxa(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer taxa.Close()
	if _, err := Reinterpret(context.Background(), olderCatalog{s}, taxa); err != nil {
		t.Fatal(err)
	}
	info, want = datasetParts(t, s)
	if info.CitationParts == nil || !reflect.DeepEqual(*info.CitationParts, want) {
		t.Fatalf("after re-interpreting an older dataset: parts %+v, the EML's %+v", info.CitationParts, want)
	}
}
