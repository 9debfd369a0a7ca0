package parquet

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// rolloverHelperEnv makes the test binary a rollover that stops at a stage
// (TestRolloverCrash): "dir|stage".
const rolloverHelperEnv = "PARQUET_ROLLOVER_HELPER"

// rolloverHelper runs a rollover of dir that prints "at STAGE" when it
// reaches stage and then waits to be killed.
func rolloverHelper(spec string) int {
	dir, stage, _ := strings.Cut(spec, "|")
	s, err := Open(dir, rolloverConfig, nil)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	rolloverHook = func(at string) {
		if at == stage {
			fmt.Println("at", at)
			select {} // killed by the test
		}
	}
	_, err = s.Rollover(context.Background(), RolloverOptions{SmallRows: 1 << 40})
	fmt.Println("finished", err)
	return 1
}

// TestRolloverCrash kills a rollover (SIGKILL) while it sorts and once its
// segment is written but not published: the table reads as before, the
// leftovers stay while nothing collects them, the next writer's cleanup
// removes them, and a rollover then succeeds.
func TestRolloverCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("kills rollover processes, nothing concurrent in-process: run without -short (the race step skips it)")
	}
	for _, stage := range []string{"spilled", "written"} {
		t.Run(stage, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(dir, rolloverConfig, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			loadWithEMLs(t, s, 6000, 30)
			before := current(t, s)
			want := dumpTable(t, s, before)

			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), rolloverHelperEnv+"="+dir+"|"+stage)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(out)
			if !sc.Scan() || sc.Text() != "at "+stage {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the rollover process said %q, want %q", sc.Text(), "at "+stage)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()

			if got := current(t, s); got.ID != before.ID {
				t.Fatalf("a killed rollover changed the snapshot %s to %s", before.ID, got.ID)
			}
			sameDump(t, "after the killed rollover", dumpTable(t, s, before), want)
			left, _ := filepath.Glob(filepath.Join(dir, dataDir, segmentsDir, "*"))
			if len(left) != 1 {
				t.Fatalf("leftover segments %v, want the killed rollover's one", left)
			}
			occurrencetest.Load(t, s, 50, 1) // the next writer
			if _, err := os.Stat(left[0]); !os.IsNotExist(err) {
				t.Fatalf("the next writer left the killed rollover's segment %s (%v)", left[0], err)
			}
			rep, err := s.Rollover(context.Background(), RolloverOptions{SmallRows: 1 << 40})
			if err != nil || rep.RowsRewritten != 6050 {
				t.Fatalf("rollover after the crash: %d rows rewritten, %v; want 6050", rep.RowsRewritten, err)
			}
		})
	}
}
