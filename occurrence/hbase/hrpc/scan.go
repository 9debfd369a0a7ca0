package hrpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc/pb"
)

// Row is one complete row of a scan or get: its key and cells in the order
// the server sorted them (family, qualifier, newest first).
type Row struct {
	Key   []byte
	Cells []Cell
}

// Column selects qualifiers of a family; no qualifiers selects the family.
type Column struct {
	Family     []byte
	Qualifiers [][]byte
}

// TimeRange selects cell versions with From <= timestamp < To (milliseconds).
type TimeRange struct{ From, To uint64 }

// ScanOptions describes a scan. Zero fields take the defaults noted.
type ScanOptions struct {
	Start, Stop []byte // row range [Start, Stop); empty means unbounded
	Columns     []Column
	Filter      Filter
	TimeRange   *TimeRange
	// Caching is the number of rows asked per call (default 1000).
	Caching int
	// MaxResultSize caps the bytes of one call's response (default 4 MiB);
	// the server may then cut a row, which the scanner reassembles.
	MaxResultSize uint64
	// CacheBlocks lets the scan fill the block cache; leave it false for
	// full scans so they do not churn the cache for everyone else.
	CacheBlocks bool
	// LoadColumnFamiliesOnDemand lets the server read the families a filter
	// tests first and the others only for rows that pass.
	LoadColumnFamiliesOnDemand bool
}

func (o *ScanOptions) scanPB(start []byte, inclusive bool) (*pb.Scan, error) {
	caching := o.Caching
	if caching <= 0 {
		caching = 1000
	}
	maxSize := o.MaxResultSize
	if maxSize == 0 {
		maxSize = 4 << 20
	}
	s := &pb.Scan{
		StartRow: start, IncludeStartRow: proto.Bool(inclusive), StopRow: o.Stop,
		CacheBlocks: proto.Bool(o.CacheBlocks), Caching: proto.Uint32(uint32(caching)),
		MaxResultSize: proto.Uint64(maxSize), MaxVersions: proto.Uint32(1),
	}
	if o.LoadColumnFamiliesOnDemand {
		s.LoadColumnFamiliesOnDemand = proto.Bool(true)
	}
	for _, c := range o.Columns {
		s.Column = append(s.Column, &pb.Column{Family: c.Family, Qualifier: c.Qualifiers})
	}
	if o.TimeRange != nil {
		s.TimeRange = &pb.TimeRange{From: proto.Uint64(o.TimeRange.From), To: proto.Uint64(o.TimeRange.To)}
	}
	if o.Filter != nil {
		f, err := o.Filter.filterPB()
		if err != nil {
			return nil, err
		}
		s.Filter = f
	}
	return s, nil
}

// ScanStats counts what a scan did.
type ScanStats struct {
	Rows     int64 // complete rows delivered
	Calls    int64 // scan RPCs
	Bytes    int64 // cell block bytes received
	Restarts int64 // scanner reopenings after region moves, splits, expiry
}

// errStop wraps errors returned by the caller's callback so they are never
// retried.
type errStop struct{ err error }

func (e errStop) Error() string { return e.err.Error() }
func (e errStop) Unwrap() error { return e.err }

// cursor is where a scan resumes: at pos, including it or not.
type cursor struct {
	pos       []byte
	inclusive bool
}

// Scan scans table over opts' row range, region by region, calling fn with
// each batch of complete rows in key order. After a region moved or split,
// a server restart or an expired scanner, it reopens the scan right after the
// last row it delivered, so every row is delivered exactly once. It gives up
// when no progress was made for the operation timeout. fn may keep the rows.
func (c *Client) Scan(ctx context.Context, table string, opts ScanOptions, fn func([]Row) error) (ScanStats, error) {
	s := &scanner{c: c, table: table, opts: opts, fn: fn}
	cur := cursor{pos: opts.Start, inclusive: true}
	lastProgress := time.Now()
	bo := backoff{d: firstBackoff, max: time.Second}
	for {
		region, err := c.Locate(ctx, table, cur.pos)
		var done bool
		if err == nil {
			done, err = s.scanRegion(ctx, region, &cur)
		}
		if err == nil {
			if done {
				return s.stats, nil
			}
			cur = cursor{pos: region.End, inclusive: true}
			lastProgress, bo.d = time.Now(), firstBackoff
			continue
		}
		var stop errStop
		if errors.As(err, &stop) {
			return s.stats, stop.err
		}
		if ctx.Err() != nil {
			return s.stats, fmt.Errorf("hbase: scan %s: %w", table, ctx.Err())
		}
		if !Retryable(err) {
			return s.stats, fmt.Errorf("hbase: scan %s at row %q: %w", table, cur.pos, err)
		}
		if s.progressed {
			lastProgress, bo.d, s.progressed = time.Now(), firstBackoff, false
		}
		if time.Since(lastProgress)+bo.d > c.cfg.OperationTimeout {
			return s.stats, fmt.Errorf("hbase: scan %s: no progress for %s after %d rows, last error: %w",
				table, time.Since(lastProgress).Round(time.Millisecond), s.stats.Rows, err)
		}
		c.cfg.Logger.Debug("hbase scan restart", "table", table, "row", string(cur.pos), "err", err)
		s.stats.Restarts++
		if regionStale(err) {
			c.forgetRegions(table)
		}
		if err := bo.wait(ctx); err != nil {
			return s.stats, fmt.Errorf("hbase: scan %s: %w", table, err)
		}
	}
}

