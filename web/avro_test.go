package web_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/twmb/avro/ocf"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// A SIMPLE_AVRO download is GBIF's one .avro file: its link, its file, its
// name and type when served, its checksum line, and the records the API
// counts for the same predicate.
func TestSimpleAvroDownloadAPI(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{})
	key := s.submit("alice", `{"sendNotification":false,"format":"SIMPLE_AVRO","predicate":`+familyPredicate+`}`)
	d := s.waitStatus(key, 2*time.Minute, jobs.StatusSucceeded, jobs.StatusFailed)
	if d.Status != jobs.StatusSucceeded {
		t.Fatalf("download %s: %s %s", key, d.Status, d.Error)
	}
	if !strings.HasSuffix(d.DownloadLink, "/v1/occurrence/download/request/"+key+".avro") {
		t.Errorf("downloadLink %q, want GBIF's KEY.avro", d.DownloadLink)
	}
	r := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".avro", "", nil), http.StatusOK)
	if ct, cd := r.header.Get("Content-Type"), r.header.Get("Content-Disposition"); ct != "application/octet-stream" || cd != `attachment; filename="`+key+`.avro"` {
		t.Errorf("served as %q, %q", ct, cd)
	}
	rd, err := ocf.NewReader(bytes.NewReader(r.body))
	if err != nil {
		t.Fatalf("not an Avro file: %v", err)
	}
	n := int64(0)
	for {
		var rec map[string]any
		err := rd.Decode(&rec)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("record %d: %v", n, err)
		}
		if rec["stateProvince"] != "Nigde" {
			t.Fatalf("record %d: stateProvince %v, outside the predicate", n, rec["stateProvince"])
		}
		n++
	}
	if want := s.count(familyPredicate).Count; n != want || n == 0 || d.TotalRecords != n {
		t.Errorf("%d records in the file, totalRecords %d, the API counts %d", n, d.TotalRecords, want)
	}
	// pygbif and rgbif ask for the key alone; the checksum names the file.
	if plain := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key, "", nil), http.StatusOK); !bytes.Equal(plain.body, r.body) {
		t.Error("the key alone serves other bytes")
	}
	sum := sha256.Sum256(r.body)
	line := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".avro.sha256", "", nil), http.StatusOK)
	if want := hex.EncodeToString(sum[:]) + "  " + key + ".avro\n"; string(line.body) != want || d.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("checksum %q, want %q (status sha256 %s)", line.body, want, d.SHA256)
	}
}
