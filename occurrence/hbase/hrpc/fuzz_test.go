package hrpc

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc/pb"
)

// syntheticFrame builds a response frame the way the server does.
func syntheticFrame(callID uint32, body proto.Message, cells []Cell) []byte {
	var block []byte
	for _, c := range cells {
		block = AppendKeyValue(block, c)
	}
	hdr := &pb.ResponseHeader{CallId: proto.Uint32(callID)}
	if block != nil {
		hdr.CellBlockMeta = &pb.CellBlockMeta{Length: proto.Uint32(uint32(len(block)))}
	}
	h, _ := proto.Marshal(hdr)
	b, _ := proto.Marshal(body)
	var out []byte
	out = append(out, protoDelimited(h)...)
	out = append(out, protoDelimited(b)...)
	return append(out, block...)
}

func protoDelimited(b []byte) []byte {
	return protowire.AppendBytes(nil, b)
}

var sampleCells = []Cell{
	{Row: []byte("r000001"), Family: []byte("f"), Qualifier: []byte("m"), Timestamp: 1796000545792, Type: TypePut, Value: []byte{7}},
	{Row: []byte("r000001"), Family: []byte("f"), Qualifier: []byte("v"), Timestamp: 1796000545792, Type: TypePut, Value: []byte("value-1")},
	{Row: []byte{0, 1, 2}, Family: []byte("r"), Timestamp: 1, Type: TypeDeleteFamily},
}

func TestDecodeResponseRoundTrip(t *testing.T) {
	resp := &pb.ScanResponse{CellsPerResult: []uint32{2, 1}, PartialFlagPerResult: []bool{false, false},
		ScannerId: proto.Uint64(42), MoreResultsInRegion: proto.Bool(true)}
	frame := syntheticFrame(9, resp, sampleCells)
	r, err := DecodeResponse(frame)
	if err != nil {
		t.Fatal(err)
	}
	if r.CallID != 9 || r.Exception != nil {
		t.Fatalf("decoded %+v", r)
	}
	cells, err := DecodeCellBlock(r.CellBlock, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 3 || string(cells[1].Value) != "value-1" || cells[2].Type != TypeDeleteFamily || len(cells[2].Qualifier) != 0 {
		t.Fatalf("cells %+v", cells)
	}
	s := &scanner{}
	rows, err := s.assemble(&pb.ScanResponse{CellsPerResult: resp.CellsPerResult, PartialFlagPerResult: resp.PartialFlagPerResult}, r.CellBlock)
	if err != nil || len(rows) != 2 || len(rows[0].Cells) != 2 {
		t.Fatalf("rows %+v, %v", rows, err)
	}
	// A truncated cell block is an error, never a shorter result.
	if _, err := DecodeResponse(frame[:len(frame)-1]); err == nil {
		t.Fatal("truncated frame decoded")
	}
}

func TestPartialRowsReassembled(t *testing.T) {
	s := &scanner{}
	c := sampleCells
	// The server cut row r000001 after its first cell.
	block := AppendKeyValue(nil, c[0])
	rows, err := s.assemble(&pb.ScanResponse{CellsPerResult: []uint32{1}, PartialFlagPerResult: []bool{true}}, block)
	if err != nil || len(rows) != 0 || s.pending == nil {
		t.Fatalf("partial: rows %v pending %v err %v", rows, s.pending, err)
	}
	block = AppendKeyValue(AppendKeyValue(nil, c[1]), c[2])
	rows, err = s.assemble(&pb.ScanResponse{CellsPerResult: []uint32{1, 1}, PartialFlagPerResult: []bool{false, false}}, block)
	if err != nil || len(rows) != 2 || len(rows[0].Cells) != 2 || !bytes.Equal(rows[1].Key, c[2].Row) {
		t.Fatalf("reassembled rows %+v, %v", rows, err)
	}
}

func FuzzDecodeResponse(f *testing.F) {
	f.Add(syntheticFrame(1, &pb.ScanResponse{CellsPerResult: []uint32{2, 1}, MoreResultsInRegion: proto.Bool(true)}, sampleCells))
	f.Add(syntheticFrame(2, &pb.GetResponse{Result: &pb.Result{AssociatedCellCount: proto.Int32(3)}}, sampleCells))
	f.Fuzz(func(t *testing.T, frame []byte) {
		r, err := DecodeResponse(frame)
		if err != nil {
			return
		}
		if r.Exception != nil {
			_ = r.Exception.Error()
			return
		}
		var scan pb.ScanResponse
		if proto.Unmarshal(r.Body, &scan) == nil {
			s := &scanner{}
			_, _ = s.assemble(&scan, r.CellBlock)
		}
		var get pb.GetResponse
		if proto.Unmarshal(r.Body, &get) == nil {
			_, _ = resultCells(get.GetResult(), r.CellBlock)
		}
	})
}

func FuzzCellBlock(f *testing.F) {
	var block []byte
	for _, c := range sampleCells {
		block = AppendKeyValue(block, c)
	}
	f.Add(block)
	f.Fuzz(func(t *testing.T, block []byte) {
		cells, err := DecodeCellBlock(block, nil)
		if err != nil {
			return
		}
		// The KeyValue format is canonical: re-encoding gives the input back.
		var again []byte
		for _, c := range cells {
			again = AppendKeyValue(again, c)
		}
		if !bytes.Equal(again, block) {
			t.Fatalf("re-encoded %d cells differ from the block", len(cells))
		}
	})
}

// TestWriteFuzzSeeds records real server responses as fuzz seeds in
// testdata/fuzz (run with HRPC_WRITE_SEEDS=1 against a live HBase).
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("HRPC_WRITE_SEEDS") == "" {
		t.Skip("set HRPC_WRITE_SEEDS=1 to record seeds from a live HBase")
	}
	var mu sync.Mutex
	var frames [][]byte
	c := testClientTap(t, func(b []byte) {
		mu.Lock()
		frames = append(frames, append([]byte(nil), b...))
		mu.Unlock()
	})
	ctx := context.Background()
	table := testTable(t, c, [][]byte{rowKey(3)})
	fill(t, c, table, 6)
	if _, err := c.Get(ctx, table, rowKey(2)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Scan(ctx, table, ScanOptions{Caching: 2}, func([]Row) error { return nil }); err != nil {
		t.Fatal(err)
	}
	_, _ = c.TableExists(ctx, table+"_missing") // an exception response
	mu.Lock()
	defer mu.Unlock()
	for i, fr := range frames {
		if len(fr) > 4096 {
			continue
		}
		writeSeed(t, "FuzzDecodeResponse", i, fr)
		if r, err := DecodeResponse(fr); err == nil && len(r.CellBlock) > 0 {
			writeSeed(t, "FuzzCellBlock", i, r.CellBlock)
		}
	}
}

func writeSeed(t *testing.T, fuzz string, i int, data []byte) {
	dir := filepath.Join("testdata", "fuzz", fuzz)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("live-%03d", i)), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
