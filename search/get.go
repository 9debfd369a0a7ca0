package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// IDSplitter is implemented by tables that know which split holds a
// gbifID without scanning (HBase: the row key's salt is a hash of the
// id). Other tables find a record by the gbifID column's statistics
// (Parquet row groups cover narrow id ranges: ids are minted per dataset
// in source order) and read the id column of the splits left.
type IDSplitter interface {
	IDSplit(snap occurrence.Snapshot, gbifID int64) (occurrence.Split, bool)
}

// Moved is returned for a gbifID the table replaced by another (an older
// table's id; occurrence.IDResolver): the record is served under ID.
type Moved struct{ ID int64 }

func (m *Moved) Error() string { return fmt.Sprintf("occurrence moved to %d", m.ID) }

// View is a form in which the record routes answer a record.
type View int

// The views of a record, as GBIF's record routes answer them.
const (
	// Interpreted is GBIF's occurrence JSON (/occurrence/{key}).
	Interpreted View = iota
	// Verbatim is GBIF's verbatim occurrence JSON, every verbatim term
	// keyed by its URI (/occurrence/{key}/verbatim).
	Verbatim
	// Fragment is the record as its source published it, GBIF's
	// fragment (/occurrence/{key}/fragment; appendFragment).
	Fragment
)

// render returns the columns a view reads and how it writes a row.
func (v View) render() ([]string, func([]byte, arrow.RecordBatch, int) []byte) {
	switch v {
	case Verbatim:
		return verbatimCols, appendVerbatim
	case Fragment:
		return fragmentCols, appendFragment
	}
	return recordJSON.cols, recordJSON.appendRecord
}

// Record returns the record with gbifID id in view v; an unknown id is
// ErrNotFound, a replaced one *Moved.
func (s *Service) Record(ctx context.Context, id int64, v View) (json.RawMessage, error) {
	cols, render := v.render()
	return s.lookup(ctx, id, cols, render)
}

func (s *Service) lookup(ctx context.Context, id int64, cols []string, render func([]byte, arrow.RecordBatch, int) []byte) (json.RawMessage, error) {
	snap, err := s.table.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	pred, err := occurrence.ParseQuery(map[string][]string{"gbifId": {strconv.FormatInt(id, 10)}}, s.cfg.Limits)
	if err != nil {
		return nil, fmt.Errorf("%w: gbifID %d: %w", ErrInvalidRequest, id, err)
	}
	if sp, ok := s.table.(IDSplitter); ok {
		split, ok := sp.IDSplit(snap, id)
		if !ok {
			return nil, s.notFound(ctx, id)
		}
		snap.Splits = []occurrence.Split{split}
	}
	return s.first(ctx, snap, pred, cols, render, func() error { return s.notFound(ctx, id) })
}

// first renders the first record of snap that pred matches, or returns
// notFound().
func (s *Service) first(ctx context.Context, snap occurrence.Snapshot, pred *occurrence.Predicate, cols []string,
	render func([]byte, arrow.RecordBatch, int) []byte, notFound func() error) (json.RawMessage, error) {
	release, err := s.read(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	var out json.RawMessage
	errFound := errors.New("found")
	req := occurrence.ScanRequest{Predicate: pred, Columns: cols, Limit: 1}
	_, err = occurrence.Scan(ctx, s.table, snap, req, occurrence.ScanOptions{Workers: s.cfg.Workers}, func(b arrow.RecordBatch) error {
		if b.NumRows() == 0 {
			return nil
		}
		out = render(nil, b, 0)
		return errFound
	})
	switch {
	case out != nil:
		return out, nil
	case err != nil:
		return nil, err
	}
	return nil, notFound()
}

// notFound is ErrNotFound, or *Moved when the table replaced id.
func (s *Service) notFound(ctx context.Context, id int64) error {
	if r, ok := s.table.(occurrence.IDResolver); ok {
		if to, err := r.ResolveID(ctx, id); err == nil && to != id {
			return &Moved{ID: to}
		}
	}
	return fmt.Errorf("%w: %d", ErrNotFound, id)
}

// RecordByOccurrenceID returns the record of a dataset with the given
// occurrenceID (compared exactly) in view v, as GBIF's
// /occurrence/{datasetKey}/{occurrenceId}[/verbatim|/fragment] do.
func (s *Service) RecordByOccurrenceID(ctx context.Context, datasetKey, occurrenceID string, v View) (json.RawMessage, error) {
	dk, _ := json.Marshal(datasetKey)
	oid, _ := json.Marshal(occurrenceID)
	js := `{"type":"and","predicates":[{"type":"equals","key":"DATASET_KEY","value":` + string(dk) +
		`},{"type":"equals","key":"OCCURRENCE_ID","value":` + string(oid) + `,"matchCase":true}]}`
	pred, err := occurrence.ParsePredicateJSON([]byte(js), s.cfg.Limits)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	snap, err := s.table.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	cols, render := v.render()
	return s.first(ctx, snap, pred, cols, render, func() error {
		return fmt.Errorf("%w: no occurrence %q in dataset %s", ErrNotFound, occurrenceID, datasetKey)
	})
}
