package parquet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

const (
	manifestName   = "manifest.json"
	manifestsDir   = "manifests"
	dataDir        = "data"
	lockName       = ".lock"
	emlName        = "eml.xml"
	manifestFormat = 1
	// manifestFormatSegments marks a manifest with segments (segment.go),
	// which a reader that knows only format 1 would read as a table
	// without the datasets they hold: it refuses the format instead.
	manifestFormatSegments = 2
)

// manifest is one snapshot of the table.
type manifest struct {
	Format   int                      `json:"format"`
	Snapshot int64                    `json:"snapshot"`
	Created  time.Time                `json:"created"`
	Datasets map[string]*datasetEntry `json:"datasets"`
	// Segments hold the rows of many datasets each (written by Rollover).
	Segments []*segmentEntry `json:"segments,omitempty"`
	// Source names the table and snapshot this one was copied from
	// (CopyFrom), empty for a table loaded by ingests.
	Source string `json:"source,omitempty"`
}

// datasetEntry is one dataset partition.
type datasetEntry struct {
	occurrence.DatasetInfo
	Generation string      `json:"generation"`
	Files      []fileEntry `json:"files"`
	// Segment names the segment (segment.go) holding the dataset's rows
	// and EML document instead of Generation and Files.
	Segment string `json:"segment,omitempty"`
	// IDs says where the generation's gbifIDs come from: idsMinted, the
	// table's lookup; empty in tables written before ids were minted
	// (hashes, migrated when the dataset is loaded again).
	IDs string `json:"ids,omitempty"`
}

// idsMinted marks a dataset generation whose gbifIDs the table minted.
const idsMinted = "minted"

type fileEntry struct {
	Path      string          `json:"path"` // relative to the table directory
	Rows      int64           `json:"rows"`
	Bytes     int64           `json:"bytes"`
	RowGroups []rowGroupEntry `json:"rowGroups"`
}

type rowGroupEntry struct {
	Rows int64 `json:"rows"`
	// Stats is an object of each column's colStats, left encoded until a
	// scan's predicate asks for a column (found with gjson, decoded alone):
	// a snapshot of a large table opens without decoding statistics it does
	// not need, and the manifest decodes without a map per row group.
	Stats json.RawMessage `json:"stats,omitempty"`
	// Datasets is, in a segment's row group, how many rows each dataset
	// has in it: [[index into the segment's datasets, rows], ...].
	Datasets json.RawMessage `json:"datasets,omitempty"`
	// split serves Stats to scans (set when the manifest is decoded).
	split *splitStats
}

// colStats is the JSON form of occurrence.ColumnStats. Min and Max are kept as
// json.Number or string or bool so that int64 values survive exactly.
type colStats struct {
	Nulls  int64    `json:"nulls"`
	Min    any      `json:"min,omitempty"`
	Max    any      `json:"max,omitempty"`
	Values []string `json:"values,omitempty"`
	// Exact is set when Values is the complete set of distinct values.
	Exact bool `json:"exact,omitempty"`
}

