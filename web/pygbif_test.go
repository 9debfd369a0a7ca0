package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/internal/readers"
	"github.com/biodiversity-downloads/downloader/internal/testenv"
	"github.com/biodiversity-downloads/downloader/jobs"
)

const pygbifVersion = "0.7.0"

// requirePygbif skips (or fails under CI=true) without pygbif's pinned version.
func requirePygbif(t *testing.T) {
	t.Helper()
	readers.Require(t, "python3")
	out, err := exec.Command("python3", "-c", "import pygbif; print(pygbif.__version__)").Output()
	if err != nil || strings.TrimSpace(string(out)) != pygbifVersion {
		testenv.Missing(t, "pygbif "+pygbifVersion+" not installed (scripts/ci/pygbif.sh installs it)")
	}
}

// runPygbif runs a pygbif script of testdata (python3 SCRIPT ARGS...) with
// env added and returns what it printed; it fails the test with the
// script's stderr when the script fails or outlives timeout.
func runPygbif(t *testing.T, timeout time.Duration, env []string, script string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", append([]string{script}, args...)...)
	// gbif_base.py leaves no __pycache__ in testdata
	cmd.Env = append(append(os.Environ(), env...), "PYTHONWARNINGS=ignore", "PYTHONDONTWRITEBYTECODE=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
	return out
}

// TestPygbif drives the API with GBIF's Python client, pygbif 0.7.0, with
// its defaults and only its base URL changed (web/testdata/pygbif_client.py
// says how): occ.download with its query syntax, download_meta,
// download_get (the zip, and a SIMPLE_AVRO's file), download_citation, download_describe,
// download_cancel and download_list.
func TestPygbif(t *testing.T) {
	requirePygbif(t)
	readers.RequirePython(t, "fastavro")
	// Exports are slowed so that the second download is still running when
	// pygbif cancels it.
	s := startServer(t, sqliteDSN(t), options{throttle: 100_000})
	dir := t.TempDir()
	out := runPygbif(t, 4*time.Minute, []string{"GBIF_USER=alice", "GBIF_PWD=" + password("alice"), "GBIF_EMAIL=alice@example.org"},
		"testdata/pygbif_client.py", s.URL, dir)
	var got struct {
		Key     string
		Payload struct {
			ChecklistKey string
			Format       string
		}
		Meta struct {
			Status       jobs.Status
			Size         int64
			TotalRecords int64
			Source       *string
			Request      map[string]any
		}
		Entries  []string
		CSVLines int   `json:"csv_lines"`
		FileSize int64 `json:"file_size"`
		Get      struct{ Path string }
		Citation string
		Describe map[string]json.RawMessage
		AvroMeta struct {
			Status       jobs.Status
			TotalRecords int64
			DownloadLink string
			Request      struct{ Format string }
		} `json:"avro_meta"`
		AvroRecords int64  `json:"avro_records"`
		AvroSchema  string `json:"avro_schema"`
		Key2        string
		Payload2    struct{ Predicate json.RawMessage }
		Cancel      bool
		Meta2       struct {
			Status  jobs.Status
			Request struct{ Predicate json.RawMessage }
		}
		List struct {
			Meta struct {
				Count        int64
				Endofrecords bool
			}
			Results []struct {
				Key     string
				Source  string
				Request struct{ Creator, ChecklistKey string }
			}
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output %s: %v", out, err)
	}

	// occ.download: pygbif's defaults are taken as they are.
	if !keyRE.MatchString(got.Key) || got.Payload.Format != "SIMPLE_CSV" || got.Payload.ChecklistKey != colKey {
		t.Fatalf("download %q, payload %+v", got.Key, got.Payload)
	}
	// download_meta is anonymous: GBIF's redaction applies.
	want := s.count(`{"type":"equals","key":"COUNTRY","value":"TR"}`).Count
	if got.Meta.Status != jobs.StatusSucceeded || got.Meta.TotalRecords != want || want == 0 || got.Meta.Source != nil ||
		got.Meta.Request["creator"] != nil || got.Meta.Request["checklistKey"] != colKey {
		t.Fatalf("download_meta %+v, want %d records", got.Meta, want)
	}
	// download_get: the zip, written where pygbif writes it.
	if got.Get.Path != filepath.Join(dir, got.Key+".zip") && got.Get.Path != dir+"/"+got.Key+".zip" {
		t.Fatalf("download_get wrote %s", got.Get.Path)
	}
	if got.FileSize != got.Meta.Size || !slices.Equal(got.Entries, []string{got.Key + ".csv"}) || int64(got.CSVLines) != want+1 {
		t.Fatalf("zip of %d bytes (status says %d), entries %v, %d lines for %d records", got.FileSize, got.Meta.Size, got.Entries, got.CSVLines, want)
	}
	// The portal is PublicURL's host (none is configured), the link the
	// download's page under PublicURL.
	if !strings.HasPrefix(got.Citation, "downloads.test (") || !strings.HasSuffix(got.Citation, ") Occurrence Download http://downloads.test/v1/occurrence/download/"+got.Key+"\n") {
		t.Fatalf("download_citation %q", got.Citation)
	}
	for name, f := range map[string]download.Format{"simpleCsv": download.FormatSimpleCSV, "dwca": download.FormatDWCA,
		"speciesList": download.FormatSpeciesList, "simpleParquet": download.FormatSimpleParquet, "simpleAvro": download.FormatSimpleAvro} {
		d, err := download.Describe(f)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		wb, _ := json.Marshal(d)
		_ = json.Unmarshal(wb, &a)
		if err := json.Unmarshal(got.Describe[name], &b); err != nil || !jsonEqual(a, b) {
			t.Errorf("download_describe(%s) differs from the format's description (%v)", name, err)
		}
	}
	// SIMPLE_AVRO through pygbif: its link ends in .avro, and the file
	// download_get saved holds the records the API counts.
	if got.AvroMeta.Status != jobs.StatusSucceeded || got.AvroMeta.Request.Format != "SIMPLE_AVRO" || !strings.HasSuffix(got.AvroMeta.DownloadLink, ".avro") ||
		got.AvroRecords != want || got.AvroMeta.TotalRecords != want || got.AvroSchema != "org.gbif.occurrence.download.avro.SimpleOccurrence" {
		t.Fatalf("SIMPLE_AVRO: %+v, fastavro read %d records of %s, want %d", got.AvroMeta, got.AvroRecords, got.AvroSchema, want)
	}
	// The numeric taxon key went as a number with the Backbone's checklistKey,
	// and was accepted and kept.
	var sent, recorded bytes.Buffer
	_ = json.Compact(&sent, got.Payload2.Predicate)
	_ = json.Compact(&recorded, got.Meta2.Request.Predicate)
	if !strings.Contains(sent.String(), `"value":212,"checklistKey":"`+backboneKey+`"`) ||
		!strings.Contains(recorded.String(), `"value":"212","checklistKey":"`+backboneKey+`"`) {
		t.Fatalf("sent %s, recorded %s", &sent, &recorded)
	}
	if !got.Cancel || got.Meta2.Status != jobs.StatusCancelled {
		t.Fatalf("download_cancel %v, then %s", got.Cancel, got.Meta2.Status)
	}
	// download_list: the owner's view, newest first.
	if got.List.Meta.Count != 3 || !got.List.Meta.Endofrecords || len(got.List.Results) != 3 || got.List.Results[0].Key != got.Key2 ||
		got.List.Results[2].Key != got.Key || got.List.Results[2].Source != "pygbif" || got.List.Results[2].Request.Creator != "alice" {
		t.Fatalf("download_list %+v", got.List)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
