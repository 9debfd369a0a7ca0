package hrpc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc/pb"
)

// Increment adds delta to the 8-byte big-endian counter in
// family:qualifier of row (a missing cell counts as 0) atomically on the
// region server, and returns the new value. A call whose outcome is
// unknown (the connection failed after sending it) is retried, so a
// counter may move by more than delta: callers that hand out ranges of it
// skip numbers then, never repeat them.
func (c *Client) Increment(ctx context.Context, table string, row, family, qualifier []byte, delta int64) (int64, error) {
	var out int64
	err := c.retry(ctx, "increment in", table, func(ctx context.Context) error {
		region, err := c.Locate(ctx, table, row)
		if err != nil {
			return err
		}
		m := &pb.MutationProto{Row: row, MutateType: pb.MutationProto_INCREMENT.Enum(),
			ColumnValue: []*pb.MutationProto_ColumnValue{{Family: family,
				QualifierValue: []*pb.MutationProto_ColumnValue_QualifierValue{{
					Qualifier: qualifier, Value: binary.BigEndian.AppendUint64(nil, uint64(delta))}}}}}
		var resp pb.MutateResponse
		block, err := c.call(ctx, region.Server, ClientService, "Mutate", &pb.MutateRequest{Region: region.spec(), Mutation: m}, &resp)
		if err != nil {
			return err
		}
		cells, err := resultCells(resp.GetResult(), block)
		if err != nil {
			return err
		}
		for _, cell := range cells {
			if string(cell.Family) == string(family) && string(cell.Qualifier) == string(qualifier) && len(cell.Value) == 8 {
				out = int64(binary.BigEndian.Uint64(cell.Value))
				return nil
			}
		}
		return fmt.Errorf("%w: increment of %q returned no 8-byte counter", ErrProtocol, row)
	})
	return out, err
}

// CheckAndPut is a put that happens only if its row's cell Family:Qualifier
// holds Value, or, when Value is empty, only if the row has no such cell
// (HBase's checkAndMutate, atomic per row).
type CheckAndPut struct {
	Put               *Mutation
	Family, Qualifier []byte
	Value             []byte
}

// absentComparator is the comparator of a check for a missing cell (an
// empty value), encoded once.
var absentComparator = sync.OnceValues(func() (*pb.Comparator, error) { return BinaryComparator(nil).comparatorPB() })

func (p *CheckAndPut) condition() (*pb.Condition, error) {
	var cmp *pb.Comparator
	var err error
	if len(p.Value) == 0 {
		cmp, err = absentComparator()
	} else {
		cmp, err = BinaryComparator(p.Value).comparatorPB()
	}
	if err != nil {
		return nil, err
	}
	return &pb.Condition{Row: p.Put.Row, Family: p.Family, Qualifier: p.Qualifier,
		CompareType: pb.CompareType_EQUAL.Enum(), Comparator: cmp}, nil
}

// CheckAndPutAll runs the conditional puts in batches (Multi calls of one
// conditional region action each, grouped per region server, servers in
// parallel; needs HBase 2.4 or later) and reports which puts happened.
// A server runs the conditional actions of one call one after another, so
// a server's puts go in several concurrent calls of at most checkPerCall.
// Puts that failed because their region moved or was busy are retried; a
// put whose outcome is unknown (a failed connection) is retried too, and
// then reports false if the first attempt did write: read the row to tell.
func (c *Client) CheckAndPutAll(ctx context.Context, table string, puts []CheckAndPut) ([]bool, error) {
	done := make([]bool, len(puts))
	var mu sync.Mutex
	err := c.batch(ctx, "check and put to", table, len(puts), func(i int) []byte { return puts[i].Put.Row },
		func(ctx context.Context, server string, b *serverBatch) ([]int, error) {
			type action struct {
				region *Region
				put    int
			}
			var all []action
			for k, r := range b.regions {
				for _, i := range b.actions[k] {
					all = append(all, action{r, i})
				}
			}
			var (
				f  failures
				wg sync.WaitGroup
			)
			for lo := 0; lo < len(all); lo += checkPerCall {
				part := all[lo:min(lo+checkPerCall, len(all))]
				wg.Add(1)
				go func() {
					defer wg.Done()
					order := make([]int, len(part))
					req := &pb.MultiRequest{}
					for k, a := range part {
						order[k] = a.put
						cond, err := puts[a.put].condition()
						if err != nil {
							mu.Lock()
							f.note(order, err)
							mu.Unlock()
							return
						}
						req.RegionAction = append(req.RegionAction, &pb.RegionAction{Region: a.region.spec(), Condition: cond,
							Action: []*pb.Action{{Index: proto.Uint32(0), Mutation: puts[a.put].Put.pb()}}})
					}
					var resp pb.MultiResponse
					_, err := c.call(ctx, server, ClientService, "Multi", req, &resp)
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						f.note(order, err)
						return
					}
					results := resp.GetRegionActionResult()
					for k, i := range order {
						var ex *pb.NameBytesPair
						switch {
						case k >= len(results):
							f.note([]int{i}, fmt.Errorf("%w: multi response lacks region action %d", ErrProtocol, k))
							continue
						case results[k].GetException() != nil:
							ex = results[k].GetException()
						case len(results[k].GetResultOrException()) > 0:
							ex = results[k].GetResultOrException()[0].GetException()
						}
						if ex != nil {
							f.note([]int{i}, newRemoteError(ex.GetName(), string(ex.GetValue()), server, false))
							continue
						}
						done[i] = results[k].GetProcessed()
					}
				}()
			}
			wg.Wait()
			return f.failed, f.first
		})
	return done, err
}

