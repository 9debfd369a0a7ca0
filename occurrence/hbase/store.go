package hbase

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc"
)

var _ occurrence.Backend = (*Store)(nil)

// ErrBadURI marks an hbase:// table URI that cannot be parsed.
var ErrBadURI = errors.New("bad hbase table URI")

// Config configures a Store. Zero fields take the defaults noted.
type Config struct {
	// Master is the HBase master's host:port; Table the HBase table name.
	Master, Table string
	// Buckets is the number of salt buckets (= pre-split regions = splits)
	// a new table is created with (default 16, at most MaxBuckets). An
	// existing table keeps its own.
	Buckets int
	// Caching is the rows asked per scan call (default 1000).
	Caching int
	// MaxResultSize caps one scan call's response (default 8 MiB).
	MaxResultSize uint64
	// WriteBatch is the mutations per batched write (default 1000).
	WriteBatch int
	// KeepFor is how long a replaced generation stays readable for scans of
	// older snapshots before the next writer deletes it (default 1h).
	KeepFor time.Duration
	// AbandonAfter is the age after which an uncommitted generation (a
	// crashed ingest) is deleted by the next writer (default 24h).
	AbandonAfter time.Duration
	// NoPushdown evaluates predicates only client-side (for comparisons).
	NoPushdown bool
	// MustExist makes a missing table an error wrapping
	// occurrence.ErrNoTable instead of creating it (OpenExisting).
	MustExist bool
	// Client tunes the RPC client (its Master is taken from Master).
	Client hrpc.Config
}

func (c Config) withDefaults() Config {
	if c.Buckets <= 0 {
		c.Buckets = 16
	}
	c.Buckets = min(c.Buckets, MaxBuckets)
	if c.Caching <= 0 {
		c.Caching = 1000
	}
	if c.MaxResultSize == 0 {
		c.MaxResultSize = 8 << 20
	}
	if c.WriteBatch <= 0 {
		c.WriteBatch = 1000
	}
	if c.KeepFor == 0 {
		c.KeepFor = time.Hour
	}
	if c.AbandonAfter == 0 {
		c.AbandonAfter = 24 * time.Hour
	}
	return c
}

// Store is the occurrence table in HBase.
type Store struct {
	cfg     Config
	c       *hrpc.Client
	log     *slog.Logger
	buckets int

	idBlocks idBlocks // gbifIDs reserved from the table's counter (ids.go)
}

// ParseURI splits hbase://host:port/table[?buckets=N] into a Config.
func ParseURI(uri string) (Config, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "hbase" || u.Host == "" || u.Port() == "" {
		return Config{}, fmt.Errorf("%w %q: want hbase://host:port/table", ErrBadURI, uri)
	}
	table := strings.Trim(u.Path, "/")
	if table == "" || strings.ContainsAny(table, "/,") {
		return Config{}, fmt.Errorf("%w %q: missing or invalid table name", ErrBadURI, uri)
	}
	cfg := Config{Master: u.Host, Table: table}
	if b := u.Query().Get("buckets"); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil || n < 1 || n > MaxBuckets {
			return Config{}, fmt.Errorf("%w %q: buckets must be 1..%d", ErrBadURI, uri, MaxBuckets)
		}
		cfg.Buckets = n
	}
	return cfg, nil
}

// Open opens (creating if needed) the table that uri names:
// hbase://host:port/table where host:port is the HBase master.
func Open(ctx context.Context, uri string, logger *slog.Logger) (*Store, error) {
	cfg, err := ParseURI(uri)
	if err != nil {
		return nil, err
	}
	return OpenConfig(ctx, cfg, logger)
}

// OpenExisting opens the table that uri names for a caller that must not
// create one (counts, exports, serving): a missing table is an error
// wrapping occurrence.ErrNoTable that names it.
func OpenExisting(ctx context.Context, uri string, logger *slog.Logger) (*Store, error) {
	cfg, err := ParseURI(uri)
	if err != nil {
		return nil, err
	}
	cfg.MustExist = true
	return OpenConfig(ctx, cfg, logger)
}

