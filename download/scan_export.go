package download

import (
	"bytes"
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// ScanProgress is how far WriteScan has come.
type ScanProgress struct {
	Scan    occurrence.ScanStats // totals of the splits finished so far
	Written int64                // records written to the archive
	Bytes   int64                // archive bytes written so far
}

// WriteScan is the rest of a download once NewExport has opened it: it
// scans snap of t with the spec's predicate into the archive, reading only
// the columns the format needs, then closes the archive. progress, when
// set, is called on the calling goroutine after each finished split and each
// written batch. On a scan error the archive is abandoned (Abort).
func (x *Export) WriteScan(ctx context.Context, t occurrence.Table, snap occurrence.Snapshot, opts occurrence.ScanOptions,
	progress func(ScanProgress)) (ExportResult, occurrence.ScanStats, error) {
	var p ScanProgress
	report := func() {
		if progress != nil {
			progress(p)
		}
	}
	opts.Progress = func(s occurrence.ScanStats) {
		p.Scan = s
		report()
	}
	req := occurrence.ScanRequest{Predicate: x.scanPredicate(), Columns: x.Columns(), Dictionaries: x.acceptsDictionaries(),
		Transient: x.transientColumns()}
	st, err := occurrence.Scan(ctx, t, snap, req, opts,
		func(b arrow.RecordBatch) error {
			if err := x.Write(ctx, b); err != nil {
				return err
			}
			p.Written += b.NumRows()
			p.Bytes = x.Written()
			report()
			return nil
		})
	if err != nil {
		x.Abort()
		return ExportResult{}, st, err
	}
	res, err := x.Close(ctx)
	return res, st, err
}

// acceptsDictionaries reports whether the export's format takes string
// columns dictionary-encoded as well as plain (FormatInfo.Dictionaries).
func (x *Export) acceptsDictionaries() bool { return x.format.Dictionaries }

// transientColumns returns the columns whose strings the export reads
// only while Write runs (occurrence.ScanRequest.Transient): a scan may
// reuse their memory once the batch is released.
func (x *Export) transientColumns() []string {
	if t, ok := x.fw.(interface{ transient() []string }); ok {
		return t.transient()
	}
	return nil
}

// scanPredicate is the predicate the scan runs: the spec's, narrowed by
// the format (FormatInfo.narrowing).
func (x *Export) scanPredicate() *occurrence.Predicate {
	n, p := x.format.narrowing, x.spec.Predicate
	switch {
	case n == nil:
		return p
	case p == nil:
		return n
	}
	return &occurrence.Predicate{Type: occurrence.TypeAnd, Predicates: []*occurrence.Predicate{p, n}}
}

// NarrowPredicateJSON returns a request's predicate (JSON; empty or null
// for all records) as the export of format f scans it, so that a count
// before the download counts the records the format can hold.
func NarrowPredicateJSON(f Format, pred []byte) ([]byte, error) {
	info, err := f.Info()
	if err != nil || info.narrowing == nil {
		return pred, err
	}
	nj, err := info.narrowing.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if p := bytes.TrimSpace(pred); len(p) == 0 || string(p) == "null" {
		return nj, nil
	}
	return []byte(`{"type":"and","predicates":[` + string(pred) + `,` + string(nj) + `]}`), nil
}
