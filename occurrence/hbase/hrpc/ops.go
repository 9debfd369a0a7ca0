package hrpc

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc/pb"
)

// Mutation is a put or a delete of one row.
type Mutation struct {
	Row []byte
	// Cells to put (Family, Qualifier, Value; Timestamp 0 means server time).
	// For a delete, cells name what to delete: a cell without qualifier
	// deletes its whole family, one with a qualifier all versions of that
	// column; no cells deletes the whole row.
	Cells  []Cell
	Delete bool
	// SkipWAL trades durability for ingest speed (data since the last flush
	// is lost if the region server dies).
	SkipWAL bool
	// AsyncWAL writes the WAL without waiting for its sync: the mutation is
	// durable once a later synced mutation of the same region has returned.
	AsyncWAL bool
}

func (m *Mutation) pb() *pb.MutationProto {
	mp := &pb.MutationProto{Row: m.Row}
	switch {
	case m.SkipWAL:
		mp.Durability = pb.MutationProto_SKIP_WAL.Enum()
	case m.AsyncWAL:
		mp.Durability = pb.MutationProto_ASYNC_WAL.Enum()
	}
	if m.Delete {
		mp.MutateType = pb.MutationProto_DELETE.Enum()
	} else {
		mp.MutateType = pb.MutationProto_PUT.Enum()
	}
	var last *pb.MutationProto_ColumnValue
	for _, c := range m.Cells {
		if last == nil || string(last.Family) != string(c.Family) {
			last = &pb.MutationProto_ColumnValue{Family: c.Family}
			mp.ColumnValue = append(mp.ColumnValue, last)
		}
		qv := &pb.MutationProto_ColumnValue_QualifierValue{Qualifier: c.Qualifier}
		switch {
		case !m.Delete:
			qv.Value = c.Value
			if c.Timestamp != 0 {
				qv.Timestamp = proto.Uint64(c.Timestamp)
			}
		case c.Qualifier == nil:
			qv.DeleteType = pb.MutationProto_DELETE_FAMILY.Enum()
		default:
			qv.DeleteType = pb.MutationProto_DELETE_MULTIPLE_VERSIONS.Enum()
		}
		last.QualifierValue = append(last.QualifierValue, qv)
	}
	return mp
}

// Get reads one row (nil when it does not exist).
func (c *Client) Get(ctx context.Context, table string, row []byte, columns ...Column) (*Row, error) {
	var out *Row
	err := c.retry(ctx, "get from", table, func(ctx context.Context) error {
		region, err := c.Locate(ctx, table, row)
		if err != nil {
			return err
		}
		g := &pb.Get{Row: row}
		for _, col := range columns {
			g.Column = append(g.Column, &pb.Column{Family: col.Family, Qualifier: col.Qualifiers})
		}
		var resp pb.GetResponse
		block, err := c.call(ctx, region.Server, ClientService, "Get", &pb.GetRequest{Region: region.spec(), Get: g}, &resp)
		if err != nil {
			return err
		}
		cells, err := resultCells(resp.GetResult(), block)
		if err != nil {
			return err
		}
		out = nil
		if len(cells) > 0 {
			out = &Row{Key: row, Cells: cells}
		}
		return nil
	})
	return out, err
}

// resultCells returns a Result's cells, from the cell block when the server
// sent them there.
func resultCells(r *pb.Result, block []byte) ([]Cell, error) {
	if r == nil {
		return nil, nil
	}
	if n := r.GetAssociatedCellCount(); n > 0 {
		cells, err := DecodeCellBlock(block, make([]Cell, 0, n))
		if err != nil {
			return nil, err
		}
		if len(cells) != int(n) {
			return nil, fmt.Errorf("%w: result announces %d cells, block has %d", ErrProtocol, n, len(cells))
		}
		return cells, nil
	}
	return cellsFromPB(r.GetCell()), nil
}

// Put writes one row.
func (c *Client) Put(ctx context.Context, table string, m *Mutation) error {
	return c.retry(ctx, "put to", table, func(ctx context.Context) error {
		region, err := c.Locate(ctx, table, m.Row)
		if err != nil {
			return err
		}
		req := &pb.MutateRequest{Region: region.spec(), Mutation: m.pb()}
		_, err = c.call(ctx, region.Server, ClientService, "Mutate", req, &pb.MutateResponse{})
		return err
	})
}

// Apply writes a batch of mutations with Multi calls: grouped per region,
// one call per region server, servers in parallel. Mutations that failed
// because their region moved or was busy are retried until the operation
// timeout. The order of mutations of different rows is not kept.
func (c *Client) Apply(ctx context.Context, table string, muts []*Mutation) error {
	return c.batch(ctx, "write to", table, len(muts), func(i int) []byte { return muts[i].Row },
		func(ctx context.Context, server string, b *serverBatch) ([]int, error) {
			return c.multi(ctx, server, b, muts)
		})
}

type serverBatch struct {
	regions []*Region
	actions [][]int // operation indexes per region
}

// multi sends one server's batch; it returns the indexes that failed with a
// retryable error, and the first error seen (retryable or not).
func (c *Client) multi(ctx context.Context, server string, b *serverBatch, muts []*Mutation) ([]int, error) {
	req := &pb.MultiRequest{}
	for k, r := range b.regions {
		ra := &pb.RegionAction{Region: r.spec()}
		for _, i := range b.actions[k] {
			ra.Action = append(ra.Action, &pb.Action{Index: proto.Uint32(uint32(i)), Mutation: muts[i].pb()})
		}
		req.RegionAction = append(req.RegionAction, ra)
	}
	var resp pb.MultiResponse
	if _, err := c.call(ctx, server, ClientService, "Multi", req, &resp); err != nil {
		var all []int
		for _, a := range b.actions {
			all = append(all, a...)
		}
		return all, err
	}
	var f failures
	note := f.note
	results := resp.GetRegionActionResult()
	for k, a := range b.actions {
		if k >= len(results) {
			note(a, fmt.Errorf("%w: multi response lacks region %d", ErrProtocol, k))
			continue
		}
		rar := results[k]
		if ex := rar.GetException(); ex != nil {
			note(a, newRemoteError(ex.GetName(), string(ex.GetValue()), server, false))
			continue
		}
		for _, roe := range rar.GetResultOrException() {
			if ex := roe.GetException(); ex != nil {
				note([]int{int(roe.GetIndex())}, newRemoteError(ex.GetName(), string(ex.GetValue()), server, false))
			}
		}
	}
	return f.failed, f.first
}
