package web_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/jobs/storage/s3"
	"github.com/biodiversity-downloads/downloader/jobs/tableexport"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// bigRecords makes a DWCA of about 12 MB from generated records: three
// parts of the tests' 5 MiB multipart uploads.
const bigRecords = 48000

var bigFixture struct {
	once sync.Once
	dir  string
}

// bigTable is a generated table (next to the fixture, removed with it)
// whose DWCA spans several S3 parts; built on first use.
func bigTable(t *testing.T) string {
	t.Helper()
	buildFixture(t)
	bigFixture.once.Do(func() {
		dir := filepath.Join(fixture.dir, "bigtable")
		st, err := parquet.Open(dir, parquet.Config{}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		occurrencetest.Load(t, st, bigRecords, 4)
		bigFixture.dir = dir
	})
	if bigFixture.dir == "" {
		t.Fatal("the big table was not built")
	}
	return bigFixture.dir
}

// bigEngine opens the big table for an in-process service.
func bigEngine(t *testing.T) func(jobs.Engine) jobs.Engine {
	st, err := parquet.Open(bigTable(t), parquet.Config{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return func(jobs.Engine) jobs.Engine { return tableexport.New(st, tableexport.Config{}, nil) }
}

func s3Client(cfg s3.Config) *awss3.Client {
	return awss3.New(awss3.Options{Region: "us-east-1", UsePathStyle: true, BaseEndpoint: aws.String(cfg.Endpoint),
		Credentials: credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, "")})
}

// pendingUploads lists the unfinished multipart uploads under the test's
// prefix with their part counts.
func pendingUploads(t *testing.T, cfg s3.Config) map[string]int {
	t.Helper()
	ctx := context.Background()
	c := s3Client(cfg)
	out, err := c.ListMultipartUploads(ctx, &awss3.ListMultipartUploadsInput{Bucket: &cfg.Bucket, Prefix: aws.String(cfg.Prefix + "/")})
	if err != nil {
		t.Fatal(err)
	}
	ups := map[string]int{}
	for _, u := range out.Uploads {
		parts, err := c.ListParts(ctx, &awss3.ListPartsInput{Bucket: &cfg.Bucket, Key: u.Key, UploadId: u.UploadId})
		if _, gone := errors.AsType[*types.NoSuchUpload](err); gone {
			continue // aborted between the listing and this call
		}
		if err != nil {
			t.Fatal(err)
		}
		ups[aws.ToString(u.Key)] = len(parts.Parts)
	}
	return ups
}

// get fetches u with a client that follows redirects, as browsers and
// download managers do, sending hdr (name, value pairs).
func get(t *testing.T, u string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// TestS3MultipartArchive: an archive larger than the part size is uploaded
// in parts and published whole; the API's redirect to the presigned URL is
// followed by a real client and gives the archive's bytes; an interrupted
// transfer resumes through the redirect with Range and If-Range (the
// validators the client got from storage); erasure deletes the object.
func TestS3MultipartArchive(t *testing.T) {
	cfg := s3Config(t)
	store, err := s3.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, sqliteDSN(t), options{storage: store, engine: bigEngine(t)})
	key := s.submit("alice", `{"format":"DWCA"}`)
	d := s.waitStatus(key, 3*time.Minute, jobs.StatusSucceeded)
	if d.Size <= 2*int64(cfg.PartSize) {
		t.Fatalf("archive of %d bytes: not over two %d-byte parts", d.Size, cfg.PartSize)
	}
	objs := listObjects(t, cfg)
	if len(objs) != 1 {
		t.Fatalf("objects %v", objs)
	}
	if ups := pendingUploads(t, cfg); len(ups) != 0 {
		t.Fatalf("pending uploads after success: %v", ups)
	}
	head, err := s3Client(cfg).HeadObject(context.Background(), &awss3.HeadObjectInput{Bucket: &cfg.Bucket, Key: &objs[0]})
	if err != nil {
		t.Fatal(err)
	}
	// A multipart object's ETag ends with its number of parts.
	_, n, _ := strings.Cut(strings.Trim(aws.ToString(head.ETag), `"`), "-")
	if parts, _ := strconv.Atoi(n); int64(parts) != (d.Size+int64(cfg.PartSize)-1)/int64(cfg.PartSize) {
		t.Fatalf("object ETag %s: %q parts for %d bytes", aws.ToString(head.ETag), n, d.Size)
	}

	path := "/v1/occurrence/download/request/" + key + ".zip"
	if r := expect(t, s.do("GET", path, "", nil), http.StatusFound); !strings.HasPrefix(r.header.Get("Location"), cfg.Endpoint) {
		t.Fatalf("redirect to %q", r.header.Get("Location"))
	}
	resp, body := get(t, s.URL+path)
	sum := sha256.Sum256(body)
	if resp.StatusCode != http.StatusOK || int64(len(body)) != d.Size || hex.EncodeToString(sum[:]) != d.SHA256 {
		t.Fatalf("through the redirect: %s, %d bytes, want %d with SHA-256 %s", resp.Status, len(body), d.Size, d.SHA256)
	}
	etag, lastMod := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if etag == "" || lastMod == "" {
		t.Fatalf("storage gave no validators: %v", resp.Header)
	}
	// The transfer broke after 7 MB; it resumes from there.
	const from = 7_000_000
	for _, validator := range []string{etag, lastMod} {
		resp, part := get(t, s.URL+path, "Range", "bytes="+strconv.Itoa(from)+"-", "If-Range", validator)
		if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(part, body[from:]) ||
			resp.Header.Get("Content-Range") != "bytes "+strconv.Itoa(from)+"-"+strconv.FormatInt(d.Size-1, 10)+"/"+strconv.FormatInt(d.Size, 10) {
			t.Fatalf("resume with If-Range %s: %s, %d bytes, %s", validator, resp.Status, len(part), resp.Header.Get("Content-Range"))
		}
	}
	if resp, _ := get(t, s.URL+path, "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match through the redirect: %s", resp.Status)
	}
	// The checksum route gives what the bytes hash to.
	if line := expect(t, s.do("GET", path+".sha256", "", nil), http.StatusOK); string(line.body) != d.SHA256+"  "+key+".zip\n" {
		t.Errorf("checksum %q", line.body)
	}

	if n, err := s.svc.EraseExpired(context.Background(), time.Now().Add(400*24*time.Hour)); err != nil || n != 1 {
		t.Fatalf("erased %d: %v", n, err)
	}
	if objs := listObjects(t, cfg); len(objs) != 0 {
		t.Fatalf("objects after erasure: %v", objs)
	}
	expect(t, s.do("GET", path, "", nil), http.StatusGone)
}

// waitBytes polls until the export of key has written at least n bytes.
func (s *server) waitBytes(key string, n int64) {
	s.t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		d := s.status(key, "alice")
		if d.Progress != nil && d.Progress.BytesWritten >= n {
			return
		}
		if !d.Status.Active() || time.Now().After(deadline) {
			s.t.Fatalf("download %s is %s with %+v, waiting for %d bytes", key, d.Status, d.Progress, n)
		}
	}
}

