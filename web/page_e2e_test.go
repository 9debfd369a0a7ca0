package web_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/mailpit"
	"github.com/biodiversity-downloads/downloader/internal/testenv"
)

// chromiumPath is Debian's chromium (scripts/ci/browser.sh installs it).
const chromiumPath = "/usr/bin/chromium"

// needBrowser skips (or fails under CI=true) without chromium, node or
// web/e2e's npm packages, and returns node's path.
func needBrowser(t *testing.T) string {
	t.Helper()
	missing := ""
	node, err := exec.LookPath("node")
	switch {
	case err != nil:
		missing = "node is not installed"
	case fileMissing(chromiumPath):
		missing = chromiumPath + " is not installed"
	case fileMissing("e2e/node_modules/playwright-core/package.json"), fileMissing("e2e/node_modules/axe-core/axe.min.js"):
		missing = "web/e2e/node_modules is not installed"
	}
	if missing != "" {
		testenv.Missing(t, missing+" (run scripts/ci/browser.sh)")
	}
	return node
}

func fileMissing(p string) bool {
	_, err := os.Stat(p)
	return err != nil
}

// demoTable makes the demo's table (`downloader demo`: three real
// datasets, one from ABCD) in a temporary directory.
func demoTable(t *testing.T, bin string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command(bin, "demo", "--dir", dir).CombinedOutput(); err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	return filepath.Join(dir, "table")
}

// TestPageInBrowser runs web/e2e/e2e.mjs (playwright-core driving Debian's
// chromium, axe-core) against `downloader serve` on the demo table, built
// with the faultinject tag so that exports last long enough to watch,
// cancel and count (--test-export-throttle). With
// DOWNLOADER_SCREENSHOTS=DIR the script writes the main states' PNGs there
// (docs/screenshots is made so).
func TestPageInBrowser(t *testing.T) {
	node := needBrowser(t)
	bin := buildFaultBinary(t)
	table := demoTable(t, bin)
	// GBIF's backbone cut as the table's taxonomy: the species suggestions
	// is loaded without re-interpreting the records (--reinterpret=false):
	// the cut holds few of the demo's species, so re-interpretation would
	// turn most names into their genus or family (HIGHERRANK, as GBIF's
	// interpretation does), and the records keep their own names so that
	// the table-name fallback of the suggestions is exercised too.
	if out, err := exec.Command(bin, "taxonomy", "load", filepath.Join("..", "taxonomy", "testdata", "gbif-backbone-cut.zip"),
		"--table", table, "--reinterpret=false").CombinedOutput(); err != nil {
		t.Fatalf("taxonomy load: %v\n%s", err, out)
	}
	dsn := sqliteDSN(t)
	const maxRunning = 3
	args := []string{"--role", "all", "--listen", "127.0.0.1:0", "--db", dsn, "--table", table,
		"--storage", filepath.Join(t.TempDir(), "archives"), "--poll", "100ms", "--heartbeat", "100ms",
		"--workers", "2", "--max-running", strconv.Itoa(maxRunning), "--test-export-throttle", "20000",
		"--portal-name", "Example Biodiversity Portal"}
	// With an SMTP server (mailpit) the contact form is on: the script
	// sends a message through it and the test reads it there.
	var pit *mailpit.Server
	alice, contact := "alice@example.org", "0"
	if os.Getenv("DOWNLOADER_TEST_MAILPIT") != "" || os.Getenv("CI") == "true" {
		pit = mailpit.Shared(t)
		alice, contact = mailpit.Address("alice"), "1"
		args = append(args, "--smtp", pit.SMTP, "--smtp-from", "Portal <portal@example.org>")
	}
	if out, err := exec.Command(bin, "migrate", "--db", dsn).CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v %s", err, out)
	}
	add := exec.Command(bin, "user", "add", "alice", "--email", alice, "--db", dsn)
	add.Stdin = strings.NewReader(password("alice") + "\n")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("user add: %v %s", err, out)
	}
	p := startServe(t, bin, nil, args...)
	cmd := exec.Command(node, "e2e.mjs")
	cmd.Dir = "e2e"
	cmd.Env = append(os.Environ(), "BASE_URL="+p.base, "E2E_USER=alice", "E2E_PASSWORD="+password("alice"),
		"E2E_MAX_RUNNING="+strconv.Itoa(maxRunning), "CHROMIUM="+chromiumPath, "E2E_CONTACT="+contact,
		"SCREENSHOTS="+os.Getenv("DOWNLOADER_SCREENSHOTS"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	t.Logf("e2e.mjs (%s):\n%s", time.Since(start).Round(time.Second), out.String())
	if err != nil {
		t.Fatalf("e2e.mjs failed: %v", err)
	}
	// The script's last line counts its checks; every one must have run.
	var passed, failed int
	var subject string
	re := regexp.MustCompile(`^(\d+) passed, (\d+) failed$`)
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			passed, _ = strconv.Atoi(m[1])
			failed, _ = strconv.Atoi(m[2])
		}
		if v, ok := strings.CutPrefix(sc.Text(), "contact-subject: "); ok {
			subject = v
		}
	}
	if failed != 0 || passed < 18 {
		t.Fatalf("%d checks passed, %d failed; want 18 passed", passed, failed)
	}
	if pit != nil {
		checkContactMail(t, pit, alice, subject)
		checkNoticeLinksThePage(t, pit, alice, p.base)
	}
}

