package jobs

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDecodeRequestAliases(t *testing.T) {
	for _, body := range []string{
		`{"notificationAddresses":["a@example.org"],"sendNotification":true}`,
		`{"notificationAddress":["a@example.org"],"send_notification":true}`,
		`{"notification_address":["a@example.org"],"sendNotification":true}`,
		`{"notification_addresses":["A <a@example.org>"],"send_notification":true}`,
	} {
		r, err := DecodeRequest([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if !r.SendNotification || len(r.NotificationAddresses) != 1 || r.NotificationAddresses[0] != "a@example.org" {
			t.Errorf("%s: got %+v", body, r)
		}
		if r.Format != "DWCA" || r.Type != "OCCURRENCE" {
			t.Errorf("%s: defaults %q %q", body, r.Format, r.Type)
		}
	}
}

func TestDecodeRequestFields(t *testing.T) {
	r, err := DecodeRequest([]byte(`{"creator":"alice","format":"simple_csv","predicate":{"type":"equals","key":"YEAR","value":"2000"},
		"description":"d","machineDescription":{"portal":1},"created":"2020-01-01","verbatimExtensions":null,
		"checklistKey":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Creator != "alice" || r.Format != "SIMPLE_CSV" || r.Description != "d" || string(r.MachineDescription) != `{"portal":1}` {
		t.Fatalf("%+v", r)
	}
	var p map[string]string
	if err := json.Unmarshal(r.Predicate, &p); err != nil || p["key"] != "YEAR" {
		t.Fatalf("predicate %s", r.Predicate)
	}
}

// TestDecodeRequestPygbif: the body pygbif 0.7.0 posts by default, with
// its checklistKey (the Catalogue of Life's) and predicate-level keys, is
// read; the checklist is kept, trimmed, and "null" is none, as GBIF reads it.
func TestDecodeRequestPygbif(t *testing.T) {
	body := `{"creator": "alice", "notification_address": ["alice@example.org"], "sendNotification": true,
		"predicate": {"type": "and", "predicates": [{"type": "equals", "key": "TAXON_KEY", "value": 3119195,
		"checklistKey": "d7dddbf4-2cf0-4f39-9b2a-bb099caae36c"}]}, "format": "SIMPLE_CSV",
		"checklistKey": " 7ddf754f-d193-4cc9-b351-99906754a03b "}`
	r, err := DecodeRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if r.ChecklistKey != "7ddf754f-d193-4cc9-b351-99906754a03b" || r.Format != "SIMPLE_CSV" || !r.SendNotification {
		t.Fatalf("%+v", r)
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"checklistKey":"7ddf754f-d193-4cc9-b351-99906754a03b"`) {
		t.Fatalf("checklistKey not in the request's JSON: %s", b)
	}
	for _, none := range []string{`"null"`, `"NULL"`, `null`, `""`} {
		r, err := DecodeRequest([]byte(`{"checklistKey":` + none + `}`))
		if err != nil || r.ChecklistKey != "" {
			t.Errorf("checklistKey %s: %q %v", none, r.ChecklistKey, err)
		}
	}
	// GBIF's format lookup ignores case and . _ -
	for _, f := range []string{"simpleCsv", "simple-csv", "Simple.CSV"} {
		if r, err := DecodeRequest([]byte(`{"format":"` + f + `"}`)); err != nil || r.Format != "SIMPLE_CSV" {
			t.Errorf("format %s: %q %v", f, r.Format, err)
		}
	}
}

// TestDecodeRequestLikeJackson: what GBIF's deserializer reads a boolean
// from is read the same; an empty body is refused, as GBIF refuses it
// (an empty object would otherwise export every record).
func TestDecodeRequestLikeJackson(t *testing.T) {
	for v, want := range map[string]bool{`true`: true, `"True"`: true, `" true "`: true, `1`: true, `2.5`: true,
		`false`: false, `"FALSE"`: false, `0`: false, `null`: false} {
		r, err := DecodeRequest([]byte(`{"predicate":null,"sendNotification":` + v + `}`))
		if err != nil || r.SendNotification != want {
			t.Errorf("sendNotification %s: %v %v, want %v", v, r.SendNotification, err, want)
		}
	}
	for _, body := range []string{`{}`, `null`, ` { } `} {
		if _, err := DecodeRequest([]byte(body)); err == nil || !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "empty") {
			t.Errorf("%s: %v, want an empty-request error", body, err)
		}
	}
}

// rgbif's occ_download_sql sends GBIF's SqlDownloadRequest: the query in
// "sql", format SQL_TSV_ZIP (the format a request with "sql" has when it
// names none).
func TestDecodeSQLRequest(t *testing.T) {
	for _, body := range []string{
		`{"sendNotification":true,"notificationAddresses":["a@example.org"],"format":"SQL_TSV_ZIP","sql":"SELECT datasetKey, countryCode, COUNT(*) FROM occurrence WHERE continent = 'EUROPE' GROUP BY datasetKey, countryCode"}`,
		`{"sql":"SELECT datasetKey, countryCode, COUNT(*) FROM occurrence WHERE continent = 'EUROPE' GROUP BY datasetKey, countryCode"}`,
	} {
		r, err := DecodeRequest([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if r.Format != "SQL_TSV_ZIP" || !strings.HasPrefix(r.SQL, "SELECT datasetKey") || len(r.Predicate) != 0 {
			t.Errorf("%s: decoded %+v", body, r)
		}
		b, err := json.Marshal(r)
		if err != nil || !strings.Contains(string(b), `"sql":"SELECT datasetKey`) || strings.Contains(string(b), `"predicate"`) {
			t.Errorf("recorded as %s (%v): want the query and no predicate", b, err)
		}
	}
}

func TestDecodeRequestRejects(t *testing.T) {
	for body, want := range map[string]string{
		`{"predicate":null,"foo":1}`:                                                                     "unknown JSON property 'foo'",
		`{"sql":"SELECT * FROM occurrence","format":"SQL_TSV_ZIP"}`:                                      "SELECT * is not supported",
		`{"sql":"SELECT gbifid FROM occurrence","format":"DWCA"}`:                                        "a SQL query makes a SQL_TSV_ZIP download, not DWCA",
		`{"format":"SQL_TSV_ZIP"}`:                                                                       `needs its query in "sql"`,
		`{"sql":"SELECT gbifid FROM occurrence","predicate":{"type":"equals","key":"YEAR","value":"1"}}`: "not a predicate",
		`{"sql":"SELECT gbifid FROM occurrence","fields":["year"]}`:                                      "not fields",
		`{"sql":"SELECT gbifid FROM occurrence WHERE"}`:                                                  "at line 1 column 35",
		`{"format":"XLS"}`:                          `"XLS"`,
		`{"type":"EVENT"}`:                          `"EVENT"`,
		`{"verbatimExtensions":["x"]}`:              "verbatimExtensions",
		`{"checklistKey":7}`:                        "checklistKey",
		`{"interpretedExtensions":["x"]}`:           "interpretedExtensions",
		`{"notificationAddresses":"a@example.org"}`: "notificationAddresses",
		`{"notification_address":["nobody"]}`:       `"nobody"`,
		`{"sendNotification":"yes"}`:                "sendNotification",
		`{"sendNotification":[true]}`:               "sendNotification",
		`{} {}`:                                     "after the JSON object",
		`nope`:                                      "not a JSON object",
		`{"description":"` + strings.Repeat("x", 10_001) + `"}`: "description",
		`{"description":"` + strings.Repeat("é", 10_001) + `"}`: "longer than 10000 characters",
		"{\"format\":\"DWCA\",\"description\":\"caf\xe9\"}":     "property 'description' is not valid UTF-8 (byte 35 of the body)",
		"{\"creator\":\"\xffx\"}":                               "property 'creator' is not valid UTF-8 (byte 12 of the body)",
	} {
		_, err := DecodeRequest([]byte(body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.60s: error %v, want it to mention %s", body, err, want)
		}
		if err != nil && !errors.Is(err, ErrInvalidRequest) && !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("%.60s: error kind %v", body, err)
		}
	}
}

// The description limit counts characters, as its message says: 10,000
// two-byte characters are within it.
func TestDescriptionLimitCountsCharacters(t *testing.T) {
	r, err := DecodeRequest([]byte(`{"description":"` + strings.Repeat("é", 10_000) + `"}`))
	if err != nil || len(r.Description) != 20_000 {
		t.Fatalf("10,000 characters (20,000 bytes): %v", err)
	}
}

// FuzzDecodeRequest checks that any body either decodes to a request that
// re-encodes and decodes to the same request, or is rejected as invalid.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"creator":"userName","notificationAddresses":["userEmail@example.org"],"sendNotification":true,"format":"SIMPLE_CSV",
		  "predicate":{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"FR"},{"type":"equals","key":"YEAR","value":"2017"}]}}`,
		`{"notification_address":["a@b.c"],"send_notification":"true"}`,
		`{"predicate":null}`, `{}`, `[]`, `{"format":"DWCA","machineDescription":{"x":[1,2]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := DecodeRequest(body)
		if err != nil {
			if !errors.Is(err, ErrInvalidRequest) && !errors.Is(err, ErrUnknownFormat) {
				t.Fatalf("error of unknown kind: %v", err)
			}
			return
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(again, &fields); err != nil {
			t.Fatal(err)
		}
		delete(fields, "predicate") // kept verbatim; validated by the engine
		b, _ := json.Marshal(fields)
		r2, err := DecodeRequest(b)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		if r2.Format != r.Format || r2.SendNotification != r.SendNotification ||
			strings.Join(r2.NotificationAddresses, ",") != strings.Join(r.NotificationAddresses, ",") {
			t.Fatalf("round trip changed %+v to %+v", r, r2)
		}
	})
}
