package download

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// failingCatalog is testSource whose lookups of one dataset fail with err
// (an HBase timeout, a dataset the table lost), for its description or,
// with eml set, for its EML document only.
type failingCatalog struct {
	memCatalog
	key string
	err error
	eml bool
}

func (c failingCatalog) Dataset(ctx context.Context, key string) (occurrence.DatasetInfo, error) {
	if key == c.key && !c.eml {
		return occurrence.DatasetInfo{}, c.err
	}
	return c.memCatalog.Dataset(ctx, key)
}

func (c failingCatalog) DatasetEML(ctx context.Context, key string) (io.ReadCloser, error) {
	if key == c.key && c.eml {
		return nil, c.err
	}
	return c.memCatalog.DatasetEML(ctx, key)
}

// A catalog lookup that fails fails the download: no format may ship an
// archive whose citation or licence was made without the dataset's
// description ("Dataset <key>" in citations.txt, the records' own licence),
// nor a DWCA without an EML document the catalog holds.
func TestExportFailsWhenCatalogLookupFails(t *testing.T) {
	key := testDatasets[1].key
	ioErr := errors.New("hbase: call timed out")
	cases := []struct {
		name string
		c    failingCatalog
		want error
	}{
		{"io-error", failingCatalog{memCatalog: testSource(), key: key, err: ioErr}, ioErr},
		{"dataset-lost", failingCatalog{memCatalog: testSource(), key: key, err: fmt.Errorf("%w: %s", occurrence.ErrNoDataset, key)}, occurrence.ErrNoDataset},
		{"eml-io-error", failingCatalog{memCatalog: testSource(), key: key, err: ioErr, eml: true}, ioErr},
	}
	recs := testRecords(t, 4)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	ctx := context.Background()
	for _, c := range cases {
		for _, info := range Formats() {
			f := info.Name
			if c.c.eml && f != FormatDWCA {
				continue // only DWCA carries the datasets' EML
			}
			var buf bytes.Buffer
			x, err := NewExport(ctx, &buf, ExportSpec{Format: f}, ExportOptions{Catalog: c.c, TempDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				if err := x.Write(ctx, r); err != nil {
					t.Fatal(err)
				}
			}
			res, err := x.Close(ctx)
			if !errors.Is(err, c.want) {
				t.Errorf("%s %s: Close = %+v, %v; want the lookup failure %v", c.name, f, res, err, c.want)
			}
		}
	}
	// The same export with the catalog answering succeeds (the test above
	// fails for the lookups, not for the records).
	if _, res := export(t, ExportSpec{Format: FormatDWCA}, testSource()); res.Records != int64(testRecordCount()) {
		t.Fatalf("export with a working catalog wrote %d records", res.Records)
	}
}
