package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
)

// unitPath is the systemd unit docs/operations.md offers operators.
var unitPath = filepath.Join("..", "..", "docs", "deploy", "downloader.service")

// TestSystemdUnit: the shipped unit passes systemd's own verification
// (its binary's path pointed at an executable that exists), and systemd
// waits longer for a stop than serve's graceful stop may take.
func TestSystemdUnit(t *testing.T) {
	b, err := os.ReadFile(unitPath)
	if err != nil {
		t.Fatal(err)
	}
	unit := string(b)
	var f serveFlags
	env, _, _ := testEnv()
	grace, err := time.ParseDuration(serveFlagSet(&f, env).Lookup("shutdown-timeout").DefValue)
	if err != nil {
		t.Fatal(err)
	}
	var stop time.Duration
	for _, line := range strings.Split(unit, "\n") {
		if v, ok := strings.CutPrefix(line, "TimeoutStopSec="); ok {
			if stop, err = time.ParseDuration(v); err != nil {
				t.Fatalf("TimeoutStopSec=%s: %v", v, err)
			}
		}
	}
	if stop <= grace {
		t.Errorf("TimeoutStopSec %s: systemd would kill serve before its graceful stop (--shutdown-timeout %s) ends", stop, grace)
	}

	analyze := testenv.Tool(t, "systemd-analyze", "Debian's systemd; scripts/ci/systemd.sh")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "downloader.service")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(unit, "/usr/local/bin/downloader", self)), 0o644); err != nil {
		t.Fatal(err)
	}
	// verify exits 0 on settings it cannot parse (it ignores them, with a
	// line each): any output is a failure.
	out, err := exec.Command(analyze, "verify", "--man=no", path).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
