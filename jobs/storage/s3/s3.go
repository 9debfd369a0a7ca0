// Package s3 stores download archives in an S3 bucket (AWS or any
// compatible server such as versitygw or MinIO). An archive is streamed as a
// multipart upload and becomes visible only when the upload is completed, so
// a killed writer leaves no partial object; Sweep aborts its abandoned uploads.
// Clients are redirected to a presigned URL, which supports Range requests.
package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// Config locates the bucket.
type Config struct {
	Bucket string
	// Prefix is prepended to object names ("downloads/").
	Prefix string
	// Endpoint is the server's URL; empty means AWS.
	Endpoint string
	Region   string
	// AccessKey and SecretKey; empty means the SDK's default chain is not
	// consulted either: anonymous requests.
	AccessKey, SecretKey string
	// PathStyle addresses bucket/key in the path (needed by most
	// self-hosted servers).
	PathStyle bool
	// PartSize is the multipart part size (at least 5 MiB; default 8 MiB).
	PartSize int
	// LinkExpiry is how long a presigned download link is valid (1 h).
	LinkExpiry time.Duration
}

// Store is an S3 bucket of archives.
type Store struct {
	cfg     Config
	client  *s3.Client
	presign *s3.PresignClient
}

var (
	_ jobs.Storage        = (*Store)(nil)
	_ jobs.StorageChecker = (*Store)(nil)
	_ jobs.UploadAborter  = (*Store)(nil)
)

// New returns a Store; it checks that the bucket exists.
func New(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Bucket == "" {
		return nil, errors.New("s3: no bucket")
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if cfg.PartSize < 5<<20 {
		cfg.PartSize = 8 << 20
	}
	if cfg.LinkExpiry == 0 {
		cfg.LinkExpiry = time.Hour
	}
	opts := s3.Options{
		Region:                     cfg.Region,
		UsePathStyle:               cfg.PathStyle,
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
	if cfg.Endpoint != "" {
		opts.BaseEndpoint = aws.String(cfg.Endpoint)
	}
	if cfg.AccessKey != "" {
		opts.Credentials = credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, "")
	}
	client := s3.New(opts)
	if _, err := client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &cfg.Bucket}); err != nil {
		return nil, fmt.Errorf("s3: bucket %s: %w", cfg.Bucket, err)
	}
	return &Store{cfg: cfg, client: client, presign: s3.NewPresignClient(client)}, nil
}

func (s *Store) key(name string) string { return path.Join(s.cfg.Prefix, name) }

// Create starts a multipart upload.
func (s *Store) Create(ctx context.Context, name string, file jobs.File) (jobs.Upload, error) {
	key := s.key(name)
	in := &s3.CreateMultipartUploadInput{Bucket: &s.cfg.Bucket, Key: &key}
	// A link to the object names and types the file as the API serves it,
	// not by the object's key.
	if file.ContentType != "" {
		in.ContentType = aws.String(file.ContentType)
	}
	if file.Name != "" {
		in.ContentDisposition = aws.String(`attachment; filename="` + file.Name + `"`)
	}
	out, err := s.client.CreateMultipartUpload(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("s3: start upload %s: %w", key, err)
	}
	return &upload{s: s, ctx: ctx, key: key, id: *out.UploadId, buf: make([]byte, 0, s.cfg.PartSize)}, nil
}

type upload struct {
	s     *Store
	ctx   context.Context // the export's context, for part uploads from Write
	key   string
	id    string
	buf   []byte
	parts []types.CompletedPart
	done  bool
}

func (u *upload) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), cap(u.buf)-len(u.buf))
		u.buf = append(u.buf, p[:k]...)
		p, n = p[k:], n+k
		if len(u.buf) == cap(u.buf) {
			if err := u.flush(u.ctx); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

func (u *upload) flush(ctx context.Context) error {
	num := int32(len(u.parts) + 1)
	out, err := u.s.client.UploadPart(ctx, &s3.UploadPartInput{Bucket: &u.s.cfg.Bucket, Key: &u.key,
		UploadId: &u.id, PartNumber: aws.Int32(num), Body: bytes.NewReader(u.buf),
		ContentLength: aws.Int64(int64(len(u.buf)))})
	if err != nil {
		return fmt.Errorf("s3: upload part %d of %s: %w", num, u.key, err)
	}
	u.parts = append(u.parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(num)})
	u.buf = u.buf[:0]
	return nil
}

