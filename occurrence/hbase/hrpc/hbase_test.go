package hrpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
)

// testClient connects to the HBase named by HBASE_MASTER (started by
// scripts/hbase/start.sh). Without it the test skips, or fails under CI.
func testClient(t *testing.T) *Client {
	t.Helper()
	return testClientTap(t, nil)
}

// testClientTap is testClient whose connections pass every response frame
// to frameTap.
func testClientTap(t *testing.T, frameTap func(frame []byte)) *Client {
	t.Helper()
	master := testenv.HBaseMaster(t)
	c, err := New(Config{Master: master, Logger: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})),
		frameTap: frameTap})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// testTable creates a fresh table dropped when the test ends.
func testTable(t *testing.T, c *Client, splits [][]byte) string {
	t.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("hrpc_%s_%d", t.Name(), time.Now().UnixNano()%1e9)
	if err := c.CreateTable(ctx, name, []string{"f"}, splits); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.DropTable(context.Background(), name); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
	})
	return name
}

func rowKey(i int) []byte { return fmt.Appendf(nil, "r%06d", i) }

func fill(t *testing.T, c *Client, table string, n int) {
	t.Helper()
	const batch = 2000
	for lo := 0; lo < n; lo += batch {
		var muts []*Mutation
		for i := lo; i < min(lo+batch, n); i++ {
			muts = append(muts, &Mutation{Row: rowKey(i), Cells: []Cell{
				{Family: []byte("f"), Qualifier: []byte("v"), Value: fmt.Appendf(nil, "value-%d", i)},
				{Family: []byte("f"), Qualifier: []byte("m"), Value: []byte{byte(i % 20)}},
			}})
		}
		if err := c.Apply(context.Background(), table, muts); err != nil {
			t.Fatal(err)
		}
	}
}

// checkExactlyOnce asserts rows are r000000..r{n-1} in order, once each.
func checkExactlyOnce(t *testing.T, keys [][]byte, n int, want func(i int) bool) {
	t.Helper()
	var expect [][]byte
	for i := 0; i < n; i++ {
		if want(i) {
			expect = append(expect, rowKey(i))
		}
	}
	if len(keys) != len(expect) {
		t.Fatalf("scan returned %d rows, want %d", len(keys), len(expect))
	}
	for i := range keys {
		if !bytes.Equal(keys[i], expect[i]) {
			t.Fatalf("row %d is %q, want %q", i, keys[i], expect[i])
		}
	}
}

