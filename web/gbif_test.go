package web_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/jobs"
)

// The request pygbif 0.7.0 posts for occ.download('taxonKey = 212'), its
// User-Agent, and the checklist keys it adds by default.
const (
	colKey        = "7ddf754f-d193-4cc9-b351-99906754a03b"
	backboneKey   = "d7dddbf4-2cf0-4f39-9b2a-bb099caae36c"
	pygbifAgent   = "python-requests/2.32.3,pygbif/0.7.0"
	pygbifRequest = `{"creator": "alice", "notification_address": ["alice@example.org"], "sendNotification": true,
		"predicate": {"type": "and", "predicates": [{"type": "equals", "key": "COUNTRY", "value": "TR"},
		{"type": "equals", "key": "TAXON_KEY", "value": 212, "checklistKey": "` + backboneKey + `"}]},
		"format": "SIMPLE_CSV", "checklistKey": "` + colKey + `"}`
)

// topKeys returns the keys of a JSON object in their order.
func topKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", b)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestGBIFDownloadJSON: a default pygbif request is accepted (it was
// refused for its checklistKey), and the status JSON has GBIF's fields in
// GBIF's order, null ones left out, the source, and what others may not
// see left out for them.
func TestGBIFDownloadJSON(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{})
	r := expect(t, s.do("POST", "/v1/occurrence/download/request", "alice", pygbifRequest, "User-Agent", pygbifAgent), http.StatusCreated)
	key := string(r.body)
	if !keyRE.MatchString(key) {
		t.Fatalf("body %q is not the bare key", r.body)
	}
	s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
	own := expect(t, s.do("GET", "/v1/occurrence/download/"+key, "alice", nil), http.StatusOK)
	if ct := own.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q (pygbif wants exactly application/json)", ct)
	}
	keys := topKeys(t, own.body)
	gbifOrder := []string{"key", "doi", "license", "request", "created", "modified", "eraseAfter", "erasureNotification",
		"status", "downloadLink", "size", "totalRecords", "numberDatasets", "numberOrganizations",
		"numberPublishingCountries", "source"}
	var gbifKeys []string
	for _, k := range keys {
		if slices.Contains(gbifOrder, k) {
			gbifKeys = append(gbifKeys, k)
		}
	}
	wantKeys := []string{"key", "license", "request", "created", "modified", "eraseAfter", "status", "downloadLink",
		"size", "totalRecords", "numberDatasets", "source"} // no DOI, notice or recorded publishers: left out
	if !slices.Equal(gbifKeys, wantKeys) {
		t.Fatalf("GBIF fields %v, want %v", gbifKeys, wantKeys)
	}
	var d struct {
		License string
		Source  string
		Request struct {
			ChecklistKey string
			Predicate    json.RawMessage
			Creator      string
		}
	}
	if err := json.Unmarshal(own.body, &d); err != nil {
		t.Fatal(err)
	}
	if d.Source != "pygbif" || d.Request.ChecklistKey != colKey || d.Request.Creator != "alice" ||
		!strings.Contains(string(d.Request.Predicate), `"value":"212","checklistKey":"`+backboneKey+`"`) {
		t.Fatalf("source %q, request %+v", d.Source, d.Request)
	}
	if d.License != "unspecified" && !strings.HasPrefix(d.License, "http://creativecommons.org/") {
		t.Fatalf("license %q is not a licence URL or unspecified", d.License)
	}
	anon := expect(t, s.do("GET", "/v1/occurrence/download/"+key, "", nil), http.StatusOK)
	for _, hidden := range []string{`"source"`, `"creator"`, `"notificationAddresses"`} {
		if bytes.Contains(anon.body, []byte(hidden)) {
			t.Errorf("anonymous status shows %s: %s", hidden, anon.body)
		}
	}
	if !bytes.Contains(anon.body, []byte(`"checklistKey":"`+colKey+`"`)) {
		t.Errorf("anonymous status lacks request.checklistKey: %s", anon.body)
	}

	// source: the parameter, else the client named in the User-Agent, else
	// the User-Agent.
	for i, c := range []struct{ query, agent, want string }{
		{"?source=my-portal", pygbifAgent, "my-portal"},
		{"", "rgbif/3.8.1 (R 4.4)", "rgbif"},
		{"", "Python-urllib/3.11", "python"},
		{"", "curl/8.5.0", "curl/8.5.0"},
	} {
		body := `{"format":"SPECIES_LIST","predicate":{"type":"equals","key":"YEAR","value":"` + string(rune('0'+i)) + `"}}`
		r := expect(t, s.do("POST", "/v1/occurrence/download/request"+c.query, "alice", body, "User-Agent", c.agent), http.StatusCreated)
		if got := s.status(string(r.body), "alice").Source; got != c.want {
			t.Errorf("%s %q: source %q, want %q", c.query, c.agent, got, c.want)
		}
		expect(t, s.do("DELETE", "/v1/occurrence/download/request/"+string(r.body), "alice", nil), http.StatusNoContent)
	}
}

