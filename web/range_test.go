package web_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/jobs/storage/s3"
)

// span is a byte range of an archive, both ends included.
type span struct{ first, last int64 }

// rangeOutcome is an answer a Range request may get: the whole archive
// (200), 416 with "bytes */SIZE", or 206 with these spans (one: a single
// part; more: multipart/byteranges).
type rangeOutcome struct {
	whole, unsatisfiable bool
	parts                []span
}

func (o rangeOutcome) String() string {
	switch {
	case o.whole:
		return "200 whole"
	case o.unsatisfiable:
		return "416 bytes */SIZE"
	}
	return fmt.Sprintf("206 %v", o.parts)
}

// TestArchiveRanges asks the archive route for ranges as RFC 9110 reads
// them, on both storages (S3 through the redirect, as clients follow it).
// Before, `bytes=-0` got a 206 with the impossible Content-Range
// "bytes SIZE-(SIZE-1)/SIZE" and the unknown unit `items=0-5` a 416.
func TestArchiveRanges(t *testing.T) {
	t.Run("local", func(t *testing.T) { archiveRanges(t, options{}, false) })
	t.Run("s3", func(t *testing.T) {
		store, err := s3.New(context.Background(), s3Config(t))
		if err != nil {
			t.Fatal(err)
		}
		archiveRanges(t, options{storage: store}, true)
	})
}

func archiveRanges(t *testing.T, o options, viaS3 bool) {
	s := startServer(t, sqliteDSN(t), o)
	key := s.submit("alice", `{"format":"SIMPLE_CSV","predicate":`+familyPredicate+`}`)
	d := s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
	url := s.URL + "/v1/occurrence/download/request/" + key + ".zip"
	whole, _ := getRange(t, url)
	size := int64(len(whole.body))
	if whole.code != http.StatusOK || size != d.Size || size < 100 {
		t.Fatalf("whole archive: %d, %d bytes of %d", whole.code, size, d.Size)
	}
	many := strings.TrimSuffix(strings.Repeat("0-1,", 17), ",")
	one := func(a, b int64) []rangeOutcome { return []rangeOutcome{{parts: []span{{a, b}}}} }
	unsat := []rangeOutcome{{unsatisfiable: true}}
	all := []rangeOutcome{{whole: true}}
	// S3 may ignore what it may ignore: it serves no multipart ranges and
	// reads the unit case-sensitively; both answers are RFC 9110's.
	orWhole := func(os []rangeOutcome) []rangeOutcome {
		if viaS3 {
			return append(os, rangeOutcome{whole: true})
		}
		return os
	}
	cases := []struct {
		rng  string
		want []rangeOutcome
	}{
		{"bytes=-0", unsat},                     // a suffix of 0 selects nothing
		{"items=0-5", all},                      // an unknown unit is ignored
		{fmt.Sprintf("bytes=%d-", size), unsat}, // starts at the end
		{"bytes=99999999999999999999999-", unsat},
		{fmt.Sprintf("bytes=10-%d", size+1000), one(10, size-1)},
		{fmt.Sprintf("bytes=-%d", size+5), one(0, size-1)},
		{"bytes=-10", one(size-10, size-1)},
		{"bytes=5-3", all},     // invalid: ignored
		{"bytes=abc", all},     // invalid: ignored
		{"bytes=" + many, all}, // too many ranges: ignored
		{"bytes=0-9, 20-29", orWhole([]rangeOutcome{{parts: []span{{0, 9}, {20, 29}}}})},
		{"bytes=-0,0-9", orWhole(one(0, 9))}, // the empty range is dropped
		{"BYTES=0-4", orWhole(one(0, 4))},    // units are case-insensitive
	}
	for _, c := range cases {
		r, got := getRange(t, url, "Range", c.rng)
		ok := false
		for _, w := range c.want {
			ok = ok || sameOutcome(t, r, got, w, whole.body)
		}
		if !ok {
			t.Errorf("Range %q: %d %s (Content-Range %q), want one of %v", c.rng, r.code, got,
				r.header.Get("Content-Range"), c.want)
		}
	}
	if viaS3 {
		return // If-Range is judged by the storage against its own ETag
	}
	etag := whole.header.Get("ETag")
	if etag != `"`+d.SHA256+`"` {
		t.Fatalf("ETag %q, want the archive's SHA-256", etag)
	}
	for _, c := range []struct {
		ifRange, rng string
		want         rangeOutcome
	}{
		{etag, "bytes=0-9", rangeOutcome{parts: []span{{0, 9}}}},
		{`"another"`, "bytes=0-9", rangeOutcome{whole: true}},
		{`"another"`, "bytes=-0", rangeOutcome{whole: true}}, // a failed If-Range ignores the Range
		{etag, "bytes=-0", rangeOutcome{unsatisfiable: true}},
	} {
		r, got := getRange(t, url, "Range", c.rng, "If-Range", c.ifRange)
		if !sameOutcome(t, r, got, c.want, whole.body) {
			t.Errorf("If-Range %s, Range %q: %d %s, want %s", c.ifRange, c.rng, r.code, got, c.want)
		}
	}
	r, _ := getRange(t, url, "If-None-Match", etag)
	if r.code != http.StatusNotModified {
		t.Errorf("If-None-Match with the ETag: %d, want 304", r.code)
	}
}

