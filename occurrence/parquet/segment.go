package parquet

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Segments. An ingest gives each dataset its own partition, so a table of
// many small datasets is many small files and row groups: every process
// parses a footer per file, and every scan pays per row group. Rollover
// (rollover.go) merges the rows of small datasets into segments:
//
//	data/.segments/<generation>/part-NNNNN.parquet   rows of many datasets, clustered
//	data/.segments/<generation>/eml/NNNNNN.xml       the EML of its i-th dataset
//
// (".segments" is no dataset's directory: safeName never starts a name
// with a dot). The manifest lists each segment with the keys of the
// datasets it holds, and each of its row groups with the rows of each of
// those datasets; a dataset entry whose rows live in a segment names it
// (datasetEntry.Segment) and has no files of its own.
//
// A segment is immutable like a generation. Loading a dataset again or
// deleting it changes only its manifest entry: its rows in the segment
// become dead. A snapshot's split of a segment row group counts only its
// live rows, a row group with none is left out, and a scan of one with
// dead rows filters on the datasetKey column (the set of live keys rides
// in the split's reference). The next rollover rewrites the segment
// without them.
const (
	segmentsDir = ".segments"
	segEMLDir   = "eml"
)

// segmentEntry is one segment in the manifest.
type segmentEntry struct {
	Generation string `json:"generation"`
	// Datasets are the keys of the datasets whose rows it holds, sorted;
	// row groups refer to them by index.
	Datasets []string    `json:"datasets"`
	Files    []fileEntry `json:"files"`
}

func segmentDir(gen string) string { return filepath.Join(dataDir, segmentsDir, gen) }

// segmentEML is the EML document of the segment's i-th dataset.
func segmentEML(gen string, i int) string {
	return filepath.Join(segmentDir(gen), segEMLDir, fmt.Sprintf("%06d.xml", i))
}

// index returns the position of dataset key in the segment, or -1.
func (seg *segmentEntry) index(key string) int {
	i := sort.SearchStrings(seg.Datasets, key)
	if i < len(seg.Datasets) && seg.Datasets[i] == key {
		return i
	}
	return -1
}

// segment returns the segment named gen, or nil.
func (m *manifest) segment(gen string) *segmentEntry {
	for _, seg := range m.Segments {
		if seg.Generation == gen {
			return seg
		}
	}
	return nil
}

// datasetRows decodes a segment row group's rows per dataset index.
func (g *rowGroupEntry) datasetRows(datasets int) ([][2]int64, error) {
	var out [][2]int64
	if len(g.Datasets) == 0 || string(g.Datasets) == "null" {
		return nil, nil
	}
	if err := json.Unmarshal(g.Datasets, &out); err != nil {
		return nil, fmt.Errorf("%w: row group datasets: %v", ErrCorruptManifest, err)
	}
	for _, p := range out {
		if p[0] < 0 || p[0] >= int64(datasets) || p[1] < 0 {
			return nil, fmt.Errorf("%w: row group datasets: %v out of range", ErrCorruptManifest, p)
		}
	}
	return out, nil
}

// encodeDatasetRows is the JSON of a row group's rows per dataset index.
func encodeDatasetRows(rows map[int]int64) json.RawMessage {
	idx := make([]int, 0, len(rows))
	for i := range rows {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	b := []byte{'['}
	for n, i := range idx {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, rows[i], 10)
		b = append(b, ']')
	}
	return append(b, ']')
}

// segmentSplits appends the splits of the snapshot's segments to snap: every
// row group holding live rows, counted by its live rows.
func (m *manifest) segmentSplits(snap *occurrence.Snapshot) {
	for _, seg := range m.Segments {
		live := make([]bool, len(seg.Datasets))
		keys := map[string]bool{}
		for i, key := range seg.Datasets {
			if ds, ok := m.Datasets[key]; ok && ds.Segment == seg.Generation {
				live[i], keys[key] = true, true
			}
		}
		if len(keys) == len(seg.Datasets) {
			keys = nil // every row is live: no filter
		}
		for _, f := range seg.Files {
			for rg, g := range f.RowGroups {
				rows := g.Rows
				if keys != nil {
					rows = 0
					dr, err := g.datasetRows(len(seg.Datasets))
					if err != nil {
						// Undecodable: scan the row group with the filter,
						// counting it whole.
						rows = g.Rows
					}
					for _, p := range dr {
						if live[p[0]] {
							rows += p[1]
						}
					}
				}
				if rows == 0 {
					continue
				}
				snap.Splits = append(snap.Splits, occurrence.Split{
					Index: len(snap.Splits),
					Rows:  rows,
					Stats: g.split,
					Ref:   splitRef{path: f.Path, rowGroup: rg, rows: g.Rows, live: keys},
				})
			}
		}
	}
}

// segments decodes the manifest's segments.
func (w *jsonWalker) segments() ([]*segmentEntry, error) {
	if w.null() {
		return nil, nil
	}
	var out []*segmentEntry
	err := w.array(func() error {
		seg := &segmentEntry{}
		err := w.object(func(key []byte) (err error) {
			switch jsonKey(key, "generation", "datasets", "files") {
			case "generation":
				err = json.Unmarshal(w.value(), &seg.Generation)
			case "datasets":
				err = json.Unmarshal(w.value(), &seg.Datasets)
			case "files":
				seg.Files, err = w.files()
			default:
				w.value()
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("segment %s: %w", seg.Generation, err)
		}
		if !sort.StringsAreSorted(seg.Datasets) {
			return fmt.Errorf("segment %s: datasets not sorted", seg.Generation)
		}
		out = append(out, seg)
		return nil
	})
	return out, err
}

// errNoSegmentEML marks a dataset entry naming a segment that does not hold it.
var errNoSegmentEML = errors.New("dataset not in its segment")
