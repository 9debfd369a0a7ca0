package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
)

// promRules is the folder of the shipped alerting rules and their tests.
var promRules = filepath.Join("..", "..", "docs", "prometheus")

// TestAlertRules: the shipped Prometheus rules load and pass their unit
// tests in Prometheus's own promtool, every downloader_ metric they name is
// one a running serve exposes (after an export, a schedule's runs and an
// API request), and that exposition passes promtool's lint.
func TestAlertRules(t *testing.T) {
	promtool := testenv.Tool(t, "promtool", "Debian's prometheus; scripts/ci/prometheus.sh")
	for _, args := range [][]string{{"check", "rules", "alerts.yaml"}, {"test", "rules", "alerts_test.yaml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = promRules
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	exposed := scrapeServe(t)
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = strings.NewReader(exposed)
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	types := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^# TYPE (\S+) `).FindAllStringSubmatch(exposed, -1) {
		types[m[1]] = true
	}
	rules, err := os.ReadFile(filepath.Join(promRules, "alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`\bdownloader_[a-z_]+`).FindAllString(string(rules), -1)
	slices.Sort(named)
	named = slices.Compact(named)
	if len(named) < 7 {
		t.Fatalf("the rules name %d metrics: %v", len(named), named)
	}
	for _, name := range named {
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_count"), "_sum")
		if !types[name] && !types[base] {
			t.Errorf("the rules name %s, which serve does not expose", name)
		}
	}
}

// scrapeServe runs serve (role all) with schedulesServeConfig's schedules, runs
// the export and the erasure, asks the API once and returns what /metrics then answers.
func scrapeServe(t *testing.T) string {
	t.Helper()
	cfg := schedulesServeConfig(t, "listen: 127.0.0.1:0")
	_, serving := serveInBackground(t, cfg, regexp.MustCompile(`serving all on (http://\S+)`))
	base := serving[1]
	runCmd(t, "schedule", "run", "snapshot", "--config", cfg, "--timeout", "1m")
	runCmd(t, "schedule", "run", "erase", "--config", cfg, "--timeout", "1m")
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v\n%s", path, resp.StatusCode, err, b)
		}
		return string(b)
	}
	get("/v1/occurrence/search?limit=1")
	return get("/metrics")
}