func TestPutGetScanFilter(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	table := testTable(t, c, [][]byte{rowKey(1000), rowKey(2500)})
	const n = 4000
	fill(t, c, table, n)

	row, err := c.Get(ctx, table, rowKey(1234))
	if err != nil {
		t.Fatal(err)
	}
	if row == nil || len(row.Cells) != 2 || string(row.Cells[1].Value) != "value-1234" {
		t.Fatalf("get r001234 = %+v", row)
	}
	if missing, err := c.Get(ctx, table, []byte("nope")); err != nil || missing != nil {
		t.Fatalf("get missing row = %v, %v", missing, err)
	}

	var keys [][]byte
	st, err := c.Scan(ctx, table, ScanOptions{Caching: 300}, func(rows []Row) error {
		for _, r := range rows {
			keys = append(keys, r.Key)
			if len(r.Cells) != 2 {
				return fmt.Errorf("row %q has %d cells", r.Key, len(r.Cells))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkExactlyOnce(t, keys, n, func(int) bool { return true })
	if st.Calls < 3 {
		t.Errorf("scan of 3 regions made %d calls", st.Calls)
	}

	keys = nil
	filter := SingleColumnValueFilter{Family: []byte("f"), Qualifier: []byte("m"), Op: Equal,
		Comparator: BinaryComparator{7}, FilterIfMissing: true}
	_, err = c.Scan(ctx, table, ScanOptions{Filter: filter, Start: rowKey(500), Stop: rowKey(3000)}, func(rows []Row) error {
		for _, r := range rows {
			keys = append(keys, r.Key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkExactlyOnce(t, keys, n, func(i int) bool { return i >= 500 && i < 3000 && i%20 == 7 })
}

func TestScanSurvivesSplitAndMove(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	table := testTable(t, c, nil)
	const n = 20000
	fill(t, c, table, n)

	var keys [][]byte
	var batches atomic.Int32
	st, err := c.Scan(ctx, table, ScanOptions{Caching: 500}, func(rows []Row) error {
		for _, r := range rows {
			keys = append(keys, r.Key)
		}
		switch batches.Add(1) {
		case 3: // split the region being scanned, ahead of the scan position
			rs, err := c.RefreshRegions(ctx, table)
			if err != nil {
				return err
			}
			if err := c.SplitRegion(ctx, rs[0], rowKey(12000)); err != nil {
				return err
			}
		case 10: // move the region being scanned to another server
			rs, err := c.RefreshRegions(ctx, table)
			if err != nil {
				return err
			}
			r := findRegion(rs, rows[len(rows)-1].Key)
			if err := c.MoveRegion(ctx, r, "", 0, 0); err != nil {
				return err
			}
			waitMoved(t, c, table, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkExactlyOnce(t, keys, n, func(int) bool { return true })
	if st.Restarts < 2 {
		t.Errorf("scan restarted %d times, want >= 2 (split and move)", st.Restarts)
	}
	t.Logf("stats %+v", st)
}

func waitMoved(t *testing.T, c *Client, table string, r *Region) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		rs, err := c.RefreshRegions(context.Background(), table)
		if err == nil {
			if now := findRegion(rs, r.Start); now != nil && now.Server != r.Server {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("region %s did not move off %s", r.EncodedName(), r.Server)
}

func TestTableAdmin(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	table := testTable(t, c, [][]byte{[]byte("m")})
	ok, err := c.TableExists(ctx, table)
	if err != nil || !ok {
		t.Fatalf("exists = %v, %v", ok, err)
	}
	ok, err = c.TableExists(ctx, table+"_none")
	if err != nil || ok {
		t.Fatalf("exists(missing) = %v, %v", ok, err)
	}
	if err := c.CreateTable(ctx, table, []string{"f"}, nil); !errors.Is(err, ErrTableExists) {
		t.Fatalf("create existing table: %v, want ErrTableExists", err)
	}
	rs, err := c.Regions(ctx, table)
	if err != nil || len(rs) != 2 || string(rs[0].End) != "m" {
		t.Fatalf("regions = %v, %v", rs, err)
	}
	err = c.Put(ctx, table, &Mutation{Row: []byte("x"), Cells: []Cell{{Family: []byte("nofam"), Qualifier: []byte("q"), Value: []byte("v")}}})
	if !errors.Is(err, ErrNoSuchColumnFamily) {
		t.Fatalf("put to missing family: %v, want ErrNoSuchColumnFamily", err)
	}
}

// TestScannerLeaseRenewed: a consumer slower than the scanner lease (10s in
// scripts/hbase/start.sh) keeps its scanner through renewals: no restart, no
// lost or repeated rows.
func TestScannerLeaseRenewed(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	table := testTable(t, c, nil)
	const n = 3000
	fill(t, c, table, n)
	var keys [][]byte
	first := true
	st, err := c.Scan(ctx, table, ScanOptions{Caching: 1000}, func(rows []Row) error {
		for _, r := range rows {
			keys = append(keys, r.Key)
		}
		if first {
			first = false
			time.Sleep(13 * time.Second)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkExactlyOnce(t, keys, n, func(int) bool { return true })
	if st.Restarts != 0 {
		t.Fatalf("scan restarted %d times: the lease was not renewed", st.Restarts)
	}
}

// TestScanReassemblesPartialRows: with a response size limit smaller than a
// row, the server cuts rows into partial results; the scanner hands out
// whole rows only.
func TestScanReassemblesPartialRows(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	table := testTable(t, c, nil)
	const n = 40
	big := bytes.Repeat([]byte("x"), 5000)
	var muts []*Mutation
	for i := 0; i < n; i++ {
		muts = append(muts, &Mutation{Row: rowKey(i), Cells: []Cell{
			{Family: []byte("f"), Qualifier: []byte("a"), Value: big},
			{Family: []byte("f"), Qualifier: []byte("b"), Value: big},
			{Family: []byte("f"), Qualifier: []byte("c"), Value: big},
		}})
	}
	if err := c.Apply(ctx, table, muts); err != nil {
		t.Fatal(err)
	}
	var keys [][]byte
	st, err := c.Scan(ctx, table, ScanOptions{MaxResultSize: 6000, Caching: 100}, func(rows []Row) error {
		for _, r := range rows {
			if len(r.Cells) != 3 {
				return fmt.Errorf("row %q handed out with %d of 3 cells", r.Key, len(r.Cells))
			}
			keys = append(keys, r.Key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkExactlyOnce(t, keys, n, func(int) bool { return true })
	// Whole rows would take n calls at most (one row per call); more means
	// the server cut rows and the scanner put them together again.
	if st.Calls <= n {
		t.Fatalf("%d calls for %d rows of 15 kB with a 6 kB limit: rows were not cut", st.Calls, n)
	}
}
