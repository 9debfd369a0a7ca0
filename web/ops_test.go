package web_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// scrape reads /metrics.
func (s *server) scrape() map[string]*dto.MetricFamily {
	s.t.Helper()
	r := expect(s.t, s.do("GET", "/metrics", "", nil), http.StatusOK)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(r.body))
	if err != nil {
		s.t.Fatalf("metrics: %v\n%s", err, r.body)
	}
	return fams
}

// metricValue is the value of the series of family name with labels
// (counter, gauge, or a histogram's count); ok is false when absent.
func metricValue(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	f, ok := fams[name]
	if !ok {
		return 0, false
	}
series:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if have[k] != v {
				continue series
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// TestMetricsAfterDownload makes a real download through the API and checks
// that the counters moved by what the download says it did.
func TestMetricsAfterDownload(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{metrics: prometheus.NewRegistry()})
	before := s.scrape()
	key := s.submit("alice", `{"format":"SIMPLE_CSV"}`)
	d := s.waitStatus(key, 2*time.Minute, jobs.StatusSucceeded)
	if d.TotalRecords == 0 || d.Size == 0 {
		t.Fatalf("download %+v", d)
	}
	delta := func(after map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
		a, ok := metricValue(after, name, labels)
		if !ok {
			return -1
		}
		b, _ := metricValue(before, name, labels)
		return a - b
	}
	csv := map[string]string{"format": "SIMPLE_CSV"}
	want := []struct {
		name   string
		labels map[string]string
		delta  float64
	}{
		{"downloader_downloads_total", map[string]string{"status": "PREPARING", "format": "SIMPLE_CSV"}, 1},
		{"downloader_downloads_total", map[string]string{"status": "SUCCEEDED", "format": "SIMPLE_CSV"}, 1},
		{"downloader_export_records_written_total", csv, float64(d.TotalRecords)},
		{"downloader_export_bytes_written_total", csv, float64(d.Size)},
		{"downloader_export_stage_seconds", map[string]string{"stage": "scan", "format": "SIMPLE_CSV"}, 1},
		{"downloader_export_stage_seconds", map[string]string{"stage": "compress", "format": "SIMPLE_CSV"}, 1},
		{"downloader_export_stage_seconds", map[string]string{"stage": "upload", "format": "SIMPLE_CSV"}, 1},
		{"downloader_http_requests_total", map[string]string{"route": "/v1/occurrence/download/request", "method": "POST", "code": "201"}, 1},
	}
	// The success is counted just after it is committed: wait for it.
	var after map[string]*dto.MetricFamily
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		after = s.scrape()
		if delta(after, "downloader_downloads_total", want[1].labels) == 1 || time.Now().After(deadline) {
			break
		}
	}
	for _, w := range want {
		if got := delta(after, w.name, w.labels); got != w.delta {
			t.Errorf("%s%v moved by %v, want %v", w.name, w.labels, got, w.delta)
		}
	}
	if got := delta(after, "downloader_export_records_scanned_total", csv); got < float64(d.TotalRecords) {
		t.Errorf("records scanned moved by %v, fewer than the %d written", got, d.TotalRecords)
	}
	if n, ok := metricValue(after, "downloader_http_requests_total", map[string]string{
		"route": "/v1/occurrence/download/{key}", "method": "GET", "code": "200"}); !ok || n < 1 {
		t.Errorf("status polls not counted under their pattern: %v", n)
	}
	for name, f := range after {
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if strings.Contains(l.GetValue(), key) {
					t.Errorf("%s has a label with the download key: %s=%s", name, l.GetName(), l.GetValue())
				}
			}
		}
	}
	if n, ok := metricValue(after, "downloader_queue_downloads", map[string]string{"status": "RUNNING"}); !ok || n != 0 {
		t.Errorf("running downloads %v %v", n, ok)
	}
	if age, ok := metricValue(after, "downloader_queue_oldest_seconds", nil); !ok || age != 0 {
		t.Errorf("oldest queued download age %v %v with none queued", age, ok)
	}
	if age, ok := metricValue(after, "downloader_table_snapshot_age_seconds", nil); !ok || age < 0 || age > 24*3600 {
		t.Errorf("snapshot age %v %v", age, ok)
	}
	s.do("GET", "/no/such/path/"+key, "", nil)
	if n, ok := metricValue(s.scrape(), "downloader_http_requests_total", map[string]string{"route": "unmatched", "code": "404"}); !ok || n != 1 {
		t.Errorf("unmatched requests %v %v", n, ok)
	}
}

// TestQueueMetrics: a download waiting for a worker shows in the queue
// depth and its age.
func TestQueueMetrics(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{metrics: prometheus.NewRegistry(), role: jobs.RoleAPI})
	s.submit("alice", `{"format":"SIMPLE_CSV"}`)
	time.Sleep(1100 * time.Millisecond)
	fams := s.scrape()
	if n, _ := metricValue(fams, "downloader_queue_downloads", map[string]string{"status": "PREPARING"}); n != 1 {
		t.Errorf("queued downloads %v, want 1", n)
	}
	if age, _ := metricValue(fams, "downloader_queue_oldest_seconds", nil); age < 1 || age > 60 {
		t.Errorf("oldest queued download is %vs old", age)
	}
}

