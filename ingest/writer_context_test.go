package ingest

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// lateWriterTable hands out writers that behave as HBase's does with the
// context of Append: the records of an Append are still being sent under
// its context until Commit (HBase writes one batch while the next fills,
// and Commit waits for it). The parquet writer underneath does the
// storing; the wrapper only checks the context at Commit, a timing the
// real HBase writer meets only now and then (TestSQLOnHBase failed so
// once: "write 1000 records: context canceled").
type lateWriterTable struct{ *parquet.Store }

func (t lateWriterTable) BeginDataset(ctx context.Context, info occurrence.DatasetInfo) (occurrence.DatasetWriter, error) {
	w, err := t.Store.BeginDataset(ctx, info)
	return &lateWriter{DatasetWriter: w}, err
}

type lateWriter struct {
	occurrence.DatasetWriter
	last context.Context // of the last Append, whose records are "in flight"
}

func (w *lateWriter) Append(ctx context.Context, r *occurrence.Record) error {
	w.last = ctx
	return w.DatasetWriter.Append(ctx, r)
}

func (w *lateWriter) Commit(ctx context.Context, stats occurrence.LoadStats) (string, error) {
	if w.last != nil && w.last.Err() != nil {
		w.DatasetWriter.Abort(ctx)
		return "", errors.New("the last batch's context was cancelled before Commit: " + w.last.Err().Error())
	}
	return w.DatasetWriter.Commit(ctx, stats)
}

// A loader keeps the context it appends under alive until the writer is
// committed.
func TestAppendContextLastsUntilCommit(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	src, err := Open(ctx, filepath.Join("testdata", "dwca-io-archive-occ.zip"), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	res, err := Load(ctx, lateWriterTable{s}, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Records == 0 || count(t, s, "") != res.Records {
		t.Fatalf("loaded %d records, the table counts %d", res.Records, count(t, s, ""))
	}
}
