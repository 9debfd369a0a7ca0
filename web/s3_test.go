package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/jobs/storage/s3"
)

// s3Config reads DOWNLOADER_TEST_S3 (http://host:port/bucket?access=K&secret=S)
// and gives each test its own prefix.
func s3Config(t *testing.T) s3.Config {
	t.Helper()
	raw := testenv.Need(t, "DOWNLOADER_TEST_S3", "scripts/ci/versitygw.sh")
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return s3.Config{Bucket: strings.Trim(u.Path, "/"), Endpoint: u.Scheme + "://" + u.Host, PathStyle: true,
		AccessKey: u.Query().Get("access"), SecretKey: u.Query().Get("secret"),
		Prefix: "test-" + time.Now().UTC().Format("150405.000000000"), PartSize: 5 << 20}
}

func listObjects(t *testing.T, cfg s3.Config) []string {
	t.Helper()
	out, err := s3Client(cfg).ListObjectsV2(context.Background(), &awss3.ListObjectsV2Input{Bucket: &cfg.Bucket, Prefix: aws.String(cfg.Prefix + "/")})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, aws.ToString(o.Key))
	}
	return keys
}

// TestS3Storage exports into a real S3 server (versitygw): nothing is
// visible until the multipart upload completes; the API redirects to a
// presigned URL that serves the archive and ranges of it.
func TestS3Storage(t *testing.T) {
	cfg := s3Config(t)
	store, err := s3.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, sqliteDSN(t), options{storage: store, throttle: 40_000})
	key := s.submit("alice", `{"format":"DWCA"}`)
	for {
		d := s.status(key, "alice")
		if d.Status == jobs.StatusSucceeded {
			t.Fatal("finished before it was seen mid-export; throttle more")
		}
		if d.Status == jobs.StatusRunning && d.Progress != nil && d.Progress.BytesWritten > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if objs := listObjects(t, cfg); len(objs) != 0 {
		t.Fatalf("objects visible mid-export: %v", objs)
	}
	expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusNotFound)
	d := s.waitStatus(key, 2*time.Minute, jobs.StatusSucceeded)
	if objs := listObjects(t, cfg); len(objs) != 1 {
		t.Fatalf("objects after export: %v", objs)
	}
	r := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusFound)
	loc := r.header.Get("Location")
	body := fetch(t, loc, "")
	if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != d.SHA256 || int64(len(body)) != d.Size {
		t.Fatalf("S3 object (%d bytes) differs from the recorded archive (%d)", len(body), d.Size)
	}
	if _, rows := readArchive(t, body); int64(rows) != d.TotalRecords {
		t.Fatalf("%d rows, want %d", rows, d.TotalRecords)
	}
	if part := fetch(t, loc, "bytes=100-199"); string(part) != string(body[100:200]) {
		t.Fatal("range from S3 differs")
	}
	// A SIMPLE_AVRO download is stored as its one Avro file, typed as
	// bytes rather than as a zip.
	akey := s.submit("alice", `{"format":"SIMPLE_AVRO","predicate":`+familyPredicate+`}`)
	s.waitStatus(akey, 2*time.Minute, jobs.StatusSucceeded)
	aloc := expect(t, s.do("GET", "/v1/occurrence/download/request/"+akey+".avro", "", nil), http.StatusFound).header.Get("Location")
	// A link to the object names the file as the API does, not by its key.
	if ct, name := headType(t, aloc); ct != "application/octet-stream" || name != akey+".avro" {
		t.Errorf("Avro object typed %q, named %q", ct, name)
	}
	if ct, name := headType(t, loc); ct != "application/zip" || name != key+".zip" {
		t.Errorf("zip object typed %q, named %q", ct, name)
	}
	if avro := fetch(t, aloc, ""); !strings.HasPrefix(string(avro), "Obj\x01") {
		t.Errorf("Avro object starts %q", avro[:min(len(avro), 4)])
	}
	// Erasure deletes the objects.
	if n, err := s.svc.EraseExpired(context.Background(), time.Now().Add(400*24*time.Hour)); err != nil || n != 2 {
		t.Fatalf("erased %d: %v", n, err)
	}
	if objs := listObjects(t, cfg); len(objs) != 0 {
		t.Fatalf("objects after erase: %v", objs)
	}
}

// headType is the Content-Type the storage answers for u, and the file
// name of its Content-Disposition (a presigned GET: its first bytes are
// asked for, since HEAD is not what it signs).
func headType(t *testing.T, u string) (contentType, fileName string) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Range", "bytes=0-3")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	_, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Disposition"))
	return resp.Header.Get("Content-Type"), params["filename"]
}

func fetch(t *testing.T, u, rng string) []byte {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("GET %s: %s %v", u, resp.Status, err)
	}
	return b
}