// TestHealthAndReadiness: /healthz answers while the process serves;
// /readyz names the component that stopped answering.
func TestHealthAndReadiness(t *testing.T) {
	// The api role runs no workers, so the database can be closed under it.
	s := startServer(t, sqliteDSN(t), options{role: jobs.RoleAPI})
	expect(t, s.do("GET", "/healthz", "", nil), http.StatusOK)
	type ready struct {
		Status string            `json:"status"`
		Failed []string          `json:"failed"`
		Checks map[string]string `json:"checks"`
	}
	var r ready
	if err := json.Unmarshal(expect(t, s.do("GET", "/readyz", "", nil), http.StatusOK).body, &r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "ok" || len(r.Checks) != 3 || r.Checks["database"] != "ok" || r.Checks["table"] != "ok" || r.Checks["storage"] != "ok" {
		t.Errorf("ready: %+v", r)
	}
	if err := os.RemoveAll(s.archive); err != nil {
		t.Fatal(err)
	}
	r = ready{}
	if err := json.Unmarshal(expect(t, s.do("GET", "/readyz", "", nil), http.StatusServiceUnavailable).body, &r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "unavailable" || len(r.Failed) != 1 || r.Failed[0] != "storage" || r.Checks["database"] != "ok" {
		t.Errorf("storage gone: %+v", r)
	}
	if err := s.db.Close(); err != nil {
		t.Fatal(err)
	}
	r = ready{}
	if err := json.Unmarshal(expect(t, s.do("GET", "/readyz", "", nil), http.StatusServiceUnavailable).body, &r); err != nil {
		t.Fatal(err)
	}
	if r.Checks["database"] != "failed" {
		t.Errorf("database closed: %+v", r)
	}
	expect(t, s.do("GET", "/metrics", "", nil), http.StatusNotFound) // not enabled in this server
}

// TestArchiveValidators: the archive carries a strong ETag (its SHA-256),
// Last-Modified and Repr-Digest; conditional requests get 304; Range with
// If-Range resumes only the same archive; {key}.zip.sha256 checks a copy
// with sha256sum.
func TestArchiveValidators(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{})
	key := s.submit("alice", `{"format":"DWCA"}`)
	d := s.waitStatus(key, 2*time.Minute, jobs.StatusSucceeded)
	path := "/v1/occurrence/download/request/" + key + ".zip"
	full := expect(t, s.do("GET", path, "", nil), http.StatusOK)
	sum := sha256.Sum256(full.body)
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	lastMod := full.header.Get("Last-Modified")
	if d.SHA256 != hex.EncodeToString(sum[:]) || full.header.Get("ETag") != etag || lastMod == "" ||
		full.header.Get("Repr-Digest") != "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":" {
		t.Fatalf("validators %v (status sha256 %s)", full.header, d.SHA256)
	}
	if r := expect(t, s.do("GET", path, "", nil, "If-None-Match", etag), http.StatusNotModified); len(r.body) != 0 || r.header.Get("ETag") != etag {
		t.Errorf("304 with %d bytes, ETag %q", len(r.body), r.header.Get("ETag"))
	}
	expect(t, s.do("GET", path, "", nil, "If-None-Match", `"0000"`), http.StatusOK)
	expect(t, s.do("GET", path, "", nil, "If-Modified-Since", lastMod), http.StatusNotModified)
	// A transfer interrupted at 1000 bytes resumes from there.
	for _, validator := range []string{etag, lastMod} {
		r := expect(t, s.do("GET", path, "", nil, "Range", "bytes=1000-", "If-Range", validator), http.StatusPartialContent)
		if !bytes.Equal(r.body, full.body[1000:]) {
			t.Errorf("If-Range %s: resumed bytes differ", validator)
		}
	}
	// A copy of another archive starts over: the whole archive, 200.
	r := expect(t, s.do("GET", path, "", nil, "Range", "bytes=1000-", "If-Range", `"another"`), http.StatusOK)
	if !bytes.Equal(r.body, full.body) {
		t.Error("If-Range with another ETag did not send the whole archive")
	}
	// A weak validator never matches If-Range.
	expect(t, s.do("GET", path, "", nil, "Range", "bytes=1000-", "If-Range", "W/"+etag), http.StatusOK)

	line := expect(t, s.do("GET", path+".sha256", "", nil), http.StatusOK)
	if string(line.body) != hex.EncodeToString(sum[:])+"  "+key+".zip\n" {
		t.Fatalf("checksum line %q", line.body)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, key+".zip"), full.body, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, key+".zip.sha256"), line.body, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("sha256sum"); err == nil {
		cmd := exec.Command("sha256sum", "-c", key+".zip.sha256")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c: %v %s", err, out)
		}
	}
	expect(t, s.do("GET", "/v1/occurrence/download/request/0000999-261130010203004.zip.sha256", "", nil), http.StatusNotFound)
}