// scanRegionOnce scans the part of opts' range inside one region with no
// retries (used for hbase:meta).
func (c *Client) scanRegionOnce(ctx context.Context, region *Region, opts ScanOptions, fn func([]Row) error) error {
	s := &scanner{c: c, table: region.Table, opts: opts, fn: fn}
	cur := cursor{pos: opts.Start, inclusive: true}
	_, err := s.scanRegion(ctx, region, &cur)
	var stop errStop
	if errors.As(err, &stop) {
		return stop.err
	}
	return err
}

type scanner struct {
	c          *Client
	table      string
	opts       ScanOptions
	fn         func([]Row) error
	stats      ScanStats
	progressed bool

	// per region scanner state
	region  *Region
	id      uint64
	open    bool
	seq     uint64
	ttl     time.Duration
	pending *Row // partial row being assembled
}

// scanRegion runs one server-side scanner over region from cur; it advances
// cur past every delivered row. done reports that the scan's range ends in
// this region. The next call is sent before the rows of the current one are
// handed to the callback, so the server works while the client consumes.
func (s *scanner) scanRegion(ctx context.Context, region *Region, cur *cursor) (done bool, err error) {
	sc, err := s.opts.scanPB(cur.pos, cur.inclusive)
	if err != nil {
		return false, errStop{err}
	}
	s.region, s.open, s.seq, s.pending = region, false, 0, nil
	var next *inflight
	defer func() {
		if err == nil {
			return
		}
		if next != nil { // let the prefetch finish so the scanner can be closed
			<-next.done
			s.noteReply(next)
		}
		if s.open {
			s.closeScanner()
		}
	}()
	next = s.send(ctx, &pb.ScanRequest{Region: region.spec(), Scan: sc, NumberOfRows: sc.Caching,
		ClientHandlesPartials: proto.Bool(true), ClientHandlesHeartbeats: proto.Bool(true)})
	for {
		cur0 := next
		<-cur0.done
		next = nil
		if err := s.noteReply(cur0); err != nil {
			return false, err
		}
		resp := cur0.resp
		rows, err := s.assemble(resp, cur0.cells)
		if err != nil {
			return false, err
		}
		moreInRegion := resp.GetMoreResultsInRegion()
		finished := resp.MoreResults != nil && !resp.GetMoreResults()
		if !moreInRegion || finished {
			if s.pending != nil {
				rows = append(rows, *s.pending)
				s.pending = nil
			}
		} else {
			next = s.send(ctx, &pb.ScanRequest{ScannerId: proto.Uint64(s.id), NumberOfRows: sc.Caching,
				NextCallSeq: proto.Uint64(s.seq), ClientHandlesPartials: proto.Bool(true),
				ClientHandlesHeartbeats: proto.Bool(true)})
			s.seq++
		}
		if err := s.deliver(ctx, rows, cur, next); err != nil {
			return false, err
		}
		if finished {
			return true, nil
		}
		if !moreInRegion {
			return len(region.End) == 0 || (len(s.opts.Stop) > 0 && bytes.Compare(region.End, s.opts.Stop) >= 0), nil
		}
	}
}

// inflight is a scan call under way; resp, cells and err are set when done
// is closed.
type inflight struct {
	done  chan struct{}
	resp  *pb.ScanResponse
	cells []byte
	err   error
	noted bool
}

func (s *scanner) send(ctx context.Context, req *pb.ScanRequest) *inflight {
	f := &inflight{done: make(chan struct{}), resp: &pb.ScanResponse{}}
	go func() {
		defer close(f.done)
		f.cells, f.err = s.callScan(ctx, req, f.resp)
	}()
	return f
}

// noteReply records what a finished call says about the scanner.
func (s *scanner) noteReply(f *inflight) error {
	if f.noted {
		return f.err
	}
	f.noted = true
	if f.err != nil {
		s.open = false // the server closes a scanner that failed
		return f.err
	}
	s.stats.Calls++
	s.stats.Bytes += int64(len(f.cells))
	resp := f.resp
	if resp.ScannerId != nil {
		s.id, s.open = resp.GetScannerId(), true
		if resp.GetTtl() > 0 {
			s.ttl = time.Duration(resp.GetTtl()) * time.Millisecond
		}
	}
	if !resp.GetMoreResultsInRegion() || (resp.MoreResults != nil && !resp.GetMoreResults()) {
		s.open = false // the server closed it
	}
	return nil
}

