package web_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/mailpit"
	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
	"github.com/biodiversity-downloads/downloader/search"
	"github.com/biodiversity-downloads/downloader/web"
)

// pageServer is the API with the page, on loopback, and a browser-like
// client: a cookie jar, and the CSRF token of its session.
type pageServer struct {
	*server
	client *http.Client
	csrf   string
}

func startPageServer(t *testing.T, dsn string, pc web.PageConfig, o options) *pageServer {
	t.Helper()
	svc, db, dir := openService(t, dsn, o)
	ctx := context.Background()
	for _, u := range testUsers {
		if err := db.AddUser(ctx, u, password(u.Name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	_, table := buildFixture(t)
	store, err := parquet.Open(table, parquet.Config{}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	pc.Catalog = store
	page, err := web.NewPage(pc, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	wcfg := o.web
	wcfg.Page, wcfg.Search = page, search.New(store, search.Config{}, testLogger(t))
	api := web.New(svc, jobs.NewAuthenticator(db, o.auth), wcfg, testLogger(t))
	hs := httptest.NewServer(api)
	s := &server{t: t, URL: hs.URL, svc: svc, db: db, dsn: dsn, archive: dir}
	t.Cleanup(func() {
		hs.Close()
		s.stop()
	})
	jar, _ := cookiejar.New(nil)
	return &pageServer{server: s, client: &http.Client{Jar: jar}}
}

// call sends a page request as a browser of this origin would: a JSON
// body, the session's CSRF token (unless noCSRF), and hdr on top.
func (p *pageServer) call(method, path string, body any, noCSRF bool, hdr ...string) response {
	p.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			p.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, p.URL+path, rd)
	if err != nil {
		p.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if p.csrf != "" && !noCSRF {
		req.Header.Set("X-CSRF-Token", p.csrf)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := p.client.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{code: resp.StatusCode, header: resp.Header, body: b}
}

// signIn signs user in and keeps the session's CSRF token.
func (p *pageServer) signIn(user string) {
	p.t.Helper()
	r := expect(p.t, p.call("POST", "/ui/api/signin", map[string]string{"user": user, "password": password(user)}, false), 200)
	var ses struct{ User, CSRF string }
	if err := json.Unmarshal(r.body, &ses); err != nil || ses.User != user || ses.CSRF == "" {
		p.t.Fatalf("sign-in answer %s", r)
	}
	p.csrf = ses.CSRF
}

// pageCode reads a page API error's code.
func pageCode(t *testing.T, r response) string {
	t.Helper()
	var e struct{ Code, Message string }
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Fatalf("not a page error: %s", r)
	}
	return e.Code
}

func TestPageSessions(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn string) {
		p := startPageServer(t, dsn, web.PageConfig{}, options{})
		// Signed out: the session is 401 session_expired.
		if r := expect(t, p.call("GET", "/ui/api/session", nil, false), 401); pageCode(t, r) != "session_expired" {
			t.Fatalf("no session: %s", r)
		}
		r := expect(t, p.call("POST", "/ui/api/signin", map[string]string{"user": "alice", "password": "wrong password"}, false), 401)
		if pageCode(t, r) != "sign_in_failed" || strings.Contains(string(r.body), "alice") {
			t.Fatalf("wrong password: %s", r)
		}
		r = expect(t, p.call("POST", "/ui/api/signin", map[string]string{"user": "alice", "password": password("alice")}, false), 200)
		var cookie *http.Cookie
		for _, c := range (&http.Response{Header: r.header}).Cookies() {
			if c.Name == "session" {
				cookie = c
			}
		}
		if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || cookie.Secure || cookie.Path != "/" {
			t.Fatalf("session cookie %+v", cookie)
		}
		// The database keeps only the token's hash.
		var stored string
		if err := p.db.SQL.QueryRow("SELECT token_hash FROM page_sessions").Scan(&stored); err != nil || stored == cookie.Value || len(stored) != 64 {
			t.Fatalf("stored %q (%v) for cookie %q", stored, err, cookie.Value)
		}
		p.signIn("alice")
		expect(t, p.call("GET", "/ui/api/session", nil, false), 200)

		// Changes need the session's CSRF token, this origin and JSON.
		body := map[string]any{"query": "country=TR", "format": "SIMPLE_CSV"}
		if r := expect(t, p.call("POST", "/ui/api/downloads", body, true), 403); pageCode(t, r) != "csrf" {
			t.Fatalf("no CSRF token: %s", r)
		}
		if r := expect(t, p.call("POST", "/ui/api/downloads", body, false, "X-CSRF-Token", "forged"), 403); pageCode(t, r) != "csrf" {
			t.Fatalf("wrong CSRF token: %s", r)
		}
		if r := expect(t, p.call("POST", "/ui/api/downloads", body, false, "Sec-Fetch-Site", "cross-site"), 403); pageCode(t, r) != "cross_origin" {
			t.Fatalf("cross-site: %s", r)
		}
		expect(t, p.call("POST", "/ui/api/downloads", body, false, "Content-Type", "text/plain"), 415)
		r = expect(t, p.call("POST", "/ui/api/downloads", body, false), 201)
		// The download is of the search the page ran: a blank field,
		// which the search drops, selects nothing (the API's GET rule
		// would refuse it).
		blank := expect(t, p.call("POST", "/ui/api/downloads", map[string]any{"query": "country=TR&year=", "format": "SIMPLE_CSV"}, false), 201)
		var bk struct{ Key string }
		_ = json.Unmarshal(blank.body, &bk)
		var got struct {
			Request struct{ Predicate json.RawMessage }
		}
		_ = json.Unmarshal(expect(t, p.call("GET", "/ui/api/downloads/"+bk.Key, nil, false), 200).body, &got)
		if pred := string(got.Request.Predicate); !strings.Contains(pred, `"COUNTRY"`) || strings.Contains(pred, "YEAR") {
			t.Fatalf("page download of country=TR&year=: predicate %s", pred)
		}
		// A full-text search is the search's only: no download of it,
		// with words that say why.
		if r := expect(t, p.call("POST", "/ui/api/downloads", map[string]any{"query": "country=TR&q=Bunium", "format": "SIMPLE_CSV"}, false), 400); !strings.Contains(string(r.body), "q (full-text search) selects records for the search only") {
			t.Fatalf("page download of q=Bunium: %s", r.body)
		}
		// The /v1 API never reads the cookie: clients use HTTP Basic.
		req, _ := http.NewRequest("GET", p.URL+"/v1/occurrence/download/user/alice", nil)
		resp, err := p.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Fatalf("/v1 with the session cookie only: %s, want 401", resp.Status)
		}
		// Another user's download is not found through the page.
		var k struct{ Key string }
		_ = json.Unmarshal(r.body, &k)
		p.csrf = ""
		p.signIn("bob")
		expect(t, p.call("GET", "/ui/api/downloads/"+k.Key, nil, false), 404)
		// A bad offset is refused, as the /v1 lists refuse it.
		expect(t, p.call("GET", "/ui/api/downloads?offset=2", nil, false), 200)
		expect(t, p.call("GET", "/ui/api/downloads?offset=-1", nil, false), 400)
		expect(t, p.call("POST", "/ui/api/downloads/"+k.Key+"/cancel", nil, false), 401)

		// Signing out ends the session on the server, not only the cookie.
		jar := p.client.Jar
		saved := jar.Cookies(mustURL(t, p.URL))
		expect(t, p.call("POST", "/ui/api/signout", nil, false), 204)
		jar.SetCookies(mustURL(t, p.URL), saved)
		if r := expect(t, p.call("GET", "/ui/api/session", nil, false), 401); pageCode(t, r) != "session_expired" {
			t.Fatalf("after sign-out: %s", r)
		}
	})
}

func TestPageSessionExpires(t *testing.T) {
	p := startPageServer(t, sqliteDSN(t), web.PageConfig{Sessions: jobs.SessionConfig{Idle: 300 * time.Millisecond, Max: time.Hour}}, options{})
	p.signIn("alice")
	expect(t, p.call("GET", "/ui/api/session", nil, false), 200)
	time.Sleep(400 * time.Millisecond)
	r := expect(t, p.call("POST", "/ui/api/downloads", map[string]any{"query": "country=TR"}, false), 401)
	if pageCode(t, r) != "session_expired" {
		t.Fatalf("expired session: %s", r)
	}
}

func TestPageSecureCookie(t *testing.T) {
	p := startPageServer(t, sqliteDSN(t), web.PageConfig{Secure: true}, options{})
	r := expect(t, p.call("POST", "/ui/api/signin", map[string]string{"user": "alice", "password": password("alice")}, false), 200)
	cs := (&http.Response{Header: r.header}).Cookies()
	if len(cs) != 1 || cs[0].Name != "__Host-session" || !cs[0].Secure || !cs[0].HttpOnly {
		t.Fatalf("cookies %+v, want a Secure __Host-session", cs)
	}
}

// TestPageDownloadFields: the column choice of SIMPLE_CSV reaches the
// archive; a bad column is refused at submission.
func TestPageDownloadFields(t *testing.T) {
	p := startPageServer(t, sqliteDSN(t), web.PageConfig{}, options{})
	p.signIn("alice")
	cfg := expect(t, p.call("GET", "/ui/api/config", nil, false), 200)
	var offer struct {
		Formats []struct {
			Name          string
			Fields        bool
			DefaultFields []string
		}
		ChoosableFields []string
	}
	if err := json.Unmarshal(cfg.body, &offer); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range offer.Formats {
		names = append(names, f.Name)
		if f.Name == "SIMPLE_CSV" && (!f.Fields || len(f.DefaultFields) < 40) {
			t.Errorf("SIMPLE_CSV offer %+v", f)
		}
	}
	for _, want := range []string{"DWCA", "SIMPLE_CSV", "SPECIES_LIST", "SIMPLE_PARQUET"} {
		if !slices.Contains(names, want) {
			t.Errorf("formats %v lack %s", names, want)
		}
	}
	if !slices.Contains(offer.ChoosableFields, "habitat") {
		t.Errorf("choosable fields lack habitat: %v", offer.ChoosableFields)
	}
	r := expect(t, p.call("POST", "/ui/api/downloads", map[string]any{"query": "country=TR", "format": "SIMPLE_CSV",
		"fields": []string{"nope"}}, false), 400)
	if !strings.Contains(string(r.body), "nope") {
		t.Fatalf("bad field: %s", r)
	}
	expect(t, p.call("POST", "/ui/api/downloads", map[string]any{"query": "country=TR", "format": "DWCA",
		"fields": []string{"gbifID"}}, false), 400)
	r = expect(t, p.call("POST", "/ui/api/downloads", map[string]any{"query": "country=TR", "format": "SIMPLE_CSV",
		"fields": []string{"scientificName", "gbifID", "habitat"}}, false), 201)
	var k struct{ Key string }
	_ = json.Unmarshal(r.body, &k)
	d := p.waitStatus(k.Key, time.Minute, jobs.StatusSucceeded)
	zr := fetchZip(t, d.DownloadLink)
	f, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	head, _ := io.ReadAll(io.LimitReader(f, 200))
	f.Close()
	if first, _, _ := strings.Cut(string(head), "\n"); first != "scientificName\tgbifID\thabitat" {
		t.Fatalf("header %q, want the chosen columns in order", first)
	}
	// Keep longer: a download due for erasure in a week is kept the full
	// period from today; the owner's page shows the new date.
	week := time.Now().Add(7 * 24 * time.Hour)
	if _, err := p.db.SQL.Exec("UPDATE downloads SET erase_after = "+map[bool]string{true: "$1", false: "?"}[strings.HasPrefix(p.dsn, "postgres")]+
		" WHERE key = '"+k.Key+"'", week.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	r = expect(t, p.call("POST", "/ui/api/downloads/"+k.Key+"/postpone", nil, false), 200)
	var kept jobs.Download
	if err := json.Unmarshal(r.body, &kept); err != nil || !kept.EraseAfter.After(week.Add(24*time.Hour)) {
		t.Fatalf("postponed: %s (%v)", r, err)
	}
}

func fetchZip(t *testing.T, link string) *zip.Reader {
	t.Helper()
	resp, err := http.Get(strings.Replace(link, "http://downloads.test", "", 1))
	if err == nil && resp.StatusCode != 200 {
		t.Fatalf("%s: %s", link, resp.Status)
	}
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return zr
}

// TestPageContact: the contact form mails the dataset's EML contact with
// the signed-in sender in Cc and Reply-To, and refuses past the daily
// limit.
func TestPageContact(t *testing.T) {
	pit := mailpit.Shared(t)
	mailer, err := jobs.NewMailer(jobs.MailConfig{Addr: pit.SMTP, From: "Portal <portal@example.org>"})
	if err != nil {
		t.Fatal(err)
	}
	p := startPageServer(t, sqliteDSN(t), web.PageConfig{ContactPerDay: 1}, options{mailer: mailer})
	sender := mailpit.Address("carol")
	if err := p.db.AddUser(context.Background(), jobs.User{Name: "carol", Email: sender}, password("carol")); err != nil {
		t.Fatal(err)
	}
	// Without a session: 401.
	msg := map[string]any{"gbifID": 1, "name": "Carol Example", "subject": "Locality", "message": "The locality looks wrong."}
	expect(t, p.call("POST", "/ui/api/contact", msg, false), 401)
	p.signIn("carol")
	var cfg struct{ Contact bool }
	_ = json.Unmarshal(expect(t, p.call("GET", "/ui/api/config", nil, false), 200).body, &cfg)
	if !cfg.Contact {
		t.Fatal("config says there is no contact form")
	}
	// A record of the PonTaurus dataset, whose EML names its contact.
	var page struct {
		Results []struct {
			GBIFID     string `json:"gbifID"`
			DatasetKey string `json:"datasetKey"`
		}
	}
	_ = json.Unmarshal(expect(t, p.call("GET", "/v1/occurrence/search?datasetKey=79829665-82c9-414b-b3c1-c1920c4c6c78&limit=1", nil, false), 200).body, &page)
	if len(page.Results) != 1 {
		t.Fatal("no PonTaurus record in the test table")
	}
	ds := expect(t, p.call("GET", "/ui/api/datasets/"+page.Results[0].DatasetKey, nil, false), 200)
	if !strings.Contains(string(ds.body), `"contact":"Markus Döring"`) || strings.Contains(string(ds.body), "@") {
		t.Fatalf("dataset %s: want the contact's name and no address", ds)
	}
	msg["gbifID"] = json.Number(page.Results[0].GBIFID)
	for field, bad := range map[string]string{"message": " ", "subject": strings.Repeat("x", 201)} {
		m := map[string]any{}
		for k, v := range msg {
			m[k] = v
		}
		m[field] = bad
		expect(t, p.call("POST", "/ui/api/contact", m, false), 400)
	}
	msg["subject"] = "Locality " + sender
	expect(t, p.call("POST", "/ui/api/contact", msg, false), 202)
	if r := expect(t, p.call("POST", "/ui/api/contact", msg, false), 429); pageCode(t, r) != "too_many_messages" {
		t.Fatalf("second message of the day: %s", r)
	}
	// The shared mailpit may hold earlier runs' messages to the contact:
	// this run's names its sender in the subject.
	var got *mailpit.Message
	for deadline := time.Now().Add(20 * time.Second); got == nil; time.Sleep(100 * time.Millisecond) {
		ms := pit.Messages(t, "mdoering@gbif.org")
		for i := range ms {
			if strings.Contains(ms[i].Subject, sender) {
				got = &ms[i]
			}
		}
		if got == nil && time.Now().After(deadline) {
			t.Fatalf("no message to the contact with subject naming %s", sender)
		}
	}
	h := pit.Headers(t, got.ID)
	if !strings.Contains(strings.Join(h["Cc"], ","), sender) || !strings.Contains(strings.Join(h["Reply-To"], ","), sender) ||
		len(h["Auto-Submitted"]) != 0 {
		t.Fatalf("headers Cc %v Reply-To %v Auto-Submitted %v", h["Cc"], h["Reply-To"], h["Auto-Submitted"])
	}
	if !strings.Contains(got.Text, "The locality looks wrong.") || !strings.Contains(got.Text, "/occurrence/"+page.Results[0].GBIFID) {
		t.Fatalf("text:\n%s", got.Text)
	}
}

// TestPageContactOff: a negative ContactPerDay (serve's
// page.contact_per_day: -1) turns the contact form off although mail is
// configured.
func TestPageContactOff(t *testing.T) {
	mailer, err := jobs.NewMailer(jobs.MailConfig{Addr: "127.0.0.1:1", From: "portal@example.org"})
	if err != nil {
		t.Fatal(err)
	}
	p := startPageServer(t, sqliteDSN(t), web.PageConfig{ContactPerDay: -1}, options{mailer: mailer})
	if err := p.db.AddUser(context.Background(), jobs.User{Name: "carol", Email: "carol@example.org"}, password("carol")); err != nil {
		t.Fatal(err)
	}
	p.signIn("carol")
	var cfg struct{ Contact *bool }
	if err := json.Unmarshal(expect(t, p.call("GET", "/ui/api/config", nil, false), 200).body, &cfg); err != nil || cfg.Contact == nil {
		t.Fatalf("config: %v, contact %v", err, cfg.Contact)
	}
	if *cfg.Contact {
		t.Error("config offers the contact form")
	}
	msg := map[string]any{"gbifID": 1, "name": "Carol", "subject": "Locality", "message": "Wrong."}
	if r := expect(t, p.call("POST", "/ui/api/contact", msg, false), 503); pageCode(t, r) != "contact_off" {
		t.Errorf("contact: %s", r)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestPageOverrides: the operator's files replace the embedded ones and
// add languages; a bad override stops the start naming its file.
func TestPageOverrides(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, "web", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("header.html", `<a class="brand" href="/">Atlas of {{.Portal}}</a>`)
	write("theme.css", ":root { --color-brand: #123456; }")
	write("logo.png", "png bytes")
	write("messages/fr.json", `{"home.title": "Chercher dans l'atlas"}`)
	write("messages/de.json", `{"language.name": "Deutsch", "home.title": "Fundorte suchen"}`)
	p := startPageServer(t, sqliteDSN(t), web.PageConfig{OverridesDir: dir, Portal: "Nordic"}, options{})
	home := expect(t, p.call("GET", "/", nil, false, "Accept-Language", "de-CH, en;q=0.5"), 200)
	body := string(home.body)
	if !strings.Contains(body, "Atlas of Nordic") || !strings.Contains(body, `<html lang="de">`) ||
		!strings.Contains(body, `>Deutsch</option>`) || home.header.Get("Content-Security-Policy") == "" {
		t.Fatalf("home page:\n%s", body)
	}
	if r := expect(t, p.call("GET", "/ui/theme.css", nil, false), 200); string(r.body) != ":root { --color-brand: #123456; }" {
		t.Fatalf("theme.css %s", r)
	}
	expect(t, p.call("GET", "/ui/logo.png", nil, false), 200)
	etag := expect(t, p.call("GET", "/ui/app.css", nil, false), 200).header.Get("ETag")
	expect(t, p.call("GET", "/ui/app.css", nil, false, "If-None-Match", etag), 304)
	expect(t, p.call("GET", "/ui/shell.html", nil, false), 404)
	expect(t, p.call("GET", "/ui/../page.go", nil, false), 404)
	var fr, de map[string]string
	_ = json.Unmarshal(expect(t, p.call("GET", "/ui/api/messages/fr", nil, false), 200).body, &fr)
	_ = json.Unmarshal(expect(t, p.call("GET", "/ui/api/messages/de", nil, false), 200).body, &de)
	if fr["home.title"] != "Chercher dans l'atlas" || fr["nav.search"] != "Rechercher" {
		t.Fatalf("fr: %q %q", fr["home.title"], fr["nav.search"])
	}
	if de["home.title"] != "Fundorte suchen" || de["nav.search"] != "Search" {
		t.Fatalf("de (English under it): %q %q", de["home.title"], de["nav.search"])
	}

	for _, c := range []struct{ file, body, want string }{
		{"messages/es.json", `{"home.title": 3}`, `messages/es.json:1: key "home.title": want a string`},
		{"messages/es.json", `{"home.titel": "x"}`, `messages/es.json: key "home.titel" is not in the English catalogue`},
		{"messages/es.json", "{\n\"a\": \"x\",\n", "messages/es.json:3"},
		{"header.html", `{{.Nope}`, "header.html"},
	} {
		bad := t.TempDir()
		p := filepath.Join(bad, "web", filepath.FromSlash(c.file))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, []byte(c.body), 0o644)
		_, err := web.NewPage(web.PageConfig{OverridesDir: bad}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v, want an error with %q", c.file, c.body, err, c.want)
		}
	}
}

// TestPageCataloguesComplete: every shipped language has every English
// key, and no other.
func TestPageCataloguesComplete(t *testing.T) {
	read := func(lang string) map[string]string {
		b, err := os.ReadFile("ui/messages/" + lang + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	en := read("en")
	for _, lang := range []string{"es", "fr"} {
		m := read(lang)
		for k := range en {
			if _, ok := m[k]; !ok {
				t.Errorf("%s lacks %s", lang, k)
			}
		}
		for k := range m {
			if _, ok := en[k]; !ok {
				t.Errorf("%s has %s, English does not", lang, k)
			}
		}
	}
}

// TestPageSignInBackOff: sign-in on the page is the API's login, with its
// back-off after failures (429, Retry-After, the page's code), and a user
// disabled since signing in loses the session at once.
func TestPageSignInBackOff(t *testing.T) {
	p := startPageServer(t, sqliteDSN(t), web.PageConfig{}, options{auth: jobs.AuthConfig{AddressFree: 2, UserFree: 2}})
	p.signIn("alice")
	expect(t, p.call("GET", "/ui/api/session", nil, false), 200)
	if err := p.db.SetDisabled(context.Background(), "alice", true); err != nil {
		t.Fatal(err)
	}
	if r := expect(t, p.call("GET", "/ui/api/session", nil, false), 401); pageCode(t, r) != "session_expired" {
		t.Fatalf("disabled user's session: %s", r)
	}
	var last response
	for i := 0; i < 4; i++ {
		last = p.call("POST", "/ui/api/signin", map[string]string{"user": "bob", "password": "wrong password"}, false)
	}
	if last.code != 429 || pageCode(t, last) != "sign_in_throttled" || last.header.Get("Retry-After") == "" {
		t.Fatalf("fourth failed sign-in: %s (Retry-After %q)", last, last.header.Get("Retry-After"))
	}
}
