package hrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
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

// TestFrameTapIsPerClient: a client's frame tap sees the response frames of
// the connections that client dials and no other client's.
func TestFrameTapIsPerClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	frames := [][]byte{nil, testFrame(t, 1), testFrame(t, 2), testFrame(t, 3)}
	// Each accepted connection reads the preamble and connection header and
	// answers with one frame whose call id is the connection's number.
	go func() {
		for id := 1; id < len(frames); id++ {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func(nc net.Conn, frame []byte) {
				defer nc.Close()
				hello := make([]byte, len(preamble)+4)
				if _, err := io.ReadFull(nc, hello); err != nil {
					return
				}
				if _, err := io.CopyN(io.Discard, nc, int64(binary.BigEndian.Uint32(hello[len(preamble):]))); err != nil {
					return
				}
				if _, err := nc.Write(frame); err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, nc) // until the client closes
			}(nc, frames[id])
		}
	}()
	type tapped struct {
		c      *Client
		frames chan []byte
	}
	var clients []tapped
	for range 2 {
		seen := make(chan []byte, 4)
		c, err := New(Config{Master: ln.Addr().String(), frameTap: func(f []byte) { seen <- append([]byte(nil), f...) }})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		clients = append(clients, tapped{c, seen})
	}
	untapped, err := New(Config{Master: ln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	defer untapped.Close()
	ctx := context.Background()
	// Dial one at a time so that each client's connection has a known id.
	for i, tc := range []*Client{clients[0].c, untapped, clients[1].c} {
		if _, err := tc.conn(ctx, ln.Addr().String(), ClientService); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			continue
		}
		want := frames[i+1][4:]
		select {
		case got := <-clients[i/2].frames:
			if !bytes.Equal(got, want) {
				t.Fatalf("client %d's tap saw %x, want %x", i/2, got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("client %d's tap saw no frame", i/2)
		}
	}
	for i, tc := range clients {
		select {
		case f := <-tc.frames:
			t.Fatalf("client %d's tap saw another connection's frame %x", i, f)
		default:
		}
	}
}

// testFrame is a length-prefixed response frame with a header only.
func testFrame(t *testing.T, callID uint32) []byte {
	hdr, err := proto.Marshal(&pb.ResponseHeader{CallId: proto.Uint32(callID)})
	if err != nil {
		t.Fatal(err)
	}
	body := protowire.AppendBytes(nil, hdr)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}
