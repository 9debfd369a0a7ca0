package jobs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// At the running limit a submission fails with GBIF's wording; a creator
// other than the caller is refused as unauthorized (GBIF's 401).
func TestSubmitLimitAndCreator(t *testing.T) {
	s := queueTestService(t, testDB(t), false)
	ctx := context.Background()
	for y := 2000; y < 2003; y++ {
		req := Request{Format: "SIMPLE_CSV", Predicate: json.RawMessage(fmt.Sprintf(`{"type":"equals","key":"YEAR","value":"%d"}`, y))}
		if _, err := s.Submit(ctx, alice, req); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.Submit(ctx, alice, testRequest())
	want := "A download limitation is exceeded:\nUser alice has too many simultaneous downloads; the limit is 3.\n" +
		"Please wait for some to complete, or cancel any unwanted downloads."
	if !errors.Is(err, ErrTooManyDownloads) || err.Error() != want {
		t.Fatalf("at the limit: %q, want %q", err, want)
	}
	req := testRequest()
	req.Creator = "bob"
	if _, err := s.Submit(ctx, alice, req); !errors.Is(err, ErrUnauthorized) || err.Error() != "unauthorized: alice not allowed to create download with creator bob" {
		t.Fatalf("creator bob: %v", err)
	}
	v, err := s.Validate(ctx, &alice, Request{Format: "simpleCsv", ChecklistKey: "null"})
	if err != nil || v.Creator != "alice" || v.Format != "SIMPLE_CSV" || v.ChecklistKey != "" || string(v.Predicate) != "null" {
		t.Fatalf("validated %+v %v", v, err)
	}
	if _, err := s.Validate(ctx, nil, Request{Format: "XLS"}); !errors.Is(err, ErrUnknownFormat) {
		t.Fatalf("validate XLS: %v", err)
	}
}

// Requests are the same download only when everything that makes the
// archive or its notification differ is the same, the table snapshot
// included (an identical request after the table changed got the archive
// of the old snapshot for 48 hours).
func TestDedupeHash(t *testing.T) {
	base := Request{Creator: "a", Format: "DWCA", Predicate: json.RawMessage(`{"type":"equals","key":"YEAR","value":"2000"}`),
		SendNotification: true, NotificationAddresses: []string{"a@example.org", "b@example.org"}, Description: "thesis"}
	h := dedupeHash(base, "s1")
	for name, change := range map[string]func(r *Request) string{
		"snapshot":     func(r *Request) string { return "s2" },
		"checklist":    func(r *Request) string { r.ChecklistKey = "7ddf754f-d193-4cc9-b351-99906754a03b"; return "s1" },
		"extensions":   func(r *Request) string { r.VerbatimExtensions = []string{"x"}; return "s1" },
		"description":  func(r *Request) string { r.Description = "paper"; return "s1" },
		"addresses":    func(r *Request) string { r.NotificationAddresses = []string{"a@example.org"}; return "s1" },
		"notification": func(r *Request) string { r.SendNotification = false; return "s1" },
		"creator":      func(r *Request) string { r.Creator = "b"; return "s1" },
		"format":       func(r *Request) string { r.Format = "SIMPLE_CSV"; return "s1" },
		"fields":       func(r *Request) string { r.Fields = []string{"gbifID"}; return "s1" },
	} {
		r := base
		if dedupeHash(r, change(&r)) == h {
			t.Errorf("a different %s does not change the hash", name)
		}
	}
	same := base
	same.NotificationAddresses = []string{"b@example.org", "a@example.org"}
	same.MachineDescription = json.RawMessage(`{"portal":"x"}`)
	same.Source = "pygbif"
	if dedupeHash(same, "s1") != h {
		t.Error("the order of addresses, the machine description or the source changed the hash")
	}
}

// The statuses are listed in the order of GBIF's Download.Status enum.
func TestStatusesInGBIFOrder(t *testing.T) {
	want := []Status{"PREPARING", "RUNNING", "SUCCEEDED", "CANCELLED", "KILLED", "FAILED", "SUSPENDED", "FILE_ERASED"}
	if got := Statuses(); !slices.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
}

// verbatimExtensions are GBIF's row types or names, for a DWCA; they are
// stored as row types, once each, and take part in deduplication.
func TestValidateVerbatimExtensions(t *testing.T) {
	s := queueTestService(t, testDB(t), false)
	ctx := context.Background()
	v, err := s.Validate(ctx, &alice, Request{Format: "DWCA", VerbatimExtensions: []string{"MEASUREMENT_OR_FACT",
		"http://rs.tdwg.org/dwc/terms/MeasurementOrFact", "Multimedia"}})
	if err != nil || !slices.Equal(v.VerbatimExtensions, []string{"http://rs.tdwg.org/dwc/terms/MeasurementOrFact", "http://rs.gbif.org/terms/1.0/Multimedia"}) {
		t.Fatalf("validated %v %v", v.VerbatimExtensions, err)
	}
	for _, bad := range []Request{
		{Format: "SIMPLE_CSV", VerbatimExtensions: []string{"MULTIMEDIA"}},
		{Format: "DWCA", VerbatimExtensions: []string{"http://example.org/NoSuchRowType"}},
	} {
		if _, err := s.Validate(ctx, &alice, bad); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%s %v: %v, want ErrInvalidRequest", bad.Format, bad.VerbatimExtensions, err)
		}
	}
}