// getRange GETs url with the headers, following redirects (the client
// sends the same headers to the storage), and reads what came back.
func getRange(t *testing.T, url string, hdr ...string) (response, rangeOutcome) {
	t.Helper()
	resp, body := get(t, url, hdr...)
	r := response{code: resp.StatusCode, header: resp.Header, body: body}
	var o rangeOutcome
	switch resp.StatusCode {
	case http.StatusOK:
		o.whole = true
	case http.StatusRequestedRangeNotSatisfiable:
		o.unsatisfiable = true
	case http.StatusPartialContent:
		o.parts = partsOf(t, r)
	}
	return r, o
}

// partsOf reads the spans of a 206 from its Content-Range headers.
func partsOf(t *testing.T, r response) []span {
	t.Helper()
	mt, params, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
	if mt != "multipart/byteranges" {
		var sp span
		var size int64
		if _, err := fmt.Sscanf(r.header.Get("Content-Range"), "bytes %d-%d/%d", &sp.first, &sp.last, &size); err != nil {
			t.Fatalf("206 with Content-Range %q: %v", r.header.Get("Content-Range"), err)
		}
		return []span{sp}
	}
	var out []span
	mr := multipart.NewReader(bytes.NewReader(r.body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		var sp span
		var size int64
		if _, err := fmt.Sscanf(p.Header.Get("Content-Range"), "bytes %d-%d/%d", &sp.first, &sp.last, &size); err != nil {
			t.Fatalf("part with Content-Range %q: %v", p.Header.Get("Content-Range"), err)
		}
		out = append(out, sp)
	}
}

// sameOutcome reports whether the answer r (read as got) is want, with
// the right bytes of whole and a well-formed Content-Range.
func sameOutcome(t *testing.T, r response, got, want rangeOutcome, whole []byte) bool {
	t.Helper()
	size := int64(len(whole))
	switch {
	case want.whole:
		return got.whole && bytes.Equal(r.body, whole)
	case want.unsatisfiable:
		return got.unsatisfiable && r.header.Get("Content-Range") == fmt.Sprintf("bytes */%d", size)
	}
	if len(got.parts) != len(want.parts) {
		return false
	}
	for i, sp := range want.parts {
		if got.parts[i] != sp || sp.last >= size {
			return false
		}
	}
	if len(want.parts) == 1 {
		sp := want.parts[0]
		return r.header.Get("Content-Range") == fmt.Sprintf("bytes %d-%d/%d", sp.first, sp.last, size) &&
			bytes.Equal(r.body, whole[sp.first:sp.last+1])
	}
	_, params, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
	mr := multipart.NewReader(bytes.NewReader(r.body), params["boundary"])
	for _, sp := range want.parts {
		p, err := mr.NextPart()
		if err != nil {
			return false
		}
		b, _ := io.ReadAll(p)
		if !bytes.Equal(b, whole[sp.first:sp.last+1]) {
			return false
		}
	}
	return true
}
