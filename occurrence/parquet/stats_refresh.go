package parquet

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Statistics refresh. A row group's statistics are written with it; a row
// group written before a column joined the schema (or by a writer that
// kept fewer) has none for that column, and no predicate on it prunes
// there. Rollover reads the missing columns of such row groups that it
// does not rewrite and completes their statistics in the new manifest
// (the files stay as they are).

// statsKey locates a row group in a manifest: by dataset (and its version)
// or by segment, then file and row group.
type statsKey struct {
	dataset, segment string
	path             string
	rowGroup         int
}

// find returns the row group k names in m when its owner is still the
// version snapshot m0 had, else nil.
func (k statsKey) find(m0, m *manifest) *rowGroupEntry {
	var files []fileEntry
	if k.dataset != "" {
		e := m.Datasets[k.dataset]
		if !sameVersion(m0.Datasets[k.dataset], e) {
			return nil
		}
		files = e.Files
	} else if seg := m.segment(k.segment); seg != nil {
		files = seg.Files
	}
	for i := range files {
		if files[i].Path == k.path && k.rowGroup < len(files[i].RowGroups) {
			return &files[i].RowGroups[k.rowGroup]
		}
	}
	return nil
}

// statsColumns are the columns whose statistics the manifest keeps.
var statsColumns = func() []string {
	var out []string
	for _, c := range occurrence.Columns() {
		if statsColumn(c) {
			out = append(out, c.Name)
		}
	}
	return out
}()

// missing returns the columns of names the row group has no statistics for.
func (s *splitStats) missing(names []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, n := range names {
		if _, ok := s.entry(n); !ok {
			out = append(out, n)
		}
	}
	return out
}

// refreshStats computes the statistics the row groups of snap that the
// plan does not rewrite lack, by row group.
func (s *Store) refreshStats(ctx context.Context, m0 *manifest, snap occurrence.Snapshot, plan rolloverPlan) (map[statsKey][]byte, error) {
	rewritten := map[string]bool{}
	for _, k := range plan.datasets {
		rewritten[k] = true
	}
	out := map[statsKey][]byte{}
	for _, sp := range snap.Splits {
		ref := sp.Ref.(splitRef)
		seg := segmentOf(ref.path)
		if rewritten[ref.dataset] || plan.segments[seg] || ref.live != nil {
			continue
		}
		st, ok := sp.Stats.(*splitStats)
		if !ok {
			continue
		}
		missing := st.missing(statsColumns)
		if len(missing) == 0 {
			continue
		}
		data, err := s.rowGroupStats(ctx, sp, st.raw, missing)
		if err != nil {
			return nil, fmt.Errorf("rollover: statistics of %s row group %d: %w", ref.path, ref.rowGroup, err)
		}
		out[statsKey{dataset: ref.dataset, segment: seg, path: ref.path, rowGroup: ref.rowGroup}] = data
	}
	return out, nil
}

// rowGroupStats reads the columns missing of one row group and returns its
// statistics object with theirs added to those it had (raw).
func (s *Store) rowGroupStats(ctx context.Context, sp occurrence.Split, raw []byte, missing []string) ([]byte, error) {
	parts := make([][]arrow.Array, len(missing))
	defer func() {
		for _, ps := range parts {
			for _, a := range ps {
				a.Release()
			}
		}
	}()
	_, err := s.ScanSplit(ctx, sp, occurrence.ScanRequest{Columns: missing}, func(b arrow.RecordBatch) error {
		for i := range missing {
			a := b.Column(i)
			a.Retain()
			parts[i] = append(parts[i], a)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	stats := map[string]json.RawMessage{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &stats); err != nil {
			return nil, err
		}
	}
	for i, name := range missing {
		var a arrow.Array
		if len(parts[i]) == 0 {
			c, _, _ := occurrence.ColumnByName(name)
			a = array.MakeArrayOfNull(memory.DefaultAllocator, c.Kind.ArrowType(), 0)
		} else {
			var err error
			if a, err = array.Concatenate(parts[i], memory.DefaultAllocator); err != nil {
				return nil, err
			}
		}
		addColumnStats(stats, name, a)
		a.Release()
	}
	return json.Marshal(stats)
}
