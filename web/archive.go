package web

import (
	"encoding/base64"
	"encoding/hex"
	"net/http"

	"github.com/biodiversity-downloads/downloader/jobs"
)

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
// the archive's SHA-256 in sha256sum's format ("HEX  KEY.zip"), so that
// `sha256sum -c KEY.zip.sha256` checks a downloaded copy.
func (s *Server) getChecksum(w http.ResponseWriter, r *http.Request, key string) error {
	sum, err := s.svc.Checksum(r.Context(), key)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "public, max-age=86400, immutable")
	writeText(w, http.StatusOK, sum+"  "+key+".zip\n")
	return nil
}
