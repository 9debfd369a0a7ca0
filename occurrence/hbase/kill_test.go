package hbase

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startThrowawayHBase starts a second single-node HBase (own directory and
// ports) with scripts/hbase/start.sh and returns its master address and the
// pid of its JVM.
func startThrowawayHBase(t *testing.T) (string, int) {
	t.Helper()
	testenv.HBaseMaster(t) // same skip/fail rule as every HBase test
	for _, tool := range []string{"bash", "java", "mvn"} {
		testenv.Tool(t, tool, "scripts/hbase/start.sh needs it")
	}
	script, err := filepath.Abs("../../scripts/hbase/start.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mport, zport := freePort(t), freePort(t)
	env := append(os.Environ(), "HBASE_DIR="+dir, fmt.Sprint("HBASE_MASTER_PORT=", mport),
		fmt.Sprint("HBASE_ZK_PORT=", zport), "HBASE_REGION_SERVERS=1", "HBASE_HEAP=512m")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	pidBytes, _ := os.ReadFile(filepath.Join(dir, "hbase.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(pidBytes)))
	t.Cleanup(func() {
		if pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if err != nil {
		t.Fatalf("start throwaway HBase: %v\n%s", err, out)
	}
	if pid <= 0 {
		t.Fatalf("no pid for throwaway HBase in %s", dir)
	}
	return fmt.Sprintf("127.0.0.1:%d", mport), pid
}

// TestScanFailsWhenHBaseKilled kills the HBase process in the middle of a
// scan: the scan must fail with a connection error within the configured
// timeouts, never end as if the table were shorter.
func TestScanFailsWhenHBaseKilled(t *testing.T) {
	master, pid := startThrowawayHBase(t)
	ctx := context.Background()
	const opTimeout = 4 * time.Second
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// The records are written with the client's default timeouts (a loaded
	// machine made the scan's tight ones fail the ingest once), then read
	// under the tight ones the kill is measured against.
	cfg := Config{Master: master, Table: "killed", Buckets: 2, Caching: 100}
	w, err := OpenConfig(ctx, cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	g := occurrencetest.NewGenerator(3, 100)
	plan := g.Datasets(20000, 1)
	ingestN(t, w, &plan[0], g, plan[0].Records, true)
	w.Close()
	cfg.Client = hrpc.Config{OperationTimeout: opTimeout, CallTimeout: 3 * time.Second}
	s, err := OpenConfig(ctx, cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}

	var rows int64
	var killed time.Time
	req := occurrence.ScanRequest{Columns: []string{occurrence.ColGBIFID}, BatchSize: 100}
	_, err = occurrence.Scan(ctx, s, snap, req, occurrence.ScanOptions{Workers: 2}, func(b arrow.RecordBatch) error {
		rows += b.NumRows()
		if killed.IsZero() {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				return err
			}
			killed = time.Now()
		}
		return nil
	})
	elapsed := time.Since(killed)
	if err == nil {
		t.Fatalf("scan of a killed HBase succeeded with %d of %d rows", rows, plan[0].Records)
	}
	if !errors.Is(err, hrpc.ErrConnection) {
		t.Fatalf("scan failed with %v, want a connection error", err)
	}
	// Retries give up after the operation timeout without progress; a call
	// in flight adds at most one call timeout.
	if limit := opTimeout + 3*time.Second + 2*time.Second; elapsed > limit {
		t.Fatalf("scan failed %s after the kill, want within %s", elapsed, limit)
	}
	t.Logf("after %d of %d rows the scan failed %s after the kill: %v", rows, plan[0].Records, elapsed.Round(time.Millisecond), err)
}
