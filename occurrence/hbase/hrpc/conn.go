package hrpc

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc/pb"
)

// Service names an HBase RPC service; one connection serves one service.
type Service string

// Services this client speaks.
const (
	ClientService     Service = "ClientService"
	MasterService     Service = "MasterService"
	ClientMetaService Service = "ClientMetaService"
	AdminService      Service = "AdminService"
)

const (
	keyValueCodec = "org.apache.hadoop.hbase.codec.KeyValueCodec"
	// maxFrame bounds a response frame; HBase's own default for requests is
	// 256 MiB and scans here ask for far less per call.
	maxFrame = 256 << 20
)

// preamble opens every connection: magic "HBas", RPC version 0, auth SIMPLE.
var preamble = []byte{'H', 'B', 'a', 's', 0, 80}

// Conn is one connection to an HBase server for one service. Calls from many
// goroutines are multiplexed on it by call id. A Conn that failed stays
// failed: every pending and later call returns an error wrapping
// ErrConnection, and the Client dials a new one.
type Conn struct {
	addr    string
	service Service
	nc      net.Conn

	wmu sync.Mutex // serializes frame writes
	bw  *bufio.Writer

	mu     sync.Mutex
	calls  map[uint32]chan response
	nextID uint32
	err    error
	done   chan struct{}

	// frameTap, when set, sees every response frame (Config.frameTap).
	frameTap func(frame []byte)
}

type response struct {
	body  []byte
	cells []byte
	err   error
}

// Dial connects to addr, sends the preamble and connection header for
// service and starts the response reader.
func Dial(ctx context.Context, addr string, service Service, user string) (*Conn, error) {
	return dial(ctx, addr, service, user, nil)
}

// dial is Dial with a frame tap for the reader.
func dial(ctx context.Context, addr string, service Service, user string, frameTap func([]byte)) (*Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w: dial %s: %w", ErrConnection, addr, err)
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	c := &Conn{addr: addr, service: service, nc: nc, bw: bufio.NewWriterSize(nc, 64<<10),
		calls: make(map[uint32]chan response), done: make(chan struct{}), frameTap: frameTap}
	if err := c.handshake(ctx, user); err != nil {
		nc.Close()
		return nil, err
	}
	go c.readLoop()
	return c, nil
}

func (c *Conn) handshake(ctx context.Context, user string) error {
	hdr, err := proto.Marshal(&pb.ConnectionHeader{
		UserInfo:            &pb.UserInformation{EffectiveUser: proto.String(user)},
		ServiceName:         proto.String(string(c.service)),
		CellBlockCodecClass: proto.String(keyValueCodec),
		VersionInfo: &pb.VersionInfo{
			Version: proto.String("2.6.0"), Url: proto.String("-"), Revision: proto.String("-"),
			User: proto.String(user), Date: proto.String("-"), SrcChecksum: proto.String("-"),
			VersionMajor: proto.Uint32(2), VersionMinor: proto.Uint32(6),
		},
	})
	if err != nil {
		return fmt.Errorf("%w: connection header: %v", ErrProtocol, err)
	}
	buf := append([]byte(nil), preamble...)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(hdr)))
	buf = append(buf, hdr...)
	if dl, ok := ctx.Deadline(); ok {
		_ = c.nc.SetWriteDeadline(dl)
		defer c.nc.SetWriteDeadline(time.Time{})
	}
	if _, err := c.nc.Write(buf); err != nil {
		return fmt.Errorf("%w: %s: send connection header: %w", ErrConnection, c.addr, err)
	}
	return nil
}

// Addr returns the server address of the connection.
func (c *Conn) Addr() string { return c.addr }

// Err returns why the connection failed, or nil while it is usable.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection; pending calls fail with ErrConnection.
func (c *Conn) Close() error {
	c.fail(fmt.Errorf("%w: %s: connection closed by client", ErrConnection, c.addr))
	return nil
}

func (c *Conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	calls := c.calls
	c.calls = nil
	close(c.done)
	c.mu.Unlock()
	c.nc.Close()
	for _, ch := range calls {
		ch <- response{err: err}
	}
}

// Call sends method with request req and decodes the response into resp
// (which may be nil for methods whose response is ignored). It returns the
// response's cell block, if any. The context's deadline is sent to the server
// as the call timeout; cancelling ctx abandons the call.
func (c *Conn) Call(ctx context.Context, method string, req, resp proto.Message) ([]byte, error) {
	ch := make(chan response, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.nextID++
	id := c.nextID
	c.calls[id] = ch
	c.mu.Unlock()

	if err := c.send(ctx, id, method, req); err != nil {
		c.forget(id)
		return nil, err
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		if resp != nil {
			if err := proto.Unmarshal(r.body, resp); err != nil {
				return nil, fmt.Errorf("%w: %s %s response: %v", ErrProtocol, c.addr, method, err)
			}
		}
		return r.cells, nil
	case <-ctx.Done():
		c.forget(id)
		return nil, fmt.Errorf("hbase: %s on %s: %w", method, c.addr, ctx.Err())
	}
}

func (c *Conn) forget(id uint32) {
	c.mu.Lock()
	if c.calls != nil {
		delete(c.calls, id)
	}
	c.mu.Unlock()
}

func (c *Conn) send(ctx context.Context, id uint32, method string, req proto.Message) error {
	hdr := &pb.RequestHeader{CallId: proto.Uint32(id), MethodName: proto.String(method),
		RequestParam: proto.Bool(true)}
	if dl, ok := ctx.Deadline(); ok {
		ms := time.Until(dl).Milliseconds()
		if ms < 1 {
			ms = 1
		}
		hdr.Timeout = proto.Uint32(uint32(min(ms, 1<<31)))
	}
	frame, err := EncodeRequest(hdr, req)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.nc.SetWriteDeadline(dl)
	} else {
		_ = c.nc.SetWriteDeadline(time.Time{})
	}
	if _, err = c.bw.Write(frame); err == nil {
		err = c.bw.Flush()
	}
	if err != nil {
		err = fmt.Errorf("%w: %s: write %s: %w", ErrConnection, c.addr, method, err)
		c.fail(err)
		return err
	}
	return nil
}