// interpretedExtensions: DNA_DERIVED_DATA by name or row type, for a DWCA
// or FASTA_ARCHIVE, stored as its row type; a FASTA archive's request
// lists the DNA-derived data among its verbatim extensions, as GBIF's
// DownloadResource adds it. Others are refused.
func TestValidateInterpretedExtensions(t *testing.T) {
	s := queueTestService(t, testDB(t), false)
	ctx := context.Background()
	dna := "http://rs.gbif.org/terms/1.0/DNADerivedData"
	v, err := s.Validate(ctx, &alice, Request{Format: "DWCA", InterpretedExtensions: []string{"DNA_DERIVED_DATA", dna}})
	if err != nil || !slices.Equal(v.InterpretedExtensions, []string{dna}) || len(v.VerbatimExtensions) != 0 {
		t.Fatalf("validated %v %v %v", v.InterpretedExtensions, v.VerbatimExtensions, err)
	}
	v, err = s.Validate(ctx, &alice, Request{Format: "FASTA_ARCHIVE", VerbatimExtensions: []string{"MULTIMEDIA"}})
	if err != nil || !slices.Equal(v.VerbatimExtensions, []string{"http://rs.gbif.org/terms/1.0/Multimedia", dna}) {
		t.Fatalf("FASTA_ARCHIVE validated %v %v", v.VerbatimExtensions, err)
	}
	for _, bad := range []Request{
		{Format: "SIMPLE_CSV", InterpretedExtensions: []string{"DNA_DERIVED_DATA"}},
		{Format: "DWCA", InterpretedExtensions: []string{"HUMBOLDT"}},
		{Format: "DWCA", InterpretedExtensions: []string{"NO_SUCH_EXTENSION"}},
	} {
		if _, err := s.Validate(ctx, &alice, bad); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%s %v: %v, want ErrInvalidRequest", bad.Format, bad.InterpretedExtensions, err)
		}
	}
}

// TestConfigValidate: the lease must outlast two heartbeats (a worker renews
// it only once a heartbeat) and the rescue interval must exceed it; New
// refuses what Validate refuses, without touching the database.
func TestConfigValidate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	for _, c := range []struct {
		cfg          Config
		field, other string
	}{
		{Config{Lease: 5 * time.Second, RescueAfter: 10 * time.Second, Heartbeat: 30 * time.Second}, "Heartbeat", "Lease"},
		{Config{Lease: time.Minute, Heartbeat: time.Minute}, "Heartbeat", "Lease"},
		{Config{Lease: time.Minute, Heartbeat: 31 * time.Second}, "Heartbeat", "Lease"},
		{Config{Lease: 10 * time.Second, RescueAfter: 5 * time.Second}, "RescueAfter", "Lease"},
	} {
		err := c.cfg.Validate()
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field || ce.Other != c.other {
			t.Errorf("%+v: %v, want a ConfigError on %s and %s", c.cfg, err, c.field, c.other)
			continue
		}
		if _, err2 := New(nil, nil, nil, nil, c.cfg, nil); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("New: %v, want %v", err2, err)
		}
	}
	if err := (Config{Lease: time.Minute, Heartbeat: 30 * time.Second}).Validate(); err != nil {
		t.Errorf("a heartbeat of half the lease: %v", err)
	}
}

// A creator reads an internal error as a sentence naming the download (its
// text holds the server's paths); a request's own error is shown whole;
// admins see every error whole and other users none.
func TestErrorShownToCreator(t *testing.T) {
	s := queueTestService(t, testDB(t), false)
	ctx := context.Background()
	const internal = "storage: create /srv/downloads/0000001.zip.part: read-only file system"
	const query = "invalid request: predicate: unknown key NOSUCHKEY"
	cases := []struct{ err, kind, creatorSees string }{
		{internal, reasonInternal, ""},
		{query, reasonQuery, query},
		{internal, "", internal}, // a row failed before error_kind existed
	}
	admin := User{Name: "root", Admin: true}
	bob := User{Name: "bob"}
	for y, c := range cases {
		req := Request{Format: "SIMPLE_CSV", Predicate: json.RawMessage(fmt.Sprintf(`{"type":"equals","key":"YEAR","value":"%d"}`, 1900+y))}
		key, err := s.Submit(ctx, alice, req)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := s.db.claim(ctx, key, "w1", time.Minute); err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		if ok, err := s.db.release(ctx, s.db.SQL, key, "w1", StatusFailed, c.err, c.kind); err != nil || !ok {
			t.Fatalf("release: %v %v", ok, err)
		}
		want := cmp.Or(c.creatorSees, internalErrorText(key))
		for _, v := range []struct {
			who  *User
			want string
		}{{&alice, want}, {&admin, c.err}, {&bob, ""}, {nil, ""}} {
			d, err := s.Get(ctx, v.who, key, false)
			if err != nil || d.Error != v.want {
				t.Errorf("kind %q, caller %v: error %q (%v), want %q", c.kind, v.who, d.Error, err, v.want)
			}
		}
		p, err := s.List(ctx, alice, "alice", ListFilter{Statuses: []Status{StatusFailed}}, false, 10, 0)
		if err != nil || len(p.Results) == 0 || p.Results[0].Error != want {
			t.Errorf("kind %q: alice's list %+v %v, want %q", c.kind, p.Results, err, want)
		}
	}
}
