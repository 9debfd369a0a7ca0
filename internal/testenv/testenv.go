// Package testenv is the one rule for tests that need a service or a tool
// the full test command installs: without it a test skips with a one-line
// reason, and under CI=true (where everything must be there) it fails.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Missing skips the test with reason, or fails it when CI=true.
func Missing(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(reason)
	}
	t.Skip(reason)
}

// Need returns the environment variable env, which names a service the
// script (such as scripts/ci/postgres.sh) starts; without it the test is
// Missing.
func Need(t testing.TB, env, script string) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		Missing(t, env+" is not set (run "+script+")")
	}
	return v
}

// Tool returns the path of the program tool; without it the test is
// Missing, the reason saying why it is needed or what installs it.
func Tool(t testing.TB, tool, why string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		Missing(t, tool+" not installed ("+why+")")
	}
	return p
}

// HBaseMaster is the address of the single-node HBase that
// scripts/hbase/start.sh starts (HBASE_MASTER, host:port).
func HBaseMaster(t testing.TB) string {
	t.Helper()
	return Need(t, "HBASE_MASTER", `eval "$(bash scripts/hbase/start.sh)"`)
}