// TestRequestHelpers: GET request/predicate needs a format, as GBIF's;
// request/validate answers the request as it would be recorded, or GBIF's
// INVALID object.
func TestRequestHelpers(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{})
	r := expect(t, s.do("GET", "/v1/occurrence/download/request/predicate?country=TR", "", nil), http.StatusBadRequest)
	if !strings.Contains(string(r.body), "'format'") {
		t.Fatalf("no format: %s", r.body)
	}
	expect(t, s.do("GET", "/v1/occurrence/download/request/predicate?country=TR&format=", "", nil), http.StatusBadRequest)
	expect(t, s.do("GET", "/v1/occurrence/download/request/predicate?country=TR&format=XLS", "", nil), http.StatusBadRequest)
	r = expect(t, s.do("GET", "/v1/occurrence/download/request/predicate?country=TR&format=simpleCsv&checklistKey="+colKey, "", nil), http.StatusOK)
	var req jobs.Request
	if err := json.Unmarshal(r.body, &req); err != nil || req.Format != "SIMPLE_CSV" || req.ChecklistKey != colKey ||
		!strings.Contains(string(req.Predicate), `"TR"`) {
		t.Fatalf("converted %s (%v)", r.body, err)
	}
	// GBIF's downloadPredicate also reads the extensions and the machine
	// description, and names a signed-in caller the creator.
	var full jobs.Request
	r = expect(t, s.do("GET", "/v1/occurrence/download/request/predicate?country=TR&format=DWCA"+
		"&verbatimExtensions=http://rs.tdwg.org/dwc/terms/MeasurementOrFact&machineDescription=%7B%22portal%22:1%7D", "alice", nil), http.StatusOK)
	if err := json.Unmarshal(r.body, &full); err != nil || full.Creator != "alice" || len(full.VerbatimExtensions) != 1 ||
		string(full.MachineDescription) != `{"portal":1}` {
		t.Fatalf("converted with extensions %s (%v)", r.body, err)
	}
	expect(t, s.do("GET", "/v1/occurrence/download/request/predicate?country=TR&format=DWCA&machineDescription=%7Bx", "", nil), http.StatusBadRequest)
	// A trailing slash is matched as GBIF's APIs match it.
	expect(t, s.do("GET", "/v1/occurrence/download/request/predicate/?country=TR&format=DWCA", "", nil), http.StatusOK)

	r = expect(t, s.do("POST", "/v1/occurrence/download/request/validate", "alice", pygbifRequest), http.StatusCreated)
	if err := json.Unmarshal(r.body, &req); err != nil || req.Creator != "alice" || req.ChecklistKey != colKey ||
		len(req.NotificationAddresses) != 1 || !strings.Contains(string(req.Predicate), `"checklistKey"`) {
		t.Fatalf("validated %s (%v)", r.body, err)
	}
	var n int
	if err := s.db.SQL.QueryRow("SELECT count(*) FROM downloads").Scan(&n); err != nil || n != 0 {
		t.Fatalf("validation recorded %d downloads (%v)", n, err)
	}
	for _, body := range []string{`{"format":"XLS"}`, `{"predicate":{"type":"equals","key":"NOPE","value":"1"}}`, `{"colour":1}`} {
		r = expect(t, s.do("POST", "/v1/occurrence/download/request/validate", "", body), http.StatusBadRequest)
		var inv struct{ Status, Reason string }
		if err := json.Unmarshal(r.body, &inv); err != nil || inv.Status != "INVALID" || inv.Reason == "" {
			t.Errorf("%s: %s", body, r.body)
		}
	}
	unauthorized(t, s.do("POST", "/v1/occurrence/download/request/validate", "bob", `{"creator":"alice"}`))
}

