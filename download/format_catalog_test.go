package download

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
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
			if f == FormatFastaArchive {
				continue // the test records have no sequence: none is kept, no dataset looked up
			}
			var buf bytes.Buffer
			x, err := NewExport(ctx, &buf, specOf(f), ExportOptions{Catalog: c.c, TempDir: t.TempDir()})
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

// emlCounter counts the EML documents an export reads from its catalog.
type emlCounter struct {
	memCatalog
	reads *int
}

func (c emlCounter) DatasetEML(ctx context.Context, key string) (io.ReadCloser, error) {
	*c.reads++
	return c.memCatalog.DatasetEML(ctx, key)
}

// TestCitationPartsFromTheCatalog: a dataset's citation parts kept in the
// catalog at ingest cite it without its EML being read again (the DWCA
// still copies the EML); a dataset ingested before they were kept is cited
// from its EML, with the same text the catalog's parts give.
func TestCitationPartsFromTheCatalog(t *testing.T) {
	const eml = `<eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" packageId="%s/v3.1"><dataset><title>Dataset %d</title>` +
		`<creator><individualName><givenName>Jane</givenName><surName>Doe</surName></individualName></creator>` +
		`<pubDate>2019-05-01</pubDate></dataset></eml:eml>`
	older := testSource()
	withParts := testSource()
	stale := testSource() // the catalog's parts, not the EML's, are what a download cites
	for i, d := range testDatasets[:3] {
		e := older[d.key]
		e.eml = fmt.Sprintf(eml, d.key, i)
		older[d.key] = e
		p := occurrence.CitationParts{Authors: []string{"Doe J"}, Year: "2019", Version: "3.1"}
		e.info.CitationParts = &p
		withParts[d.key] = e
		s := e
		sp := p
		sp.Year = "1999"
		s.info.CitationParts = &sp
		stale[d.key] = s
	}
	key := testDatasets[0].key
	for _, f := range []Format{FormatSimpleCSV, FormatDWCA} {
		cite := map[string]string{}
		for _, c := range []struct {
			name      string
			cat       memCatalog
			wantReads int
		}{
			{"older", older, 3},
			{"kept", withParts, 0},
			{"kept, differing", stale, 0},
		} {
			reads := 0
			want := c.wantReads
			if f == FormatDWCA {
				want = 3 // the dataset/ folder's copies
			}
			_, res := export(t, specOf(f), emlCounter{c.cat, &reads})
			if reads != want {
				t.Errorf("%s, %s: %d EML reads, want %d", f, c.name, reads, want)
			}
			cite[c.name] = res.Citations[key]
		}
		if !strings.HasPrefix(cite["older"], "Doe J (2019). Dataset 0 & <friends>. Version 3.1.") || cite["kept"] != cite["older"] {
			t.Errorf("%s: cited from the EML %q, from the catalog %q", f, cite["older"], cite["kept"])
		}
		if !strings.HasPrefix(cite["kept, differing"], "Doe J (1999).") {
			t.Errorf("%s: the catalog's parts were not used: %q", f, cite["kept, differing"])
		}
	}
}
