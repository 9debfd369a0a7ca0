package web

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/jobs"
)

// getFile: GET /v1/occurrence/download/request/{key}.zip (.avro for a
// SIMPLE_AVRO download; or without the extension, as rgbif and pygbif
// ask) streams the archive or redirects to the storage's URL;
// {key}.zip.sha256 (.avro.sha256) is its checksum. Range requests are
// answered as RFC 9110 says (see byteRanges), with the validators of
// setValidators. A transfer is exempt from the server's write timeout but
// must keep moving (see stallWriter).
func (s *Server) getFile(w http.ResponseWriter, r *http.Request) error {
	file := r.PathValue("file")
	if name, ok := strings.CutSuffix(file, ".sha256"); ok {
		return s.getChecksum(w, r, trimExtension(name))
	}
	key := trimExtension(file)
	obj, err := s.svc.File(r.Context(), key)
	if err != nil {
		return err
	}
	ranges, verdict := byteRanges(r.Header.Get("Range"), obj.Size)
	if obj.URL != "" {
		// The storage serves the bytes and the ranges; an unsatisfiable
		// range is answered here, with the size the client needs (S3 sends
		// its 416 without one). Conditional requests are the storage's to
		// judge against its own validators.
		if verdict == rangeUnsatisfiable && !conditional(r) {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", obj.Size))
			writeText(w, http.StatusRequestedRangeNotSatisfiable,
				fmt.Sprintf("no byte of the range %q is in the archive of %d bytes\n", r.Header.Get("Range"), obj.Size))
			return nil
		}
		http.Redirect(w, r, obj.URL, http.StatusFound)
		return nil
	}
	defer obj.Content.Close()
	switch verdict {
	case rangeIgnore:
		r.Header.Del("Range")
	case rangeUnsatisfiable:
		// A range that starts at the end: http.ServeContent evaluates the
		// preconditions first (a 304 or a failed If-Range wins, as RFC 9110
		// orders them) and then answers 416 with "bytes */SIZE".
		r.Header.Set("Range", fmt.Sprintf("bytes=%d-", obj.Size))
	default:
		r.Header.Set("Range", ranges)
	}
	setValidators(w.Header(), obj)
	w.Header().Set("Content-Type", obj.ContentType)
	w.Header().Set("Content-Disposition", `attachment; filename="`+obj.FileName+`"`)
	rc := http.NewResponseController(w)
	// The request has been read: no read deadline may cut the transfer.
	_ = rc.SetReadDeadline(time.Time{})
	http.ServeContent(&stallWriter{ResponseWriter: w, rc: rc, stall: s.cfg.ArchiveStallTimeout}, r,
		obj.FileName, obj.ModTime, obj.Content)
	return nil
}

// trimExtension takes a download file's extension (any format's) off a
// request path's last element: what is left is the key.
func trimExtension(file string) string {
	for _, f := range download.Formats() {
		if key, ok := strings.CutSuffix(file, f.Extension); ok {
			return key
		}
	}
	return file
}

// conditional reports whether r carries a precondition or If-Range.
func conditional(r *http.Request) bool {
	for _, h := range []string{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range"} {
		if r.Header.Get(h) != "" {
			return true
		}
	}
	return false
}

// stallChunk is the most an archive transfer writes under one deadline.
const stallChunk = 32 << 10

// stallWriter replaces the server's write timeout for an archive transfer,
// which may rightly last hours: every piece of at most stallChunk bytes
// must be taken by the client within stall, so a reader that stops (or
// trickles slower than stallChunk per stall) is dropped, and one that keeps
// reading is never cut. It hides the ResponseWriter's ReadFrom, so that
// io.Copy writes in pieces that each get a deadline.
type stallWriter struct {
	http.ResponseWriter
	rc    *http.ResponseController
	stall time.Duration
}

func (s *stallWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), stallChunk)
		if err := s.rc.SetWriteDeadline(time.Now().Add(s.stall)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return n, err
		}
		m, err := s.ResponseWriter.Write(p[:k])
		n += m
		if err != nil {
			return n, err
		}
		p = p[k:]
	}
	return n, nil
}