// TestDescribe: the describe routes answer GBIF's shapes with the
// columns the formats write, as application/json exactly.
func TestDescribe(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{role: jobs.RoleAPI})
	for path, f := range map[string]download.Format{"simpleCsv": download.FormatSimpleCSV, "speciesList": download.FormatSpeciesList,
		"simpleParquet": download.FormatSimpleParquet, "simpleAvro": download.FormatSimpleAvro, "simpleWithVerbatimAvro": download.FormatSimpleWithVerbatimAvro,
		"dwca": download.FormatDWCA, "mapOfLife": download.FormatMapOfLife} {
		r := expect(t, s.do("GET", "/v1/occurrence/download/describe/"+path, "", nil), http.StatusOK)
		if ct := r.header.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("%s: Content-Type %q", path, ct)
		}
		want, err := download.Describe(f)
		if err != nil {
			t.Fatal(err)
		}
		wb, _ := json.Marshal(want)
		if !bytes.Equal(bytes.TrimSpace(r.body), wb) {
			t.Errorf("%s: served description differs from the format's", path)
		}
		if path == "dwca" {
			if k := topKeys(t, r.body); !slices.Equal(k, []string{"verbatim", "multimedia", "interpreted", "verbatimExtensions"}) {
				t.Errorf("dwca keys %v", k)
			}
			continue
		}
		var tbl struct {
			Fields []map[string]any `json:"fields"`
		}
		if err := json.Unmarshal(r.body, &tbl); err != nil || len(tbl.Fields) < 20 {
			t.Fatalf("%s: %s", path, r.body)
		}
	}
	// GBIF describes no project's export; this one describes them.
	r := expect(t, s.do("GET", "/v1/occurrence/download/describe/bionomia", "", nil), http.StatusOK)
	if k := topKeys(t, r.body); !slices.Equal(k, []string{"occurrence", "agents", "families", "identifiers"}) {
		t.Errorf("bionomia keys %v", k)
	}
	expect(t, s.do("GET", "/v1/occurrence/download/describe/xlsx", "", nil), http.StatusNotFound)
}

// publishers stands in for a catalog that records each dataset's DOI,
// publishing organization and country (the table's catalog does not yet):
// it adds them to the export's result. The first dataset it sees is
// published in DK, all others in TR.
type publishers struct {
	jobs.Engine
	mu      sync.Mutex
	country map[string]string
}

func (p *publishers) Export(ctx context.Context, req jobs.ExportRequest, w io.Writer, prog func(jobs.Progress)) (jobs.ExportResult, error) {
	res, err := p.Engine.Export(ctx, req, w, prog)
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range res.Datasets {
		ds := &res.Datasets[i]
		c, ok := p.country[ds.DatasetKey]
		if !ok {
			c = "TR"
			if len(p.country) == 0 {
				c = "DK"
			}
			p.country[ds.DatasetKey] = c
		}
		ds.DatasetDOI = "10.99999/" + ds.DatasetKey
		ds.PublishingOrgKey, ds.PublishingCountryCode = "org-"+strings.ToLower(c), c
	}
	return res, err
}

