package jobs

import (
	"context"
	"io"
	"time"
)

// Storage keeps finished archives. An archive becomes visible only when its
// Upload is committed; an upload that is aborted or whose process dies is
// never readable (local: temp file + rename; S3: multipart upload completed
// only at the end).
type Storage interface {
	// Create starts writing the object name, whose file is served as file
	// says (a storage that serves it itself, as S3 through its links,
	// names and types it so).
	Create(ctx context.Context, name string, file File) (Upload, error)
	// Open returns the committed object name; errors wrap ErrNotFound.
	Open(ctx context.Context, name string) (Object, error)
	// Delete removes the object; deleting a missing object is not an error.
	Delete(ctx context.Context, name string) error
	// Sweep removes abandoned uploads started before olderThan.
	Sweep(ctx context.Context, olderThan time.Time) error
}

// File is how a download's file is served: its name (KEY.zip, KEY.avro)
// and content type (FileName).
type File struct {
	Name, ContentType string
}

// Upload is an object being written.
type Upload interface {
	io.Writer
	// Commit publishes the object atomically.
	Commit(ctx context.Context) error
	// Abort discards what was written. It is safe after Commit (no-op).
	Abort(ctx context.Context) error
}

// Object is a committed archive: either Content to stream (with Range
// support) or a URL to redirect the client to.
type Object struct {
	Content io.ReadSeekCloser
	URL     string
	Size    int64
	ModTime time.Time
	// SHA256 is the archive's hex SHA-256 as the download records it, and
	// FileName and ContentType the name and type it is served under (set
	// by Service.File, not by storages).
	SHA256      string
	FileName    string
	ContentType string
}