// checkPerCall is the most conditional puts CheckAndPutAll sends a server
// in one call.
const checkPerCall = 32

// GetRows reads rows in batches (Multi calls of gets, grouped per region
// server, servers in parallel); the row of a key that does not exist is nil.
func (c *Client) GetRows(ctx context.Context, table string, keys [][]byte, columns ...Column) ([]*Row, error) {
	out := make([]*Row, len(keys))
	var cols []*pb.Column
	for _, col := range columns {
		cols = append(cols, &pb.Column{Family: col.Family, Qualifier: col.Qualifiers})
	}
	var mu sync.Mutex
	err := c.batch(ctx, "get from", table, len(keys), func(i int) []byte { return keys[i] },
		func(ctx context.Context, server string, b *serverBatch) ([]int, error) {
			req := &pb.MultiRequest{}
			for k, r := range b.regions {
				ra := &pb.RegionAction{Region: r.spec()}
				for _, i := range b.actions[k] {
					ra.Action = append(ra.Action, &pb.Action{Index: proto.Uint32(uint32(i)), Get: &pb.Get{Row: keys[i], Column: cols}})
				}
				req.RegionAction = append(req.RegionAction, ra)
			}
			var resp pb.MultiResponse
			block, err := c.call(ctx, server, ClientService, "Multi", req, &resp)
			if err != nil {
				var all []int
				for _, a := range b.actions {
					all = append(all, a...)
				}
				return all, err
			}
			// The cell block holds the cells of every result in response order.
			cells, err := DecodeCellBlock(block, nil)
			if err != nil {
				return nil, err
			}
			var f failures
			results := resp.GetRegionActionResult()
			for k, a := range b.actions {
				if k >= len(results) {
					f.note(a, fmt.Errorf("%w: multi response lacks region %d", ErrProtocol, k))
					continue
				}
				rar := results[k]
				if ex := rar.GetException(); ex != nil {
					f.note(a, newRemoteError(ex.GetName(), string(ex.GetValue()), server, false))
					continue
				}
				for _, roe := range rar.GetResultOrException() {
					i := int(roe.GetIndex())
					if ex := roe.GetException(); ex != nil {
						f.note([]int{i}, newRemoteError(ex.GetName(), string(ex.GetValue()), server, false))
						continue
					}
					if i >= len(keys) {
						return nil, fmt.Errorf("%w: multi result for action %d of %d", ErrProtocol, i, len(keys))
					}
					var rc []Cell
					if n := int(roe.GetResult().GetAssociatedCellCount()); n > 0 {
						if n > len(cells) {
							return nil, fmt.Errorf("%w: results announce more cells than the block holds", ErrProtocol)
						}
						rc, cells = cells[:n:n], cells[n:]
					} else {
						rc = cellsFromPB(roe.GetResult().GetCell())
					}
					mu.Lock()
					out[i] = nil
					if len(rc) > 0 {
						out[i] = &Row{Key: keys[i], Cells: rc}
					}
					mu.Unlock()
				}
			}
			return f.failed, f.first
		})
	return out, err
}

// failures collects the indexes of a Multi call that failed and the error
// to report: the first one, or the first that cannot be retried.
type failures struct {
	failed []int
	first  error
}

func (f *failures) note(idx []int, err error) {
	f.failed = append(f.failed, idx...)
	if f.first == nil || (Retryable(f.first) && !Retryable(err)) {
		f.first = err
	}
}

// batch runs n operations on the rows row(i): grouped per region and
// region server, one send per server, servers in parallel; send returns
// the indexes to retry (their region moved, the server was busy) and the
// first error. Retries go on until the operation timeout.
func (c *Client) batch(ctx context.Context, op, table string, n int, row func(i int) []byte,
	send func(ctx context.Context, server string, b *serverBatch) ([]int, error)) error {
	pending := make([]int, n)
	for i := range pending {
		pending[i] = i
	}
	return c.retry(ctx, op, table, func(ctx context.Context) error {
		byServer, err := c.groupByServer(ctx, table, row, pending)
		if err != nil {
			return err
		}
		var (
			mu     sync.Mutex
			failed []int
			errs   []error
			wg     sync.WaitGroup
		)
		for server, b := range byServer {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f, err := send(ctx, server, b)
				mu.Lock()
				failed = append(failed, f...)
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		total := len(pending)
		pending = failed
		err = errors.Join(errs...)
		if err == nil && len(failed) > 0 {
			err = fmt.Errorf("%d of %d operations failed", len(failed), total)
		}
		return err
	})
}

// groupByServer groups the pending indexes by the region server and region
// of their rows.
func (c *Client) groupByServer(ctx context.Context, table string, row func(i int) []byte, pending []int) (map[string]*serverBatch, error) {
	byServer := map[string]*serverBatch{}
	regionIdx := map[*Region]int{}
	for _, i := range pending {
		r, err := c.Locate(ctx, table, row(i))
		if err != nil {
			return nil, err
		}
		b := byServer[r.Server]
		if b == nil {
			b = &serverBatch{}
			byServer[r.Server] = b
		}
		k, ok := regionIdx[r]
		if !ok {
			k = len(b.regions)
			regionIdx[r] = k
			b.regions = append(b.regions, r)
			b.actions = append(b.actions, nil)
		}
		b.actions[k] = append(b.actions[k], i)
	}
	return byServer, nil
}