// Unwrap lets http.ResponseController reach the connection.
func (s *stallWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// What byteRanges makes of a Range header.
type rangeVerdict int

const (
	rangeIgnore        rangeVerdict = iota // serve the whole archive, 200
	rangeServe                             // serve the normalized ranges, 206
	rangeUnsatisfiable                     // 416 with "bytes */SIZE"
)

// maxRanges is the most ranges one request may ask for; more are ignored
// (RFC 9110 lets a server ignore a Range it finds too costly).
const maxRanges = 16

// byteRanges reads a Range header against an archive of size bytes as RFC
// 9110 (section 14) says, and returns the ranges to serve as a header
// http.ServeContent reads ("bytes=0-9,-100"):
//
//   - no header, a unit other than bytes (units compare case-insensitively),
//     a header that does not parse, or more than maxRanges ranges: ignored,
//     the whole archive is sent (an unknown unit MUST be ignored; the
//     others MAY be);
//   - ranges that select nothing (a first byte at or past the end, a
//     suffix of length 0) are dropped; when none is left the range is
//     unsatisfiable (416);
//   - a last byte or suffix past the end is cut to the end.
func byteRanges(h string, size int64) (string, rangeVerdict) {
	if h == "" {
		return "", rangeIgnore
	}
	unit, set, ok := strings.Cut(h, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		return "", rangeIgnore
	}
	var keep []string
	n := 0
	for spec := range strings.SplitSeq(set, ",") {
		spec = strings.Trim(spec, " \t")
		if spec == "" {
			continue // empty list elements are allowed
		}
		if n++; n > maxRanges {
			return "", rangeIgnore
		}
		first, last, ok := strings.Cut(spec, "-")
		if !ok {
			return "", rangeIgnore
		}
		if first == "" { // suffix-range: the last N bytes
			k, ok := digits(last)
			if !ok {
				return "", rangeIgnore
			}
			if k > 0 && size > 0 {
				keep = append(keep, "-"+strconv.FormatInt(min(k, size), 10))
			}
			continue
		}
		a, ok := digits(first)
		if !ok {
			return "", rangeIgnore
		}
		b := int64(-1)
		if last != "" {
			if b, ok = digits(last); !ok || b < a {
				return "", rangeIgnore // invalid: last before first
			}
		}
		if a >= size {
			continue // starts past the end: selects nothing
		}
		if b < 0 || b >= size {
			b = size - 1
		}
		keep = append(keep, strconv.FormatInt(a, 10)+"-"+strconv.FormatInt(b, 10))
	}
	if n == 0 {
		return "", rangeIgnore
	}
	if len(keep) == 0 {
		return "", rangeUnsatisfiable
	}
	return "bytes=" + strings.Join(keep, ","), rangeServe
}

// digits reads a non-empty run of ASCII digits; values past int64 saturate
// (a position that large is past the end of any archive).
func digits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (1<<63-1-9)/10 {
			v = 1<<63 - 1
			continue
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// setValidators gives an archive served from storage its validators: a
// strong ETag from the recorded SHA-256 (the archive under a key never
// changes, so its digest identifies its bytes) and RFC 9530's Repr-Digest.
// Last-Modified comes from http.ServeContent (the object's time), which then
// answers If-None-Match and If-Modified-Since with 304 and honours If-Range
// (strong ETag or date) with Range, so an interrupted transfer resumes.
// Archives that storage serves itself (a redirect to a presigned URL) carry
// the storage's validators instead, and it answers those conditions.
func setValidators(h http.Header, obj jobs.Object) {
	if obj.SHA256 == "" {
		return
	}
	h.Set("ETag", `"`+obj.SHA256+`"`)
	if sum, err := hex.DecodeString(obj.SHA256); err == nil {
		h.Set("Repr-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum)+":")
	}
}

// getChecksum: GET /v1/occurrence/download/request/{key}.zip.sha256 answers
// the archive's SHA-256 in sha256sum's format ("HEX  KEY.zip", KEY.avro for
// SIMPLE_AVRO), so that `sha256sum -c KEY.zip.sha256` checks a downloaded
// copy.
func (s *Server) getChecksum(w http.ResponseWriter, r *http.Request, key string) error {
	sum, file, err := s.svc.Checksum(r.Context(), key)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "public, max-age=86400, immutable")
	writeText(w, http.StatusOK, sum+"  "+file+"\n")
	return nil
}
