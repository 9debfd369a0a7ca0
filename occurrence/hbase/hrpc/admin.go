package hrpc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc/pb"
)

// Table administration through the master's MasterService. Master
// operations run as procedures; these calls wait for them to finish.

// CreateTable creates table with the given column families, pre-split at
// splitKeys (sorted, distinct, non-empty), keeping one version per cell.
func (c *Client) CreateTable(ctx context.Context, table string, families []string, splitKeys [][]byte) error {
	schema := &pb.TableSchema{TableName: tableNamePB(table)}
	for _, f := range families {
		schema.ColumnFamilies = append(schema.ColumnFamilies, &pb.ColumnFamilySchema{
			Name: []byte(f),
			Attributes: []*pb.BytesBytesPair{
				{First: []byte("VERSIONS"), Second: []byte("1")},
			},
		})
	}
	var resp pb.CreateTableResponse
	req := &pb.CreateTableRequest{TableSchema: schema, SplitKeys: splitKeys}
	if _, err := c.masterCall(ctx, "CreateTable", req, &resp); err != nil {
		return fmt.Errorf("hbase: create table %s: %w", table, err)
	}
	if err := c.waitProcedure(ctx, resp.GetProcId()); err != nil {
		return fmt.Errorf("hbase: create table %s: %w", table, err)
	}
	_, err := c.RefreshRegions(ctx, table)
	return err
}

// DisableTable disables table (required before deleting it).
func (c *Client) DisableTable(ctx context.Context, table string) error {
	var resp pb.DisableTableResponse
	if _, err := c.masterCall(ctx, "DisableTable", &pb.DisableTableRequest{TableName: tableNamePB(table)}, &resp); err != nil {
		return fmt.Errorf("hbase: disable table %s: %w", table, err)
	}
	if err := c.waitProcedure(ctx, resp.GetProcId()); err != nil {
		return fmt.Errorf("hbase: disable table %s: %w", table, err)
	}
	return nil
}

// DeleteTable deletes a disabled table.
func (c *Client) DeleteTable(ctx context.Context, table string) error {
	var resp pb.DeleteTableResponse
	if _, err := c.masterCall(ctx, "DeleteTable", &pb.DeleteTableRequest{TableName: tableNamePB(table)}, &resp); err != nil {
		return fmt.Errorf("hbase: delete table %s: %w", table, err)
	}
	if err := c.waitProcedure(ctx, resp.GetProcId()); err != nil {
		return fmt.Errorf("hbase: delete table %s: %w", table, err)
	}
	c.forgetRegions(table)
	return nil
}

// DropTable disables (if needed) and deletes table; a missing table is not
// an error.
func (c *Client) DropTable(ctx context.Context, table string) error {
	err := c.DisableTable(ctx, table)
	if err != nil && !errors.Is(err, ErrTableNotEnabled) {
		if errors.Is(err, ErrTableNotFound) {
			return nil
		}
		return err
	}
	return c.DeleteTable(ctx, table)
}

// TableExists reports whether table exists.
func (c *Client) TableExists(ctx context.Context, table string) (bool, error) {
	var resp pb.GetTableStateResponse
	_, err := c.masterCall(ctx, "GetTableState", &pb.GetTableStateRequest{TableName: tableNamePB(table)}, &resp)
	if errors.Is(err, ErrTableNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("hbase: table state of %s: %w", table, err)
	}
	return true, nil
}

// SplitRegion asks the master to split region at splitRow and waits until
// the split procedure finished.
func (c *Client) SplitRegion(ctx context.Context, region *Region, splitRow []byte) error {
	var resp pb.SplitTableRegionResponse
	req := &pb.SplitTableRegionRequest{RegionInfo: region.info, SplitRow: splitRow}
	if _, err := c.masterCall(ctx, "SplitRegion", req, &resp); err != nil {
		return fmt.Errorf("hbase: split region %s: %w", region.EncodedName(), err)
	}
	if err := c.waitProcedure(ctx, resp.GetProcId()); err != nil {
		return fmt.Errorf("hbase: split region %s: %w", region.EncodedName(), err)
	}
	c.forgetRegions(region.Table)
	return nil
}

// MoveRegion asks the master to move region to another server (dest as
// "host,port,startcode"-less host:port plus start code; zero dest lets the
// master choose). It returns once the master accepted the move.
func (c *Client) MoveRegion(ctx context.Context, region *Region, destHost string, destPort uint32, destStartCode uint64) error {
	req := &pb.MoveRegionRequest{Region: &pb.RegionSpecifier{
		Type: pb.RegionSpecifier_ENCODED_REGION_NAME.Enum(), Value: []byte(region.EncodedName())}}
	if destHost != "" {
		req.DestServerName = &pb.ServerName{HostName: proto.String(destHost), Port: proto.Uint32(destPort),
			StartCode: proto.Uint64(destStartCode)}
	}
	if _, err := c.masterCall(ctx, "MoveRegion", req, &pb.MoveRegionResponse{}); err != nil {
		return fmt.Errorf("hbase: move region %s: %w", region.EncodedName(), err)
	}
	c.forgetRegions(region.Table)
	return nil
}

func (c *Client) masterCall(ctx context.Context, method string, req, resp proto.Message) ([]byte, error) {
	var cells []byte
	err := c.retry(ctx, method, "", func(ctx context.Context) error {
		var err error
		cells, err = c.call(ctx, c.cfg.Master, MasterService, method, req, resp)
		if err != nil && regionStale(err) && !errors.Is(err, ErrConnection) {
			return fmt.Errorf("%w (%v)", ErrServerBusy, err)
		}
		return err
	})
	return cells, err
}

// waitProcedure polls the master until procedure id finished.
func (c *Client) waitProcedure(ctx context.Context, id uint64) error {
	if id == 0 {
		return nil
	}
	bo := backoff{d: 20 * time.Millisecond, max: 500 * time.Millisecond}
	for {
		var resp pb.GetProcedureResultResponse
		if _, err := c.masterCall(ctx, "getProcedureResult", &pb.GetProcedureResultRequest{ProcId: proto.Uint64(id)}, &resp); err != nil {
			return err
		}
		switch resp.GetState() {
		case pb.GetProcedureResultResponse_FINISHED:
			if ex := resp.GetException(); ex != nil {
				g := ex.GetGenericException()
				return newRemoteError(g.GetClassName(), g.GetMessage(), c.cfg.Master, true)
			}
			return nil
		case pb.GetProcedureResultResponse_NOT_FOUND:
			return fmt.Errorf("%w: procedure %d not found on master", ErrRemote, id)
		}
		if err := bo.wait(ctx); err != nil {
			return err
		}
	}
}

// FlushTable flushes the memstores of every region of table to HFiles (on
// the region servers' AdminService).
func (c *Client) FlushTable(ctx context.Context, table string) error {
	rs, err := c.RefreshRegions(ctx, table)
	if err != nil {
		return err
	}
	for _, r := range rs {
		req := &pb.FlushRegionRequest{Region: r.spec()}
		if _, err := c.call(ctx, r.Server, AdminService, "FlushRegion", req, &pb.FlushRegionResponse{}); err != nil {
			return fmt.Errorf("hbase: flush region %s: %w", r.EncodedName(), err)
		}
	}
	return nil
}
