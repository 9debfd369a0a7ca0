package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// ReinterpretTable is what re-interpretation needs of a table: its
// snapshots pinned while they are read, its datasets, and writers for
// their new versions.
type ReinterpretTable interface {
	occurrence.Table
	occurrence.Catalog
	occurrence.Pinner
	BeginDataset(ctx context.Context, info occurrence.DatasetInfo) (occurrence.DatasetWriter, error)
}

// datasetsCommitter publishes several datasets in one snapshot (the
// embedded table's CommitDatasets).
type datasetsCommitter interface {
	CommitDatasets(ctx context.Context, ws []occurrence.DatasetWriter, stats []occurrence.LoadStats) (string, error)
}

// preparer writes out what a dataset writer buffers before the
// publication (the embedded table's DatasetWriter.Prepare): one dataset's
// records in memory at a time, not the whole table's.
type preparer interface {
	Prepare(ctx context.Context, stats occurrence.LoadStats) error
}

// ReinterpretResult reports a re-interpretation.
type ReinterpretResult struct {
	Datasets int
	Records  int64
	// Snapshot is the snapshot that holds the re-interpreted records (the
	// last one when datasets were published one by one).
	Snapshot string
	// Atomic says the whole table was published in one snapshot; false
	// for a table that publishes dataset by dataset (HBase).
	Atomic bool
	// Issues counts the re-interpreted records per issue.
	Issues  map[string]int64
	Elapsed time.Duration
}

// Reinterpret matches every record of the table again against taxa (a
// checklist loaded or replaced) from the verbatim values it keeps, and
// publishes the new versions of all datasets in one snapshot where the
// table can (the embedded table): a download running on the old snapshot
// keeps it (its pin), later ones see only the new keys. It reads a pinned
// snapshot; a dataset loaded again meanwhile fails the publication
// (nothing changes; run it again). Only the taxon columns, the taxon
// issues and lastInterpreted change; records keep their gbifIDs.
func Reinterpret(ctx context.Context, table ReinterpretTable, taxa *Taxa) (ReinterpretResult, error) {
	start := time.Now()
	res := ReinterpretResult{Issues: map[string]int64{}}
	snap, release, err := occurrence.PinSnapshot(ctx, table, "taxonomy-reinterpret", 10*time.Minute, nil)
	if err != nil {
		return res, err
	}
	defer release()
	infos, err := table.Datasets(ctx)
	if err != nil {
		return res, err
	}
	committer, atomic := table.(datasetsCommitter)
	res.Atomic = atomic
	var writers []occurrence.DatasetWriter
	var stats []occurrence.LoadStats
	defer func() {
		for _, w := range writers {
			w.Abort(ctx) // after a commit: a no-op
		}
	}()
	now := time.Now()
	for _, info := range infos {
		w, err := reinterpretDataset(ctx, table, snap, info, taxa, now, &res)
		if err != nil {
			return res, err
		}
		st := occurrence.LoadStats{BrokenRows: info.BrokenRows, Terms: info.Terms}
		if !atomic {
			if err := taxa.Sync(); err != nil {
				w.Abort(ctx)
				return res, err
			}
			if res.Snapshot, err = w.Commit(ctx, st); err != nil {
				return res, fmt.Errorf("reinterpret dataset %s: %w", info.Key, err)
			}
			res.Datasets++
			continue
		}
		writers, stats = append(writers, w), append(stats, st)
		if p, ok := w.(preparer); ok {
			if err := p.Prepare(ctx, st); err != nil {
				return res, fmt.Errorf("reinterpret dataset %s: %w", info.Key, err)
			}
		}
	}
	if atomic && len(writers) > 0 {
		if err := taxa.Sync(); err != nil {
			return res, err
		}
		if res.Snapshot, err = committer.CommitDatasets(ctx, writers, stats); err != nil {
			return res, fmt.Errorf("reinterpret: %w", err)
		}
		res.Datasets = len(writers)
	}
	writers = nil
	res.Elapsed = time.Since(start)
	return res, nil
}