// OpenConfig opens (creating if needed, unless cfg.MustExist) the table
// cfg names.
func OpenConfig(ctx context.Context, cfg Config, logger *slog.Logger) (*Store, error) {
	cfg = cfg.withDefaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cc := cfg.Client
	cc.Master = cfg.Master
	if cc.Logger == nil {
		cc.Logger = logger
	}
	c, err := hrpc.New(cc)
	if err != nil {
		return nil, err
	}
	s := &Store{cfg: cfg, c: c, log: logger}
	if err := s.ensureTable(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the connections.
func (s *Store) Close() error { return s.c.Close() }

// Client returns the store's RPC client (for administration and tests).
func (s *Store) Client() *hrpc.Client { return s.c }

// Table returns the HBase table name.
func (s *Store) Table() string { return s.cfg.Table }

// Buckets returns the table's salt bucket count.
func (s *Store) Buckets() int { return s.buckets }

var tableKey = []byte("\xfftable")

// ensureTable creates the table pre-split into salt buckets if it is
// missing, and reads its bucket count.
func (s *Store) ensureTable(ctx context.Context) error {
	ok, err := s.c.TableExists(ctx, s.cfg.Table)
	if err != nil {
		return err
	}
	if !ok && s.cfg.MustExist {
		return fmt.Errorf("hbase table %s at %s: %w", s.cfg.Table, s.cfg.Master, occurrence.ErrNoTable)
	}
	if !ok {
		var splits [][]byte
		for b := 1; b < s.cfg.Buckets; b++ {
			splits = append(splits, []byte{byte(b)})
		}
		splits = append(splits, []byte{0xff})
		err := s.c.CreateTable(ctx, s.cfg.Table, []string{string(famHeader), string(famRecord), string(famMeta)}, splits)
		if err != nil && !errors.Is(err, hrpc.ErrTableExists) {
			return err
		}
		if err == nil {
			m := &hrpc.Mutation{Row: tableKey, Cells: []hrpc.Cell{{Family: famMeta, Qualifier: []byte("buckets"),
				Value: []byte(strconv.Itoa(s.cfg.Buckets))}}}
			if err := s.c.Put(ctx, s.cfg.Table, m); err != nil {
				return err
			}
		}
	}
	row, err := s.c.Get(ctx, s.cfg.Table, tableKey)
	if err != nil {
		return err
	}
	for _, c := range rowCells(row) {
		if string(c.Qualifier) == "buckets" {
			s.buckets, _ = strconv.Atoi(string(c.Value))
		}
	}
	if s.buckets < 1 || s.buckets > MaxBuckets {
		return fmt.Errorf("hbase table %s: not an occurrence table (no bucket count)", s.cfg.Table)
	}
	return nil
}

func rowCells(r *hrpc.Row) []hrpc.Cell {
	if r == nil {
		return nil
	}
	return r.Cells
}

// genMark is a generation and when it was started or retired, with the
// country key parts its rows use (nil when unknown: a crashed ingest).
type genMark struct {
	Gen       uint64    `json:"gen"`
	At        time.Time `json:"at"`
	Countries []string  `json:"countries,omitempty"`
}

// datasetState is a dataset's row: its current generation and the
// generations waiting to be deleted.
type datasetState struct {
	Info   occurrence.DatasetInfo `json:"info"`
	Gen    uint64                 `json:"gen,omitempty"` // 0: deleted
	Counts []int64                `json:"counts,omitempty"`
	// Countries are the country key parts of Gen's rows.
	Countries []string  `json:"countries,omitempty"`
	Retired   []genMark `json:"retired,omitempty"`
	Pending   []genMark `json:"pending,omitempty"`
	// MintedIDs says the table minted Gen's gbifIDs; false in tables
	// written before it minted ids (hashes, migrated when the dataset is
	// loaded again).
	MintedIDs bool `json:"mintedIDs,omitempty"`
	// Header is the header version of Gen's rows; 0 in tables written
	// before it was recorded (version 2).
	Header int `json:"header,omitempty"`
}

// header is the header version of st's current rows.
func (st *datasetState) header() int { return max(st.Header, 2) }

func (s *Store) readState(ctx context.Context, key string) (*datasetState, error) {
	row, err := s.c.Get(ctx, s.cfg.Table, metaKey(key), hrpc.Column{Family: famMeta, Qualifiers: [][]byte{qualState}})
	if err != nil {
		return nil, err
	}
	cells := rowCells(row)
	if len(cells) == 0 {
		return nil, nil
	}
	var st datasetState
	if err := json.Unmarshal(cells[0].Value, &st); err != nil {
		return nil, fmt.Errorf("dataset %s: corrupt state: %w", key, err)
	}
	return &st, nil
}

func (s *Store) writeState(ctx context.Context, key string, st *datasetState, extra ...hrpc.Cell) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	cells := append([]hrpc.Cell{{Family: famMeta, Qualifier: qualState, Value: b}}, extra...)
	return s.c.Put(ctx, s.cfg.Table, &hrpc.Mutation{Row: metaKey(key), Cells: cells})
}

// states reads every dataset's state, by dataset key.
func (s *Store) states(ctx context.Context) (map[string]*datasetState, error) {
	out := map[string]*datasetState{}
	p := []byte(metaPrefix)
	opts := hrpc.ScanOptions{Start: p, Stop: prefixEnd(p), Columns: []hrpc.Column{{Family: famMeta, Qualifiers: [][]byte{qualState}}}}
	_, err := s.c.Scan(ctx, s.cfg.Table, opts, func(rows []hrpc.Row) error {
		for _, r := range rows {
			key := string(r.Key[len(metaPrefix):])
			var st datasetState
			if err := json.Unmarshal(r.Cells[0].Value, &st); err != nil {
				return fmt.Errorf("dataset %s: corrupt state: %w", key, err)
			}
			out[key] = &st
		}
		return nil
	})
	return out, err
}

// liveSet holds the dataset generations of a snapshot, keyed by the row key
// bytes [genOff:genEnd) (dataset hash and generation).
type liveSet map[string]struct{}

// splitRef is what a Split carries: the salt bucket and the snapshot's
// generations.
type splitRef struct {
	bucket int
	live   liveSet
	header int // the oldest header version of the snapshot's rows
}

// Snapshot returns one split per salt bucket with the exact row count of
// the datasets' current generations. Later ingests write new generations,
// which scans of this snapshot skip.
func (s *Store) Snapshot(ctx context.Context) (occurrence.Snapshot, error) {
	states, err := s.states(ctx)
	if err != nil {
		return occurrence.Snapshot{}, fmt.Errorf("snapshot of %s: %w", s.cfg.Table, err)
	}
	live := liveSet{}
	header := headerVersion
	rows := make([]int64, s.buckets)
	keys := make([]string, 0, len(states))
	for k, st := range states {
		if st.Gen == 0 {
			continue
		}
		keys = append(keys, k)
		live[genID(datasetHash(k), st.Gen)] = struct{}{}
		header = min(header, st.header())
		for b, n := range st.Counts {
			if b < len(rows) {
				rows[b] += n
			}
		}
	}
	sort.Strings(keys)
	h := fnv.New64a()
	for _, k := range keys {
		fmt.Fprintf(h, "%s:%d\n", k, states[k].Gen)
	}
	snap := occurrence.Snapshot{ID: fmt.Sprintf("%s@%016x", s.cfg.Table, h.Sum64())}
	for _, k := range keys {
		if t := states[k].Info.Ingested; t.After(snap.Created) {
			snap.Created = t
		}
	}
	for b := 0; b < s.buckets; b++ {
		snap.Splits = append(snap.Splits, occurrence.Split{Index: b, Rows: rows[b], Ref: splitRef{bucket: b, live: live, header: header}})
	}
	return snap, nil
}

// Datasets lists the table's datasets in key order.
func (s *Store) Datasets(ctx context.Context) ([]occurrence.DatasetInfo, error) {
	states, err := s.states(ctx)
	if err != nil {
		return nil, err
	}
	var out []occurrence.DatasetInfo
	for _, st := range states {
		if st.Gen != 0 {
			out = append(out, st.Info)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// Dataset returns one dataset's description.
func (s *Store) Dataset(ctx context.Context, key string) (occurrence.DatasetInfo, error) {
	st, err := s.readState(ctx, key)
	if err != nil {
		return occurrence.DatasetInfo{}, err
	}
	if st == nil || st.Gen == 0 {
		return occurrence.DatasetInfo{}, fmt.Errorf("%w: %s", occurrence.ErrNoDataset, key)
	}
	return st.Info, nil
}

// DatasetEML returns the EML document kept from the dataset's source: its
// state and EML cells are read in one Get, so that the EML of a deleted
// dataset (whose cell stays until the dataset is loaded again) is not served.
func (s *Store) DatasetEML(ctx context.Context, key string) (io.ReadCloser, error) {
	row, err := s.c.Get(ctx, s.cfg.Table, metaKey(key), hrpc.Column{Family: famMeta, Qualifiers: [][]byte{qualState, qualEML}})
	if err != nil {
		return nil, err
	}
	var state, eml []byte
	for _, c := range rowCells(row) {
		switch string(c.Qualifier) {
		case string(qualState):
			state = c.Value
		case string(qualEML):
			eml = c.Value
		}
	}
	var st datasetState
	if state != nil {
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, fmt.Errorf("dataset %s: corrupt state: %w", key, err)
		}
	}
	switch {
	case st.Gen == 0:
		return nil, fmt.Errorf("%w: %s", occurrence.ErrNoDataset, key)
	case !st.Info.HasEML || eml == nil:
		return nil, fmt.Errorf("dataset %s: %w", key, occurrence.ErrNoEML)
	}
	return io.NopCloser(bytes.NewReader(eml)), nil
}

// DeleteDataset removes a dataset: later snapshots no longer include it, and
// its rows are deleted once older snapshots may have finished (KeepFor).
func (s *Store) DeleteDataset(ctx context.Context, key string) error {
	st, err := s.readState(ctx, key)
	if err != nil {
		return err
	}
	if st == nil || st.Gen == 0 {
		return fmt.Errorf("%w: %s", occurrence.ErrNoDataset, key)
	}
	st.Retired = append(st.Retired, genMark{Gen: st.Gen, At: time.Now().UTC(), Countries: st.Countries})
	st.Gen, st.Counts, st.Countries = 0, nil, nil
	if err := s.writeState(ctx, key, st); err != nil {
		return err
	}
	s.collect(ctx, key, st)
	return nil
}

// Drop deletes the whole HBase table.
func (s *Store) Drop(ctx context.Context) error { return s.c.DropTable(ctx, s.cfg.Table) }