// Commit uploads the last part and completes the upload: only now does the
// object exist.
func (u *upload) Commit(ctx context.Context) error {
	if len(u.buf) > 0 || len(u.parts) == 0 {
		if err := u.flush(ctx); err != nil {
			_ = u.Abort(ctx)
			return err
		}
	}
	_, err := u.s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: &u.s.cfg.Bucket, Key: &u.key, UploadId: &u.id,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: u.parts}})
	if err != nil {
		_ = u.Abort(ctx)
		return fmt.Errorf("s3: complete %s: %w", u.key, err)
	}
	u.done = true
	return nil
}

func (u *upload) Abort(ctx context.Context) error {
	if u.done {
		return nil
	}
	u.done = true
	_, err := u.s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
		Bucket: &u.s.cfg.Bucket, Key: &u.key, UploadId: &u.id})
	return err
}

// Open checks that the object exists and returns a presigned link to it.
func (s *Store) Open(ctx context.Context, name string) (jobs.Object, error) {
	key := s.key(name)
	head, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.cfg.Bucket, Key: &key})
	if err != nil {
		var apiErr smithy.APIError
		if errors.As(err, &apiErr) && (apiErr.ErrorCode() == "NotFound" || apiErr.ErrorCode() == "NoSuchKey") {
			return jobs.Object{}, fmt.Errorf("%w: %s", jobs.ErrNotFound, key)
		}
		return jobs.Object{}, fmt.Errorf("s3: %s: %w", key, err)
	}
	req, err := s.presign.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: &s.cfg.Bucket, Key: &key},
		s3.WithPresignExpires(s.cfg.LinkExpiry))
	if err != nil {
		return jobs.Object{}, fmt.Errorf("s3: presign %s: %w", key, err)
	}
	o := jobs.Object{URL: req.URL, Size: aws.ToInt64(head.ContentLength)}
	if head.LastModified != nil {
		o.ModTime = *head.LastModified
	}
	return o, nil
}

// Check reports whether the bucket answers (jobs.StorageChecker).
func (s *Store) Check(ctx context.Context) error {
	if _, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &s.cfg.Bucket}); err != nil {
		return fmt.Errorf("s3: bucket %s: %w", s.cfg.Bucket, err)
	}
	return nil
}

// Delete removes an object.
func (s *Store) Delete(ctx context.Context, name string) error {
	key := s.key(name)
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.cfg.Bucket, Key: &key}); err != nil {
		return fmt.Errorf("s3: delete %s: %w", key, err)
	}
	return nil
}

// Sweep aborts multipart uploads under the prefix started before olderThan.
func (s *Store) Sweep(ctx context.Context, olderThan time.Time) error {
	prefix := strings.TrimSuffix(s.cfg.Prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	return s.abortUploads(ctx, prefix, func(up types.MultipartUpload) bool {
		return up.Initiated != nil && !up.Initiated.After(olderThan)
	})
}

// AbortUploads aborts the multipart uploads of the objects whose names
// begin with prefix (jobs.UploadAborter).
func (s *Store) AbortUploads(ctx context.Context, prefix string) error {
	return s.abortUploads(ctx, s.key(prefix), func(types.MultipartUpload) bool { return true })
}

// abortUploads aborts the uploads under the key prefix that match, page by
// page.
func (s *Store) abortUploads(ctx context.Context, prefix string, match func(types.MultipartUpload) bool) error {
	in := &s3.ListMultipartUploadsInput{Bucket: &s.cfg.Bucket, Prefix: &prefix}
	for {
		out, err := s.client.ListMultipartUploads(ctx, in)
		if err != nil {
			return fmt.Errorf("s3: list uploads: %w", err)
		}
		for _, up := range out.Uploads {
			if !match(up) {
				continue
			}
			if _, err := s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
				Bucket: &s.cfg.Bucket, Key: up.Key, UploadId: up.UploadId}); err != nil {
				return fmt.Errorf("s3: abort %s: %w", aws.ToString(up.Key), err)
			}
		}
		if !aws.ToBool(out.IsTruncated) {
			return nil
		}
		in.KeyMarker, in.UploadIdMarker = out.NextKeyMarker, out.NextUploadIdMarker
	}
}
