package hrpc

import (
	"bufio"
	"context"
	"errors"
	"net"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc/pb"
)

// TestSendReportsWriteFailure: a frame that cannot reach the server (the
// peer end of the connection is gone, a fault only a fake can inject on
// demand) fails the call and the connection instead of passing silently.
func TestSendReportsWriteFailure(t *testing.T) {
	client, server := net.Pipe()
	server.Close()
	c := &Conn{addr: "pipe", nc: client, bw: bufio.NewWriter(client), calls: map[uint32]chan response{}, done: make(chan struct{})}
	err := c.send(context.Background(), 1, "Get", &pb.RequestHeader{CallId: proto.Uint32(1)})
	if !errors.Is(err, ErrConnection) {
		t.Fatalf("send on a closed connection: %v, want ErrConnection", err)
	}
	if c.err == nil {
		t.Fatal("the connection was not marked failed")
	}
}