// reinterpretDataset writes the re-interpreted records of one dataset of
// snap into a new (unpublished) version.
func reinterpretDataset(ctx context.Context, table ReinterpretTable, snap occurrence.Snapshot, info occurrence.DatasetInfo,
	taxa *Taxa, now time.Time, res *ReinterpretResult) (occurrence.DatasetWriter, error) {
	// A predicate on the dataset key lets the table prune; a key that is
	// no UUID (the predicate language's form) is filtered here instead.
	pred, perr := occurrence.ParsePredicateJSON(fmt.Appendf(nil, `{"type":"equals","key":"DATASET_KEY","value":%q}`, info.Key),
		occurrence.DefaultLimits())
	if perr != nil {
		pred = nil
	}
	iDataset := occurrence.ColumnIndex(occurrence.ColDatasetKey)
	var eml []byte
	if info.HasEML {
		var err error
		if eml, err = datasetEML(ctx, table, info.Key); err != nil {
			return nil, err
		}
		if info.CitationParts == nil { // a dataset ingested before they were kept
			info.CitationParts = citationParts(eml)
		}
	}
	w, err := table.BeginDataset(ctx, info)
	if err != nil {
		return nil, err
	}
	if err := keepEML(ctx, w, eml); err != nil {
		w.Abort(ctx)
		return nil, err
	}
	rec := occurrence.NewRecord()
	iLast := occurrence.ColumnIndex(occurrence.ColLastInterpreted)
	iVerbatim := occurrence.ColumnIndex(occurrence.ColVerbatim)
	var mu sync.Mutex // emit may run on several goroutines
	var n int64
	verbatim := map[string]string{} // reused: cleared per record
	_, err = occurrence.Scan(ctx, table, snap, occurrence.ScanRequest{Predicate: pred}, occurrence.ScanOptions{},
		func(b arrow.RecordBatch) error {
			mu.Lock()
			defer mu.Unlock()
			for i := 0; i < int(b.NumRows()); i++ {
				if err := rec.ReadRow(b, i); err != nil {
					return err
				}
				if pred == nil && rec.Get(iDataset).S != info.Key {
					continue
				}
				clear(verbatim)
				if v := rec.Get(iVerbatim); v.Valid {
					if err := json.Unmarshal([]byte(v.S), &verbatim); err != nil {
						return fmt.Errorf("dataset %s: a record's verbatim column: %w", info.Key, err)
					}
				}
				dropTaxonIssues(rec)
				if err := taxa.InterpretVerbatim(ctx, verbatim, rec); err != nil {
					return err
				}
				rec.SetTime(iLast, now)
				countIssues(rec, res.Issues)
				if err := w.Append(ctx, rec); err != nil {
					return err
				}
				n++
			}
			return nil
		})
	if err == nil && n != info.Records {
		err = fmt.Errorf("dataset %s: read %d records of the snapshot, the catalog says %d: %w", info.Key, n, info.Records, errChangedMeanwhile)
	}
	if err != nil {
		w.Abort(ctx)
		return nil, fmt.Errorf("reinterpret dataset %s: %w", info.Key, err)
	}
	res.Records += n
	return w, nil
}

// errChangedMeanwhile: the catalog and the pinned snapshot disagree (an
// ingest between the two reads); running again succeeds.
var errChangedMeanwhile = errors.New("the table changed meanwhile; run again")

// datasetEML reads a dataset's EML document from the catalog (nil when
// it has none).
func datasetEML(ctx context.Context, table occurrence.Catalog, key string) ([]byte, error) {
	r, err := table.DatasetEML(ctx, key)
	if errors.Is(err, occurrence.ErrNoEML) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(zipsafe.Cap(r, occurrence.MaxEMLBytes, "EML of dataset "+key, "EML document"))
}
