package hrpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc/pb"
)

// Config configures a Client. Zero fields take the defaults noted.
type Config struct {
	// Master is the host:port of the active HBase master (required).
	Master string
	// User is the effective user sent to the servers (default "downloader").
	User string
	// CallTimeout bounds one RPC when the caller's context has no earlier
	// deadline (default 60s).
	CallTimeout time.Duration
	// OperationTimeout bounds the retries of one operation (relocating a
	// region, reopening a scanner, waiting for a busy server) (default 2m).
	OperationTimeout time.Duration
	// ScansPerServer bounds the scanner calls in flight per region server
	// (default 4).
	ScansPerServer int
	// Logger receives warnings; nil discards.
	Logger *slog.Logger

	// frameTap, when set, sees every response frame of every connection
	// the client dials. Only this package's tests set it.
	frameTap func(frame []byte)
}

func (c *Config) fill() {
	if c.User == "" {
		c.User = "downloader"
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = 60 * time.Second
	}
	if c.OperationTimeout <= 0 {
		c.OperationTimeout = 2 * time.Minute
	}
	if c.ScansPerServer <= 0 {
		c.ScansPerServer = 4
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

type connKey struct {
	addr    string
	service Service
}

// Client talks to one HBase cluster: it finds regions through hbase:meta
// (located via the master's ClientMetaService), caches them, and retries
// operations whose region moved, split or whose server was busy.
type Client struct {
	cfg Config

	mu      sync.Mutex
	conns   map[connKey]*connSlot
	regions map[string][]*Region // sorted region lists by table
	meta    *Region
	sems    map[string]chan struct{} // scanner call slots per server
}

// connSlot lets one goroutine dial while others wait for the result.
type connSlot struct {
	ready chan struct{}
	conn  *Conn
	err   error
}

// New returns a client for the cluster whose master is cfg.Master. It does
// not connect until the first call.
func New(cfg Config) (*Client, error) {
	cfg.fill()
	if cfg.Master == "" {
		return nil, errors.New("hbase: Config.Master is empty")
	}
	return &Client{cfg: cfg, conns: make(map[connKey]*connSlot),
		regions: make(map[string][]*Region), sems: make(map[string]chan struct{})}, nil
}

// Close closes every connection.
func (c *Client) Close() error {
	c.mu.Lock()
	slots := c.conns
	c.conns = make(map[connKey]*connSlot)
	c.mu.Unlock()
	for _, s := range slots {
		<-s.ready
		if s.conn != nil {
			s.conn.Close()
		}
	}
	return nil
}

// conn returns a live connection to addr for service, dialing if needed.
// Concurrent callers share one dial.
func (c *Client) conn(ctx context.Context, addr string, service Service) (*Conn, error) {
	key := connKey{addr, service}
	for {
		c.mu.Lock()
		s, ok := c.conns[key]
		if !ok {
			s = &connSlot{ready: make(chan struct{})}
			c.conns[key] = s
			c.mu.Unlock()
			dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			s.conn, s.err = dial(dctx, addr, service, c.cfg.User, c.cfg.frameTap)
			cancel()
			close(s.ready)
			if s.err != nil {
				c.dropSlot(key, s)
				return nil, s.err
			}
			return s.conn, nil
		}
		c.mu.Unlock()
		select {
		case <-s.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if s.err != nil {
			return nil, s.err
		}
		if s.conn.Err() == nil {
			return s.conn, nil
		}
		c.dropSlot(key, s) // dead connection: dial again
	}
}

func (c *Client) dropSlot(key connKey, s *connSlot) {
	c.mu.Lock()
	if c.conns[key] == s {
		delete(c.conns, key)
	}
	c.mu.Unlock()
}

// call performs one RPC with the client's call timeout.
func (c *Client) call(ctx context.Context, addr string, service Service, method string, req, resp proto.Message) ([]byte, error) {
	cctx, cancel := context.WithTimeout(ctx, c.cfg.CallTimeout)
	defer cancel()
	conn, err := c.conn(cctx, addr, service)
	if err != nil {
		return nil, err
	}
	cells, err := conn.Call(cctx, method, req, resp)
	if err != nil && ctx.Err() == nil && isTimeout(err) {
		// The call, not the caller, timed out: the server is unresponsive.
		conn.fail(fmt.Errorf("%w: %s: %s timed out after %s", ErrConnection, addr, method, c.cfg.CallTimeout))
		return nil, fmt.Errorf("%w: %s: %s timed out after %s", ErrConnection, addr, method, c.cfg.CallTimeout)
	}
	return cells, err
}

// retry runs fn until it succeeds, fails for good, or the operation timeout
// passes. Between attempts it backs off, and forgets the table's regions when
// the error says they are stale.
func (c *Client) retry(ctx context.Context, op, table string, fn func(ctx context.Context) error) error {
	start := time.Now()
	bo := backoff{d: firstBackoff, max: 2 * time.Second}
	for attempt := 1; ; attempt++ {
		err := fn(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("hbase: %s %s: %w", op, table, ctx.Err())
		}
		if !Retryable(err) {
			return fmt.Errorf("hbase: %s %s: %w", op, table, err)
		}
		if regionStale(err) {
			c.forgetRegions(table)
		}
		if time.Since(start)+bo.d > c.cfg.OperationTimeout {
			return fmt.Errorf("hbase: %s %s: gave up after %d attempts in %s: %w", op, table, attempt, time.Since(start).Round(time.Millisecond), err)
		}
		c.cfg.Logger.Debug("hbase retry", "op", op, "table", table, "attempt", attempt, "err", err)
		if err := bo.wait(ctx); err != nil {
			return fmt.Errorf("hbase: %s %s: %w", op, table, err)
		}
	}
}

// firstBackoff is the first wait between two attempts of an operation.
const firstBackoff = 50 * time.Millisecond

// backoff is a doubling wait between attempts, up to max.
type backoff struct{ d, max time.Duration }

// wait sleeps for the current delay, unless ctx ends first, and doubles it.
func (b *backoff) wait(ctx context.Context) error {
	select {
	case <-time.After(b.d):
	case <-ctx.Done():
		return ctx.Err()
	}
	b.d = min(b.d*2, b.max)
	return nil
}

func (c *Client) forgetRegions(table string) {
	c.mu.Lock()
	delete(c.regions, table)
	c.meta = nil
	c.mu.Unlock()
}

// metaRegion returns the location of hbase:meta from the master.
func (c *Client) metaRegion(ctx context.Context) (*Region, error) {
	c.mu.Lock()
	m := c.meta
	c.mu.Unlock()
	if m != nil {
		return m, nil
	}
	var resp pb.GetMetaRegionLocationsResponse
	if _, err := c.call(ctx, c.cfg.Master, ClientMetaService, "GetMetaRegionLocations", &pb.GetMetaRegionLocationsRequest{}, &resp); err != nil {
		return nil, fmt.Errorf("locate hbase:meta via master %s: %w", c.cfg.Master, err)
	}
	for _, loc := range resp.GetMetaLocations() {
		ri := loc.GetRegionInfo()
		if ri.GetReplicaId() != 0 || loc.GetServerName() == nil {
			continue
		}
		sn := loc.GetServerName()
		m = &Region{Table: MetaTable, Start: ri.GetStartKey(), End: ri.GetEndKey(),
			Name:   []byte(MetaTable + ",," + strconv.FormatUint(ri.GetRegionId(), 10)),
			Server: sn.GetHostName() + ":" + strconv.Itoa(int(sn.GetPort())), info: ri}
		c.mu.Lock()
		c.meta = m
		c.mu.Unlock()
		return m, nil
	}
	return nil, fmt.Errorf("%w: master %s knows no hbase:meta location", ErrRegionsInTransition, c.cfg.Master)
}

// Regions returns the table's regions sorted by start key, from the cache or
// from hbase:meta. It fails with ErrRegionsInTransition while meta shows a
// hole (mid-split) or an unassigned region.
func (c *Client) Regions(ctx context.Context, table string) ([]*Region, error) {
	c.mu.Lock()
	rs, ok := c.regions[table]
	c.mu.Unlock()
	if ok {
		return rs, nil
	}
	rs, err := c.loadRegions(ctx, table)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.regions[table] = rs
	c.mu.Unlock()
	return rs, nil
}

// RefreshRegions reads the table's regions from hbase:meta, retrying while
// regions are in transition.
func (c *Client) RefreshRegions(ctx context.Context, table string) ([]*Region, error) {
	c.forgetRegions(table)
	var rs []*Region
	err := c.retry(ctx, "locate regions of", table, func(ctx context.Context) error {
		var err error
		rs, err = c.Regions(ctx, table)
		return err
	})
	return rs, err
}

func (c *Client) loadRegions(ctx context.Context, table string) ([]*Region, error) {
	meta, err := c.metaRegion(ctx)
	if err != nil {
		return nil, err
	}
	var regions []*Region
	// hbase:meta sorts rows by (table, start key, region id), not as plain
	// bytes: "t,," is before the table's first region, "t ,," after its last.
	opts := ScanOptions{Start: []byte(table + ",,"), Stop: []byte(table + " ,,"), Caching: 10000, CacheBlocks: true}
	err = c.scanRegionOnce(ctx, meta, opts, func(rows []Row) error {
		for _, row := range rows {
			r, err := regionFromMetaRow(table, row)
			if err != nil {
				return err
			}
			if r != nil {
				regions = append(regions, r)
			}
		}
		return nil
	})
	if err != nil {
		if regionStale(err) {
			c.mu.Lock()
			c.meta = nil
			c.mu.Unlock()
		}
		return nil, fmt.Errorf("read hbase:meta for %s: %w", table, err)
	}
	if err := checkCoverage(table, regions); err != nil {
		return nil, err
	}
	return regions, nil
}

// Locate returns the region of table holding row.
func (c *Client) Locate(ctx context.Context, table string, row []byte) (*Region, error) {
	rs, err := c.Regions(ctx, table)
	if err != nil {
		return nil, err
	}
	if r := findRegion(rs, row); r != nil {
		return r, nil
	}
	return nil, fmt.Errorf("%w: table %s: no region for row %q", ErrRegionsInTransition, table, row)
}

// serverSlot takes a scanner call slot of a server; release it with the
// returned func.
func (c *Client) serverSlot(ctx context.Context, addr string) (func(), error) {
	c.mu.Lock()
	sem, ok := c.sems[addr]
	if !ok {
		sem = make(chan struct{}, c.cfg.ScansPerServer)
		c.sems[addr] = sem
	}
	c.mu.Unlock()
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
