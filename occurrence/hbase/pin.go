package hbase

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc"
)

// Pins. A snapshot reads the dataset generations that were current when it
// was taken; a replaced generation's rows are deleted by a later writer
// once KeepFor has passed (collect). A scan that may outlast KeepFor (a
// download, a rollover copying the table) pins its snapshot: a row
//
//	\xffpin:<random>   m:pin = {"snapshot":..., "gens":[hex ids], "expires":...}
//
// lists the generations it reads, and collect deletes no pinned generation.
// The holder refreshes the row (its expiry moves ttl ahead); a pin whose
// holder died expires, and collect deletes its row. Expiry is the pinning
// process's clock, so collectors allow pinClockSkew of difference between
// machines.
const (
	pinPrefix    = "\xffpin:"
	pinClockSkew = time.Minute
)

var qualPin = []byte("pin")

var _ occurrence.Pinner = (*Store)(nil)

type pinRow struct {
	Snapshot string    `json:"snapshot"`
	Gens     []string  `json:"gens"` // hex of genID
	Holder   string    `json:"holder,omitempty"`
	Expires  time.Time `json:"expires"`
}

type hbasePin struct {
	s   *Store
	key []byte
	row pinRow
	ttl time.Duration
}

// Pin keeps the generations snap reads until Release or until ttl passes
// without Refresh. It fails with ErrSnapshotGone when one of them may
// already be deleted: retired for longer than KeepFor less the clock skew.
func (s *Store) Pin(ctx context.Context, snap occurrence.Snapshot, holder string, ttl time.Duration) (occurrence.Pin, error) {
	if len(snap.Splits) == 0 {
		return nil, fmt.Errorf("pin snapshot %s: no splits", snap.ID)
	}
	ref, ok := snap.Splits[0].Ref.(splitRef)
	if !ok {
		return nil, fmt.Errorf("pin snapshot %s: not a snapshot of this table", snap.ID)
	}
	if ttl <= 0 {
		return nil, fmt.Errorf("pin snapshot %s: ttl %s", snap.ID, ttl)
	}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	p := &hbasePin{s: s, key: []byte(pinPrefix + hex.EncodeToString(rnd[:])), ttl: ttl,
		row: pinRow{Snapshot: snap.ID, Holder: holder}}
	for g := range ref.live {
		p.row.Gens = append(p.row.Gens, hex.EncodeToString([]byte(g)))
	}
	if err := p.Refresh(ctx); err != nil {
		return nil, fmt.Errorf("pin snapshot %s: %w", snap.ID, err)
	}
	// The pin is in place: no collect starting from now deletes what it
	// lists. One that started before may delete generations retired
	// longer than KeepFor ago, which the check below refuses.
	states, err := s.states(ctx)
	if err != nil {
		p.Release(ctx)
		return nil, fmt.Errorf("pin snapshot %s: %w", snap.ID, err)
	}
	readable := map[string]bool{}
	now := time.Now()
	for key, st := range states {
		h := datasetHash(key)
		if st.Gen != 0 {
			readable[genID(h, st.Gen)] = true
		}
		for _, m := range st.Retired {
			if now.Sub(m.At) < s.cfg.KeepFor-pinClockSkew {
				readable[genID(h, m.Gen)] = true
			}
		}
	}
	for g := range ref.live {
		if !readable[g] {
			p.Release(ctx)
			return nil, fmt.Errorf("pin snapshot %s: %w", snap.ID, occurrence.ErrSnapshotGone)
		}
	}
	return p, nil
}

func (p *hbasePin) Refresh(ctx context.Context) error {
	p.row.Expires = time.Now().Add(p.ttl).UTC()
	b, err := json.Marshal(p.row)
	if err != nil {
		return err
	}
	return p.s.c.Put(ctx, p.s.cfg.Table, &hrpc.Mutation{Row: p.key, Cells: []hrpc.Cell{{Family: famMeta, Qualifier: qualPin, Value: b}}})
}

func (p *hbasePin) Release(ctx context.Context) error {
	return p.s.c.Apply(ctx, p.s.cfg.Table, []*hrpc.Mutation{{Row: p.key, Delete: true}})
}

// pinnedGens reads the live pins' generations and deletes the rows of
// expired pins.
func (s *Store) pinnedGens(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	var expired []*hrpc.Mutation
	now := time.Now()
	p := []byte(pinPrefix)
	opts := hrpc.ScanOptions{Start: p, Stop: prefixEnd(p), Columns: []hrpc.Column{{Family: famMeta, Qualifiers: [][]byte{qualPin}}}}
	_, err := s.c.Scan(ctx, s.cfg.Table, opts, func(rows []hrpc.Row) error {
		for _, r := range rows {
			var pr pinRow
			if len(r.Cells) == 0 || json.Unmarshal(r.Cells[0].Value, &pr) != nil {
				continue
			}
			if now.After(pr.Expires.Add(pinClockSkew)) {
				expired = append(expired, &hrpc.Mutation{Row: r.Key, Delete: true})
				continue
			}
			for _, g := range pr.Gens {
				if b, err := hex.DecodeString(g); err == nil {
					out[string(b)] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(expired) > 0 {
		if err := s.c.Apply(ctx, s.cfg.Table, expired); err != nil {
			s.log.Warn("hbase: delete expired pins", "err", err)
		}
	}
	return out, nil
}

// Pins returns the number of live pins.
func (s *Store) Pins(ctx context.Context) (int, error) {
	n := 0
	p := []byte(pinPrefix)
	now := time.Now()
	opts := hrpc.ScanOptions{Start: p, Stop: prefixEnd(p), Columns: []hrpc.Column{{Family: famMeta, Qualifiers: [][]byte{qualPin}}}}
	_, err := s.c.Scan(ctx, s.cfg.Table, opts, func(rows []hrpc.Row) error {
		for _, r := range rows {
			var pr pinRow
			if len(r.Cells) > 0 && json.Unmarshal(r.Cells[0].Value, &pr) == nil && !now.After(pr.Expires.Add(pinClockSkew)) {
				n++
			}
		}
		return nil
	})
	return n, err
}

// CollectReport says what Collect deleted.
type CollectReport struct {
	// Generations are the replaced or abandoned dataset generations whose
	// rows were deleted; Kept those a pin still holds.
	Generations, Kept int
}

// Collect deletes the rows of every dataset's generations that no snapshot
// needs any more (what each writer does for the dataset it writes): the
// rollover of an HBase table runs it for all datasets.
func (s *Store) Collect(ctx context.Context) (CollectReport, error) {
	states, err := s.states(ctx)
	if err != nil {
		return CollectReport{}, err
	}
	var rep CollectReport
	for key, st := range states {
		d, k := s.collect(ctx, key, st)
		rep.Generations += d
		rep.Kept += k
	}
	return rep, ctx.Err()
}