// TestS3UploadCancelledMidway: an export cancelled after its first parts
// were uploaded leaves no object and no pending multipart upload.
func TestS3UploadCancelledMidway(t *testing.T) {
	cfg := s3Config(t)
	store, err := s3.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, sqliteDSN(t), options{storage: store, engine: bigEngine(t), throttle: 4 << 20})
	key := s.submit("alice", `{"format":"DWCA"}`)
	s.waitBytes(key, int64(cfg.PartSize)+1<<20)
	if ups := pendingUploads(t, cfg); len(ups) != 1 {
		t.Fatalf("pending uploads mid-export: %v", ups)
	} else {
		for k, parts := range ups {
			if parts < 1 {
				t.Fatalf("upload %s has no part yet", k)
			}
		}
	}
	expect(t, s.do("DELETE", "/v1/occurrence/download/request/"+key, "alice", nil), http.StatusNoContent)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ups, objs := pendingUploads(t, cfg), listObjects(t, cfg)
		if len(ups) == 0 && len(objs) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after cancelling: uploads %v, objects %v", ups, objs)
		}
	}
	if d := s.status(key, "alice"); d.Status != jobs.StatusCancelled {
		t.Fatalf("status %s", d.Status)
	}
}

// TestS3UploadKilledMidway: a worker process killed (SIGKILL) after
// uploading parts publishes nothing; its multipart upload stays pending
// until another worker takes the download over, discards the dead attempt's
// upload and publishes the archive: one object, no pending upload.
func TestS3UploadKilledMidway(t *testing.T) {
	cfg := s3Config(t)
	store, err := s3.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	big := bigTable(t)
	dsn := sqliteDSN(t)
	api := startServer(t, dsn, options{role: jobs.RoleAPI, storage: store})
	t.Setenv("AWS_ACCESS_KEY_ID", cfg.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", cfg.SecretKey)
	spec := "s3://" + cfg.Bucket + "/" + cfg.Prefix + "?endpoint=" + url.QueryEscape(cfg.Endpoint)
	storageArgs := []string{"--table", big, "--storage", spec}
	w := startThrottledWorker(t, dsn, t.TempDir(), 4<<20, storageArgs...)
	key := api.submit("alice", `{"format":"DWCA"}`)
	api.waitBytes(key, int64(cfg.PartSize)+1<<20)
	w.kill9(t)
	ups := pendingUploads(t, cfg)
	if len(ups) != 1 {
		t.Fatalf("pending uploads after the kill: %v", ups)
	}
	if objs := listObjects(t, cfg); len(objs) != 0 {
		t.Fatalf("objects after the kill: %v", objs)
	}
	startWorker(t, dsn, t.TempDir(), storageArgs...)
	d := api.waitStatus(key, 3*time.Minute, jobs.StatusSucceeded)
	if ups := pendingUploads(t, cfg); len(ups) != 0 {
		t.Fatalf("pending uploads after the takeover: %v", ups)
	}
	if objs := listObjects(t, cfg); len(objs) != 1 {
		t.Fatalf("objects after the takeover: %v", objs)
	}
	_, body := get(t, api.URL+"/v1/occurrence/download/request/"+key+".zip")
	if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != d.SHA256 || int64(len(body)) != d.Size {
		t.Fatalf("archive of %d bytes differs from the recorded one (%d)", len(body), d.Size)
	}
}
