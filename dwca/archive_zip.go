package dwca

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/tmpfile"
	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
	kflate "github.com/klauspost/compress/flate"
)

// isZip reports whether the file starts with a zip local header (or is an
// empty zip: end of central directory).
func isZip(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [4]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return false
	}
	return bytes.Equal(head[:], []byte("PK\x03\x04")) || bytes.Equal(head[:], []byte("PK\x05\x06"))
}

// openZip opens a zip and checks it before anything is read: entry names must
// be relative and stay inside the archive, entries must not overlap (the
// "non-recursive zip bomb"), and an entry may not expand more than maxRatio
// times its compressed size once it is larger than 16 MiB. archive/zip then
// enforces the declared sizes while reading.
func openZip(p string, maxRatio int64) (*zip.ReadCloser, error) {
	// with ErrInsecurePath the reader is usable: checkZip judges the names
	zr, err := zip.OpenReader(p)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fmt.Errorf("dwca: open zip %s: %w", p, err)
	}
	if err := checkZip(&zr.Reader, maxRatio); err != nil {
		zr.Close()
		return nil, fmt.Errorf("dwca: %s: %w", p, err)
	}
	zr.RegisterDecompressor(zip.Deflate, inflate)
	return zr, nil
}

// inflate reads deflated entries with klauspost/compress's decompressor,
// which takes about half the CPU of compress/flate's on archive text (the
// same stream format; archive/zip still checks sizes and CRC-32).
func inflate(r io.Reader) io.ReadCloser { return kflate.NewReader(r) }

func checkZip(zr *zip.Reader, maxRatio int64) error {
	type span struct {
		start, end int64
		name       string
	}
	spans := make([]span, 0, len(zr.File))
	for _, f := range zr.File {
		if err := zipsafe.CheckName(f.Name); err != nil {
			return fmt.Errorf("%w: %v", ErrUnsafePath, err)
		}
		if f.UncompressedSize64 > ratioFloor &&
			f.UncompressedSize64/max(f.CompressedSize64, 1) > uint64(maxRatio) {
			return fmt.Errorf("%w: %q is %d bytes from %d compressed (more than %dx)",
				ErrZipBomb, f.Name, f.UncompressedSize64, f.CompressedSize64, maxRatio)
		}
		if f.CompressedSize64 == 0 {
			continue
		}
		off, err := f.DataOffset()
		if err != nil {
			return fmt.Errorf("entry %q: %w", f.Name, err)
		}
		spans = append(spans, span{off, off + int64(f.CompressedSize64), f.Name})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end {
			return fmt.Errorf("%w: entries %q and %q share compressed data",
				ErrZipBomb, spans[i-1].name, spans[i].name)
		}
	}
	return nil
}

// singleFileFS is an fs.FS holding one file, for a lone data file path.
type singleFileFS struct{ name, path string }

func (s singleFileFS) Open(name string) (fs.File, error) {
	if name == s.name {
		return os.Open(s.path)
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// Stat answers for the root folder (fs.WalkDir starts there) and the file.
func (s singleFileFS) Stat(name string) (fs.FileInfo, error) {
	switch name {
	case ".":
		return rootInfo{}, nil
	case s.name:
		st, err := os.Stat(s.path)
		if err != nil {
			return nil, err
		}
		return renamed{st, s.name}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

type rootInfo struct{}

func (rootInfo) Name() string       { return "." }
func (rootInfo) Size() int64        { return 0 }
func (rootInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (rootInfo) ModTime() time.Time { return time.Time{} }
func (rootInfo) IsDir() bool        { return true }
func (rootInfo) Sys() any           { return nil }

func (s singleFileFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	st, err := os.Stat(s.path)
	if err != nil {
		return nil, err
	}
	return []fs.DirEntry{fs.FileInfoToDirEntry(renamed{st, s.name})}, nil
}

type renamed struct {
	fs.FileInfo
	name string
}

func (r renamed) Name() string { return r.name }

// OpenURL downloads an http(s) archive with default Options; see Options.OpenURL.
func OpenURL(ctx context.Context, client *http.Client, url, tmpDir string) (*Archive, error) {
	return Options{TempDir: tmpDir}.OpenURL(ctx, client, url)
}

// OpenURL streams an http(s) URL to a temporary file in o.TempDir and opens
// it as a zip archive (or lone data file); Close removes the file.
func (o Options) OpenURL(ctx context.Context, client *http.Client, url string) (*Archive, error) {
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return nil, fmt.Errorf("dwca: open %q: not an http(s) URL", url)
	}
	if client == nil {
		client = &http.Client{Timeout: 6 * time.Hour}
	}
	o = o.withDefaults()
	tmp, err := download(ctx, client, url, o.TempDir, o.Limits.FileBytes)
	if err != nil {
		return nil, err
	}
	a, err := o.Open(ctx, tmp)
	if err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("dwca: downloaded from %s: %w", url, err)
	}
	a.Path = url
	a.closers = append([]func() error{func() error { return os.Remove(tmp) }}, a.closers...)
	return a, nil
}

// download streams url to a temporary file in dir, at most limit bytes (a
// *TooLargeError beyond, or at once when the response declares more).
func download(ctx context.Context, client *http.Client, url, dir string, limit int64) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", fmt.Errorf("dwca: download %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("dwca: download %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("dwca: download %s: HTTP %s", url, resp.Status)
	}
	if resp.ContentLength > limit {
		return "", fmt.Errorf("dwca: %w", &TooLargeError{Name: url, What: "download (Content-Length)", Limit: limit})
	}
	// Named: the archive is opened by path.
	f, err := tmpfile.CreateNamed(dir, "dwca", ".download")
	if err != nil {
		return "", fmt.Errorf("dwca: download %s: %w", url, err)
	}
	if _, err := io.Copy(f, zipsafe.Cap(resp.Body, limit, url, "download")); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", fmt.Errorf("dwca: download %s: %w", url, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("dwca: download %s: %w", url, err)
	}
	return f.Name(), nil
}