// sortedKeys returns the dataset keys in scan order.
func (m *manifest) sortedKeys() []string {
	keys := make([]string, 0, len(m.Datasets))
	for k := range m.Datasets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// generationDirs lists the directories the snapshot reads: its datasets'
// generations and its segments.
func (m *manifest) generationDirs() []string {
	out := make([]string, 0, len(m.Datasets)+len(m.Segments))
	for _, key := range m.sortedKeys() {
		if ds := m.Datasets[key]; ds.Segment == "" {
			out = append(out, generationDir(key, ds.Generation))
		}
	}
	for _, seg := range m.Segments {
		out = append(out, segmentDir(seg.Generation))
	}
	return out
}

// readManifest loads the current manifest; a missing one is an empty table.
func readManifest(dir string) (*manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return &manifest{Format: manifestFormat, Datasets: map[string]*datasetEntry{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	return decodeManifest(data, filepath.Join(dir, manifestName))
}

// writeManifest publishes m atomically: a synced temporary file renamed over
// manifest.json (atomicfile). The generations the snapshot uses are listed
// under manifests/ so that cleanup keeps them while the snapshot may be in
// use.
func writeManifest(dir string, m *manifest) error {
	m.Format = manifestFormat
	if len(m.Segments) > 0 {
		m.Format = manifestFormatSegments
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	var gens strings.Builder
	for _, d := range m.generationDirs() {
		gens.WriteString(d)
		gens.WriteByte('\n')
	}
	hist := gensPath(dir, m.Snapshot)
	if err := os.MkdirAll(filepath.Dir(hist), 0o755); err != nil {
		return err
	}
	if err := writeFile(hist, []byte(gens.String())); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, manifestName), data); err != nil {
		return fmt.Errorf("publish manifest: %w", err)
	}
	return nil
}

// writeFile replaces path with data durably, readable by all (the mode a
// manifest had when it was created through the usual umask).
func writeFile(path string, data []byte) error {
	return atomicfile.WriteFile(path, 0o644, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// syncDir fsyncs directory dir, making the files created in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// toColumnStats converts the stored statistics of column c.
func (s colStats) toColumnStats(c occurrence.Column, rows int64) occurrence.ColumnStats {
	cs := occurrence.ColumnStats{NullCount: s.Nulls, Rows: rows}
	if s.Exact {
		cs.Values = s.Values
		if cs.Values == nil {
			cs.Values = []string{}
		}
	}
	if s.Min == nil || s.Max == nil {
		return cs
	}
	min, ok1 := statValue(c.Kind, s.Min)
	max, ok2 := statValue(c.Kind, s.Max)
	if ok1 && ok2 {
		cs.HasMinMax, cs.Min, cs.Max = true, min, max
	}
	return cs
}

func statValue(k occurrence.Kind, v any) (any, bool) {
	switch k {
	case occurrence.KindInt32, occurrence.KindInt64, occurrence.KindTimestamp:
		switch n := v.(type) {
		case json.Number:
			i, err := strconv.ParseInt(string(n), 10, 64)
			return i, err == nil
		case int64:
			return n, true
		}
	case occurrence.KindFloat64:
		switch n := v.(type) {
		case json.Number:
			f, err := strconv.ParseFloat(string(n), 64)
			return f, err == nil
		case float64:
			return n, true
		}
	case occurrence.KindBool:
		b, ok := v.(bool)
		return b, ok
	default:
		s, ok := v.(string)
		return s, ok
	}
	return nil, false
}

// splitStats implements occurrence.Stats for one row group. A column's
// statistics are decoded on first use and kept: the decoded manifest is
// reused by every snapshot until the next commit, so pruning and column
// trimming (which both ask for a predicate's columns) decode each once.
type splitStats struct {
	rows int64
	raw  json.RawMessage

	mu   sync.Mutex
	cols map[string]decodedStats
	// index holds each column's encoded statistics, split out of raw in
	// one pass the first time a column is asked for: an export of all 230
	// columns asks for every one of them, and a lookup each through raw
	// would cost the whole object every time.
	index map[string][]byte
}

type decodedStats struct {
	cs occurrence.ColumnStats
	ok bool
}

func (s *splitStats) ColumnStats(name string) (occurrence.ColumnStats, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.cols[name]; ok {
		return d.cs, d.ok
	}
	cs, ok := s.decode(name)
	if s.cols == nil {
		s.cols = make(map[string]decodedStats)
	}
	s.cols[name] = decodedStats{cs, ok}
	return cs, ok
}

// entry returns column name's encoded statistics (s.mu held).
func (s *splitStats) entry(name string) ([]byte, bool) {
	if s.index == nil {
		s.index = map[string][]byte{}
		gjson.ParseBytes(s.raw).ForEach(func(k, v gjson.Result) bool {
			if v.IsObject() {
				s.index[k.String()] = s.raw[v.Index : v.Index+len(v.Raw)]
			}
			return true
		})
	}
	e, ok := s.index[name]
	return e, ok
}

// Nulls returns the null count of a column of the row group, without
// decoding the rest of its statistics.
func (s *splitStats) Nulls(name string) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.cols[name]; ok {
		return d.cs.NullCount, d.ok
	}
	e, ok := s.entry(name)
	if !ok {
		return 0, false
	}
	n := gjson.GetBytes(e, "nulls")
	return n.Int(), n.Exists()
}

func (s *splitStats) decode(name string) (occurrence.ColumnStats, bool) {
	e, ok := s.entry(name)
	if !ok {
		return occurrence.ColumnStats{}, false
	}
	c, _, ok := occurrence.ColumnByName(name)
	if !ok {
		return occurrence.ColumnStats{}, false
	}
	dec := json.NewDecoder(bytes.NewReader(e))
	dec.UseNumber()
	var st colStats
	if err := dec.Decode(&st); err != nil {
		return occurrence.ColumnStats{}, false // unknown: no pruning on it
	}
	return st.toColumnStats(c, s.rows), true
}
