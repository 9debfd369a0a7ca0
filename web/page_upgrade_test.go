package web_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPageUpgradeKeepsOverrides upgrades the binary under an operator's
// overrides: release 2 is built from the same source with embedded files
// changed (go build -overlay replaces them, as a new release would), and
// runs on the same database and overrides directory. The operator's files
// (footer, theme, a string) stay in effect in release 2, and what the
// operator did not override (the header, app.css) is release 2's.
func TestPageUpgradeKeepsOverrides(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a second binary")
	}
	v1, table := buildFixture(t)
	dir := t.TempDir()
	ui, err := filepath.Abs("ui")
	if err != nil {
		t.Fatal(err)
	}
	// Release 2's changed embedded files.
	const marker2 = "release-2-marker"
	header2 := filepath.Join(dir, "header.html")
	css2 := filepath.Join(dir, "app.css")
	oldCSS, err := os.ReadFile(filepath.Join(ui, "app.css"))
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, header2, `<a class="brand" href="/">{{.Portal}} `+marker2+`</a>`)
	mustWrite(t, css2, string(oldCSS)+"\n/* "+marker2+" */\n")
	overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {
		filepath.Join(ui, "header.html"): header2, filepath.Join(ui, "app.css"): css2}})
	mustWrite(t, filepath.Join(dir, "overlay.json"), string(overlay))
	v2 := filepath.Join(dir, "downloader-v2")
	if out, err := exec.Command("go", "build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", v2, "../cmd/downloader").CombinedOutput(); err != nil {
		t.Fatalf("build release 2: %v\n%s", err, out)
	}

	// The operator's overrides, written once, before release 1 runs.
	over := filepath.Join(dir, "overrides")
	mustWrite(t, filepath.Join(over, "web", "footer.html"), `<p>Operated by the Example Node</p>`)
	mustWrite(t, filepath.Join(over, "web", "theme.css"), ":root { --color-brand: #7a1f5c; }")
	mustWrite(t, filepath.Join(over, "web", "messages", "en.json"), `{"home.title": "Search the Example Node's records"}`)
	dsn := sqliteDSN(t)
	run := func(bin string) (page, css, theme, title string) {
		t.Helper()
		p := startServe(t, bin, nil, "--role", "all", "--listen", "127.0.0.1:0", "--db", dsn, "--table", table,
			"--storage", filepath.Join(dir, "archives"), "--overrides", over)
		get := func(path string) string {
			resp, err := http.Get(p.base + path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 {
				t.Fatalf("GET %s: %s %s", path, resp.Status, b)
			}
			return string(b)
		}
		page, css, theme = get("/"), get("/ui/app.css"), get("/ui/theme.css")
		var m map[string]string
		_ = json.Unmarshal([]byte(get("/ui/api/messages/en")), &m)
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
			t.Fatal("serve did not stop")
		}
		return page, css, theme, m["home.title"]
	}
	for i, bin := range []string{v1, v2} {
		page, css, theme, title := run(bin)
		if !strings.Contains(page, "Operated by the Example Node") || theme != ":root { --color-brand: #7a1f5c; }" ||
			title != "Search the Example Node's records" {
			t.Fatalf("release %d lost an override: footer %v, theme %q, title %q", i+1,
				strings.Contains(page, "Operated by"), theme, title)
		}
		if got := strings.Contains(page, marker2) && strings.Contains(css, marker2); got != (i == 1) {
			t.Fatalf("release %d serves release 2's files: %v", i+1, got)
		}
	}
}

func mustWrite(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