// TestUsagesAndStatistics: organizations, countries, the datasets export,
// the user's count and the statistics routes over the downloads held.
func TestUsagesAndStatistics(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn string) {
		s := startServer(t, dsn, options{engine: func(e jobs.Engine) jobs.Engine {
			return &publishers{Engine: e, country: map[string]string{}}
		}})
		key := s.submit("alice", `{"format":"SPECIES_LIST"}`)
		all := s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
		r := expect(t, s.do("POST", "/v1/occurrence/download/request?source=portal", "bob", `{"format":"SIMPLE_CSV","predicate":`+familyPredicate+`}`), http.StatusCreated)
		fam := s.waitStatus(string(r.body), time.Minute, jobs.StatusSucceeded)
		if all.NumberDatasets != 2 || fam.NumberDatasets != 1 {
			t.Fatalf("datasets: %d and %d", all.NumberDatasets, fam.NumberDatasets)
		}

		var page struct {
			Count   int64
			Results []map[string]any
		}
		get := func(path string) {
			t.Helper()
			r := expect(t, s.do("GET", path, "", nil), http.StatusOK)
			page.Results = nil
			if err := json.Unmarshal(r.body, &page); err != nil {
				t.Fatal(err)
			}
		}
		get("/v1/occurrence/download/" + key + "/datasets?sortBy=COUNTRY_CODE")
		if page.Count != 2 || page.Results[0]["publishingCountryCode"] != "DK" || page.Results[1]["publishingCountryCode"] != "TR" ||
			!strings.HasPrefix(page.Results[0]["datasetDOI"].(string), "10.99999/") {
			t.Fatalf("datasets %+v", page)
		}
		get("/v1/occurrence/download/" + key + "/organizations?sortBy=ORGANIZATION_TITLE&sortOrder=DESC")
		if page.Count != 2 || page.Results[0]["organizationKey"] != "org-tr" || page.Results[1]["organizationKey"] != "org-dk" {
			t.Fatalf("organizations %+v", page)
		}
		get("/v1/occurrence/download/" + key + "/countries")
		if page.Count != 2 || page.Results[0]["numberRecords"].(float64)+page.Results[1]["numberRecords"].(float64) != float64(all.TotalRecords) {
			t.Fatalf("countries %+v, %d records", page, all.TotalRecords)
		}
		expect(t, s.do("GET", "/v1/occurrence/download/"+key+"/countries?sortBy=TITLE", "", nil), http.StatusBadRequest)
		r = expect(t, s.do("GET", "/v1/occurrence/download/"+key+"?statistics=true", "", nil), http.StatusOK)
		if !bytes.Contains(r.body, []byte(`"numberOrganizations":2,"numberPublishingCountries":2`)) {
			t.Fatalf("statistics=true: %s", r.body)
		}

		for format, comma := range map[string]rune{"": '\t', "CSV": ','} {
			r = expect(t, s.do("GET", "/v1/occurrence/download/"+key+"/datasets/export?format="+format, "", nil), http.StatusOK)
			cr := csv.NewReader(bytes.NewReader(r.body))
			cr.Comma = comma
			rows, err := cr.ReadAll()
			if err != nil || len(rows) != 3 || !slices.Equal(rows[0], []string{"dataset_doi", "dataset_key", "dataset_title", "dataset_citation", "number_records"}) {
				t.Fatalf("export %q: %q %v", format, rows, err)
			}
			ext := map[string]string{"": "tsv", "CSV": "csv"}[format]
			if cd := r.header.Get("Content-Disposition"); cd != "attachment; filename=datasets_download_usage_"+key+"."+ext {
				t.Fatalf("Content-Disposition %q", cd)
			}
		}
		expect(t, s.do("GET", "/v1/occurrence/download/0000999-000000000000000/datasets/export", "", nil), http.StatusNotFound)

		r = expect(t, s.do("GET", "/v1/occurrence/download/user/alice/count", "alice", nil), http.StatusOK)
		if strings.TrimSpace(string(r.body)) != "1" || r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("count %q %s", r.body, r.header.Get("Content-Type"))
		}
		r = expect(t, s.do("GET", "/v1/occurrence/download/user/bob/count?status=FAILED", "root", nil), http.StatusOK)
		if strings.TrimSpace(string(r.body)) != "0" {
			t.Fatalf("bob's failed count %q", r.body)
		}

		now := time.Now().UTC()
		ym := now.Format("2006-01")
		get("/v1/occurrence/download/statistics?fromDate=" + ym + "&toDate=" + ym)
		// Two datasets in alice's download, one of them in bob's too.
		if page.Count != 2 {
			t.Fatalf("statistics %+v", page)
		}
		var downloads float64
		for _, st := range page.Results {
			downloads += st["numberDownloads"].(float64)
			if st["year"].(float64) != float64(now.Year()) || st["month"].(float64) != float64(now.Month()) {
				t.Errorf("statistics row %v", st)
			}
		}
		if downloads != 3 {
			t.Fatalf("%v downloads of datasets, want 3: %+v", downloads, page)
		}
		get("/v1/occurrence/download/statistics?publishingCountry=DK")
		if page.Count != 1 {
			t.Fatalf("statistics of DK %+v", page)
		}
		get("/v1/occurrence/download/statistics?fromDate=" + now.AddDate(1, 0, 0).Format("2006"))
		if page.Count != 0 {
			t.Fatalf("statistics of next year %+v", page)
		}
		r = expect(t, s.do("GET", "/v1/occurrence/download/statistics/export?format=CSV", "", nil), http.StatusOK)
		if lines := strings.Split(strings.TrimSpace(string(r.body)), "\n"); len(lines) != 3 || lines[0] != "dataset_key,total_records,number_downloads,year,month" {
			t.Fatalf("statistics export %q", r.body)
		}
		monthly := func(path, want string) {
			t.Helper()
			r := expect(t, s.do("GET", "/v1/occurrence/download/statistics/"+path, "", nil), http.StatusOK)
			if strings.TrimSpace(string(r.body)) != want {
				t.Errorf("%s: %s, want %s", path, r.body, want)
			}
		}
		cell := func(n int) string {
			return `{"` + now.Format("2006") + `":{"` + now.Format("1") + `":` + string(rune('0'+n)) + `}}`
		}
		monthly("downloadsBySource", cell(2))
		monthly("downloadsBySource?source=portal", cell(1))
		monthly("downloadsByUserCountry?userCountry=DK", `{}`)
		monthly("downloadsByDataset?publishingCountry=TR", cell(2))
		monthly("downloadsByDataset?publishingCountry=DK", cell(1))
		r = expect(t, s.do("GET", "/v1/occurrence/download/statistics/downloadsByDataset?fromDate=2024-13", "", nil), http.StatusBadRequest)
		if !strings.Contains(string(r.body), "Unaccepted parameter value fromDate : 2024-13") {
			t.Fatalf("bad date: %s", r.body)
		}
	})
}