// EncodeRequest builds a request frame: a 4-byte big-endian length, then the
// varint-delimited header and the varint-delimited request parameter.
func EncodeRequest(hdr *pb.RequestHeader, req proto.Message) ([]byte, error) {
	h, err := proto.Marshal(hdr)
	if err != nil {
		return nil, fmt.Errorf("%w: request header: %v", ErrProtocol, err)
	}
	p, err := proto.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s request: %v", ErrProtocol, hdr.GetMethodName(), err)
	}
	n := protowire.SizeBytes(len(h)) + protowire.SizeBytes(len(p))
	buf := make([]byte, 4, 4+n)
	binary.BigEndian.PutUint32(buf, uint32(n))
	buf = protowire.AppendBytes(buf, h)
	buf = protowire.AppendBytes(buf, p)
	return buf, nil
}

func (c *Conn) readLoop() {
	br := bufio.NewReaderSize(c.nc, 256<<10)
	var lenBuf [4]byte
	for {
		if _, err := io.ReadFull(br, lenBuf[:]); err != nil {
			c.fail(fmt.Errorf("%w: %s: read: %w", ErrConnection, c.addr, err))
			return
		}
		n := binary.BigEndian.Uint32(lenBuf[:])
		if n > maxFrame {
			c.fail(fmt.Errorf("%w: %s: response frame of %d bytes exceeds %d", ErrProtocol, c.addr, n, maxFrame))
			return
		}
		frame := make([]byte, n)
		if _, err := io.ReadFull(br, frame); err != nil {
			c.fail(fmt.Errorf("%w: %s: read: %w", ErrConnection, c.addr, err))
			return
		}
		if c.frameTap != nil {
			c.frameTap(frame)
		}
		r, err := DecodeResponse(frame)
		if err != nil {
			c.fail(fmt.Errorf("%s: %w", c.addr, err))
			return
		}
		var resp response
		if r.Exception != nil {
			resp.err = r.Exception
			r.Exception.Server = c.addr
		} else {
			resp.body, resp.cells = r.Body, r.CellBlock
		}
		c.mu.Lock()
		ch, ok := c.calls[r.CallID]
		if ok {
			delete(c.calls, r.CallID)
		}
		c.mu.Unlock()
		if ok {
			ch <- resp
		}
	}
}

// Response is a decoded response frame (without its 4-byte length prefix).
type Response struct {
	CallID    uint32
	Exception *RemoteError // set when the call failed on the server
	Body      []byte       // the response message, undecoded
	CellBlock []byte
}

// DecodeResponse splits a response frame into header, message and cell block.
func DecodeResponse(frame []byte) (Response, error) {
	hb, n := protowire.ConsumeBytes(frame)
	if n < 0 {
		return Response{}, fmt.Errorf("%w: response header: %v", ErrProtocol, protowire.ParseError(n))
	}
	rest := frame[n:]
	var hdr pb.ResponseHeader
	if err := proto.Unmarshal(hb, &hdr); err != nil {
		return Response{}, fmt.Errorf("%w: response header: %v", ErrProtocol, err)
	}
	r := Response{CallID: hdr.GetCallId()}
	if ex := hdr.GetException(); ex != nil {
		r.Exception = newRemoteError(ex.GetExceptionClassName(), ex.GetStackTrace(), "", ex.GetDoNotRetry())
		return r, nil
	}
	if len(rest) > 0 {
		body, n := protowire.ConsumeBytes(rest)
		if n < 0 {
			return Response{}, fmt.Errorf("%w: response message: %v", ErrProtocol, protowire.ParseError(n))
		}
		r.Body, rest = body, rest[n:]
	}
	if hdr.CellBlockMeta != nil {
		want := int(hdr.GetCellBlockMeta().GetLength())
		if want != len(rest) {
			return Response{}, fmt.Errorf("%w: cell block of %d bytes announced, %d present", ErrProtocol, want, len(rest))
		}
		r.CellBlock = rest
	} else if len(rest) > 0 {
		return Response{}, fmt.Errorf("%w: %d stray bytes after response", ErrProtocol, len(rest))
	}
	return r, nil
}

// isTimeout reports whether err is a context deadline.
func isTimeout(err error) bool { return errors.Is(err, context.DeadlineExceeded) }