// checkNoticeLinksThePage: a success notice of a server that serves the
// page, started without --public-url (the listener's address is its
// public URL), links the download's page view, not the API's status JSON.
func checkNoticeLinksThePage(t *testing.T, pit *mailpit.Server, to, base string) {
	t.Helper()
	want := "with its datasets:\n  " + base + "/occurrence/download/"
	seen := 0
	for _, m := range pit.Messages(t, to) {
		if !strings.Contains(m.Subject, "is ready") {
			continue
		}
		seen++
		if !strings.Contains(strings.ReplaceAll(m.Text, "\r\n", "\n"), want) {
			t.Errorf("the notice %q does not link the page (%q):\n%s", m.Subject, want, m.Text)
		}
		checkNoticeLinksAnswer(t, pit, m, base)
		checkMailHTML(t, pit, m)
	}
	if seen == 0 {
		t.Error("no success notice reached the user")
	}
}

// checkNoticeLinksAnswer: mailpit requests every link of notice m (HEAD,
// as mail security scanners do); each on the service (base) answers 200,
// the download's page and its archive among them. Links elsewhere (a
// licence's deed) are not reachable from the test machine and are not
// checked.
func checkNoticeLinksAnswer(t *testing.T, pit *mailpit.Server, m mailpit.Message, base string) {
	t.Helper()
	var page, archive bool
	for _, l := range pit.CheckLinks(t, m.ID) {
		if !strings.HasPrefix(l.URL, base+"/") {
			continue
		}
		if l.StatusCode != http.StatusOK {
			t.Errorf("the notice %q links %s, which answers %d %s", m.Subject, l.URL, l.StatusCode, l.Status)
		}
		page = page || strings.Contains(l.URL, "/occurrence/download/")
		archive = archive || strings.HasSuffix(l.URL, ".zip") || strings.HasSuffix(l.URL, ".avro") // SIMPLE_AVRO's file
	}
	if !page || !archive {
		t.Errorf("the notice %q: link check saw the page %v, the archive %v", m.Subject, page, archive)
	}
}

// checkContactMail finds the message the page's contact form sent: to the
// dataset's contact, with the sender in Cc and as Reply-To, not marked
// Auto-Submitted (answers must reach the sender).
func checkContactMail(t *testing.T, pit *mailpit.Server, sender, subject string) {
	t.Helper()
	if subject == "" {
		t.Fatal("the script sent no contact message")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		var found struct {
			Messages []struct {
				ID, Subject string
				To, Cc      []struct{ Address string }
				ReplyTo     []struct{ Address string }
			}
		}
		resp, err := http.Get(pit.API + "/api/v1/search?query=" + url.QueryEscape(`cc:"`+sender+`"`))
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&found)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range found.Messages {
			if !strings.Contains(m.Subject, subject) {
				continue
			}
			if len(m.To) != 1 || m.To[0].Address == sender || len(m.Cc) != 1 || m.Cc[0].Address != sender ||
				len(m.ReplyTo) != 1 || m.ReplyTo[0].Address != sender {
				t.Fatalf("contact message to %v cc %v reply-to %v, want the dataset's contact, cc and reply-to %s", m.To, m.Cc, m.ReplyTo, sender)
			}
			if h := pit.Headers(t, m.ID); len(h["Auto-Submitted"]) != 0 {
				t.Fatalf("a relayed message is marked Auto-Submitted: %v", h["Auto-Submitted"])
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no message with subject %q in copy to %s", subject, sender)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