func (s *scanner) callScan(ctx context.Context, req *pb.ScanRequest, resp *pb.ScanResponse) ([]byte, error) {
	release, err := s.c.serverSlot(ctx, s.region.Server)
	if err != nil {
		return nil, err
	}
	defer release()
	return s.c.call(ctx, s.region.Server, ClientService, "Scan", req, resp)
}

// assemble turns a scan response into complete rows, holding back a row the
// server cut (partial) until its remaining cells arrive.
func (s *scanner) assemble(resp *pb.ScanResponse, block []byte) ([]Row, error) {
	type result struct {
		cells   []Cell
		partial bool
	}
	var results []result
	if counts := resp.GetCellsPerResult(); len(counts) > 0 {
		all, err := DecodeCellBlock(block, make([]Cell, 0, 4*len(counts)))
		if err != nil {
			return nil, err
		}
		flags := resp.GetPartialFlagPerResult()
		results = make([]result, 0, len(counts))
		off := 0
		for i, n := range counts {
			if off+int(n) > len(all) {
				return nil, fmt.Errorf("%w: scan response announces %d cells, block has %d", ErrProtocol, off+int(n), len(all))
			}
			results = append(results, result{all[off : off+int(n) : off+int(n)], i < len(flags) && flags[i]})
			off += int(n)
		}
	} else {
		for _, r := range resp.GetResults() {
			results = append(results, result{cellsFromPB(r.GetCell()), r.GetPartial()})
		}
	}
	rows := make([]Row, 0, len(results))
	for _, r := range results {
		if len(r.cells) == 0 {
			continue
		}
		key := r.cells[0].Row
		if s.pending != nil && !bytes.Equal(s.pending.Key, key) {
			rows = append(rows, *s.pending)
			s.pending = nil
		}
		if s.pending != nil {
			s.pending.Cells = append(s.pending.Cells, r.cells...)
		} else {
			s.pending = &Row{Key: key, Cells: r.cells}
		}
		if !r.partial {
			rows = append(rows, *s.pending)
			s.pending = nil
		}
	}
	return rows, nil
}

// deliver hands rows to the callback, keeping the scanner lease alive while
// it runs, and moves the cursor past the last row. A prefetch call in flight
// renews the lease itself; renewals start once it is back.
func (s *scanner) deliver(ctx context.Context, rows []Row, cur *cursor, prefetch *inflight) error {
	if len(rows) == 0 {
		return nil
	}
	stopRenew := s.renewWhile(ctx, prefetch)
	err := s.fn(rows)
	stopRenew()
	if err != nil {
		return errStop{err}
	}
	s.stats.Rows += int64(len(rows))
	s.progressed = true
	cur.pos, cur.inclusive = rows[len(rows)-1].Key, false
	return nil
}

// renewWhile renews the scanner's lease every half lease period until the
// returned func is called (which waits for a renewal in flight). With a
// prefetch under way it starts after the prefetch returned, and only if the
// scanner is still open then.
func (s *scanner) renewWhile(ctx context.Context, prefetch *inflight) func() {
	if prefetch == nil || s.ttl <= 0 {
		return func() {} // no open scanner to keep
	}
	id, server, ttl := s.id, s.region.Server, s.ttl
	stop, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case <-prefetch.done:
		case <-stop:
			return
		}
		r := prefetch.resp
		if prefetch.err != nil || !r.GetMoreResultsInRegion() {
			return
		}
		t := time.NewTicker(ttl / 2)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			req := &pb.ScanRequest{ScannerId: proto.Uint64(id), Renew: proto.Bool(true), NumberOfRows: proto.Uint32(0)}
			if _, err := s.c.call(ctx, server, ClientService, "Scan", req, nil); err != nil {
				s.c.cfg.Logger.Debug("hbase scanner lease renewal failed", "server", server, "err", err)
			}
		}
	}()
	return func() {
		close(stop)
		<-finished
	}
}

// closeScanner releases the server-side scanner, best effort.
func (s *scanner) closeScanner() {
	s.open = false
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req := &pb.ScanRequest{ScannerId: proto.Uint64(s.id), CloseScanner: proto.Bool(true), NumberOfRows: proto.Uint32(0)}
	_, _ = s.c.call(ctx, s.region.Server, ClientService, "Scan", req, nil)
}

func cellsFromPB(cs []*pb.Cell) []Cell {
	out := make([]Cell, len(cs))
	for i, c := range cs {
		out[i] = Cell{Row: c.GetRow(), Family: c.GetFamily(), Qualifier: c.GetQualifier(),
			Timestamp: c.GetTimestamp(), Type: byte(c.GetCellType()), Value: c.GetValue()}
	}
	return out
}
