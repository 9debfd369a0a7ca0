package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/text/language"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// The portal page: a search form, a map, record pages, sign-in and
// downloads, written as plain JavaScript modules and CSS under ui/ and
// embedded in the binary (no build step). Operators change it without
// forking: the web/ folder of the overrides directory mirrors ui/, and a
// file there replaces the embedded one of the same name or adds one
// (header.html, footer.html, logo.svg, theme.css, custom.css, custom.js,
// messages/<lang>.json whose keys replace the embedded strings). An upgrade
// replaces the binary and never that directory. docs/page.md.

//go:embed ui
var embeddedUI embed.FS

// PageConfig configures the portal page.
type PageConfig struct {
	// OverridesDir is the operator's overrides directory ("" for none); its
	// web/ folder overrides ui/ file by file.
	OverridesDir string
	// Sessions says how long a sign-in lasts.
	Sessions jobs.SessionConfig
	// Catalog describes the datasets (titles, licences, EML contacts) on
	// record pages and for the contact form; nil shows none.
	Catalog occurrence.Catalog
	// ContactPerDay is how many messages a user may send to publishers in
	// 24 hours (default 10; negative turns the contact form off).
	ContactPerDay int
	// Secure marks the session cookie Secure (set when the public URL is
	// https).
	Secure bool
	// Portal is the portal's name in the page's title and header.
	Portal string
}

// Page is the portal page's assets, strings and settings, loaded and
// checked once at start.
type Page struct {
	cfg     PageConfig
	files   pageFiles
	logger  *slog.Logger
	langs   []string // catalogue languages, English first
	matcher language.Matcher
	// messages holds each language's strings (English under the others'
	// gaps) as JSON, with its ETag.
	messages map[string]asset
	strs     map[string]map[string]string
	origin   *http.CrossOriginProtection
	// shells is the page's HTML in each language, rendered at load.
	shells map[string][]byte
}

// asset is a served file.
type asset struct {
	body []byte
	etag string
	ct   string
}

func newAsset(name string, body []byte) asset {
	sum := sha256.Sum256(body)
	ct := mime.TypeByExtension(path.Ext(name))
	switch path.Ext(name) {
	case ".js", ".mjs":
		ct = "text/javascript; charset=utf-8"
	case ".json":
		ct = "application/json"
	case ".svg":
		ct = "image/svg+xml"
	case ".css":
		ct = "text/css; charset=utf-8"
	case ".html":
		ct = "text/html; charset=utf-8"
	}
	if ct == "" {
		ct = "application/octet-stream"
	}
	return asset{body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, ct: ct}
}

// pageFiles is the embedded ui/ tree under the operator's web/ folder.
type pageFiles struct {
	embedded fs.FS
	root     *os.Root // DIR/web, nil without overrides
	dir      string
}

// read returns name from the overrides when there is such a file, else
// the embedded one; where says which, for errors. ok is false when
// neither has it.
func (f pageFiles) read(name string) (data []byte, where string, ok bool, err error) {
	if b, where, ok, err := f.readOverride(name); ok || err != nil {
		return b, where, ok, err
	}
	b, err := fs.ReadFile(f.embedded, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", false, nil
	}
	return b, "(embedded) web/ui/" + name, err == nil, err
}

// readOverride returns the operator's file name, if there is one.
func (f pageFiles) readOverride(name string) (data []byte, where string, ok bool, err error) {
	if f.root == nil {
		return nil, "", false, nil
	}
	where = filepath.Join(f.dir, filepath.FromSlash(name))
	b, err := f.root.ReadFile(filepath.FromSlash(name))
	switch {
	case err == nil:
		return b, where, true, nil
	case errors.Is(err, fs.ErrNotExist), isNotDir(err):
		return nil, "", false, nil
	}
	return nil, where, false, fmt.Errorf("page override %s: %w", where, err)
}

// isNotDir reports an error opening a path through a file (a/b where a is
// a file), which is "no such file" too.
func isNotDir(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

// list returns the names of the files directly in folder, embedded and
// overridden together.
func (f pageFiles) list(folder string) ([]string, error) {
	seen := map[string]bool{}
	if es, err := fs.ReadDir(f.embedded, folder); err == nil {
		for _, e := range es {
			if !e.IsDir() {
				seen[e.Name()] = true
			}
		}
	}
	if f.root != nil {
		es, err := fs.ReadDir(f.root.FS(), folder)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("page overrides %s: %w", filepath.Join(f.dir, folder), err)
		}
		for _, e := range es {
			if !e.IsDir() {
				seen[e.Name()] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	return out, nil
}

// NewPage loads the page's strings and templates, embedded and overridden,
// and checks them: a bad override stops the start with its file and what
// is wrong.
func NewPage(cfg PageConfig, logger *slog.Logger) (*Page, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if cfg.ContactPerDay == 0 {
		cfg.ContactPerDay = 10
	}
	sub, err := fs.Sub(embeddedUI, "ui")
	if err != nil {
		return nil, err
	}
	p := &Page{cfg: cfg, logger: logger, files: pageFiles{embedded: sub}, origin: http.NewCrossOriginProtection()}
	if cfg.OverridesDir != "" {
		dir := filepath.Join(cfg.OverridesDir, "web")
		root, err := os.OpenRoot(dir)
		switch {
		case err == nil:
			p.files.root, p.files.dir = root, dir
		case errors.Is(err, fs.ErrNotExist):
			// No page overrides: the embedded page.
		default:
			return nil, fmt.Errorf("page overrides: %w", err)
		}
	}
	if err := p.loadMessages(); err != nil {
		return nil, err
	}
	if err := p.loadTemplates(); err != nil {
		return nil, err
	}
	return p, nil
}

// loadTemplates renders the shell with the operator's header and footer
// in every language: a template that fails stops the start, not a user's
// first visit.
func (p *Page) loadTemplates() error {
	p.shells = map[string][]byte{}
	for _, l := range p.langs {
		b, err := p.renderShell(l)
		if err != nil {
			return err
		}
		p.shells[l] = b
	}
	return nil
}

// parseTemplate parses ui/name (or its override) with the strings of lang
// as the function t.
func (p *Page) parseTemplate(name, lang string) (*htmltemplate.Template, error) {
	b, where, ok, err := p.files.read(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("page: %s missing from the build", name)
	}
	strs := p.strings(lang)
	t, err := htmltemplate.New(name).Funcs(htmltemplate.FuncMap{"t": func(key string) (string, error) {
		if s, ok := strs[key]; ok {
			return s, nil
		}
		return "", fmt.Errorf("no string %q in the page's catalogue", key)
	}}).Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("page template %s: %w", where, err)
	}
	return t, nil
}

// shellData is what shell.html, header.html and footer.html see.
type shellData struct {
	Lang, Portal   string
	Header, Footer htmltemplate.HTML
	Languages      []langChoice
}

type langChoice struct {
	Tag, Name string
	Current   bool
}

// renderShell writes the page's HTML in lang.
func (p *Page) renderShell(lang string) ([]byte, error) {
	d := shellData{Lang: lang, Portal: p.cfg.Portal}
	for _, l := range p.langs {
		d.Languages = append(d.Languages, langChoice{Tag: l, Name: p.strings(l)["language.name"], Current: l == lang})
	}
	var b bytes.Buffer
	for _, part := range []struct {
		name string
		out  *htmltemplate.HTML
	}{{"header.html", &d.Header}, {"footer.html", &d.Footer}, {"shell.html", nil}} {
		t, err := p.parseTemplate(part.name, lang)
		if err != nil {
			return nil, err
		}
		b.Reset()
		if err := t.Execute(&b, d); err != nil {
			return nil, fmt.Errorf("page %s (%s): %w", part.name, lang, err)
		}
		if part.out != nil {
			// The operator's own HTML, its data escaped by html/template.
			*part.out = htmltemplate.HTML(b.String())
		}
	}
	return bytes.Clone(b.Bytes()), nil
}

// pageCSP keeps every request of the page on this origin: scripts, styles,
// images, fonts and fetches from the service only, nothing inline.
const pageCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// securityHeaders are sent with every page response.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
}

// pageRoutes are the page's views (one HTML shell; the script shows the
// view the path names), its files and its API.
func (s *Server) pageRoutes() []route {
	if s.cfg.Page == nil {
		return nil
	}
	views := []string{"/{$}", "/occurrence/{gbifID}", "/occurrence/download/{key}", "/user/downloads", "/user/signin"}
	rs := make([]route, 0, len(views)+20)
	for _, v := range views {
		rs = append(rs, route{"GET", v, nil, s.pageShell})
	}
	rs = append(rs, route{"GET", "/ui/{file...}", nil, s.pageFile})
	return append(rs, s.pageAPIRoutes()...)
}

// language picks the page's language: the lang cookie (the language
// switch), else the Accept-Language header, else English.
func (p *Page) language(r *http.Request) string {
	var prefs []language.Tag
	if c, err := r.Cookie("lang"); err == nil {
		if t, err := language.Parse(c.Value); err == nil {
			prefs = append(prefs, t)
		}
	}
	if tags, _, err := language.ParseAcceptLanguage(r.Header.Get("Accept-Language")); err == nil {
		prefs = append(prefs, tags...)
	}
	if len(prefs) == 0 {
		return p.langs[0]
	}
	_, i, conf := p.matcher.Match(prefs...)
	if conf == language.No {
		return p.langs[0]
	}
	return p.langs[i]
}

// pageShell: the HTML of every view.
func (s *Server) pageShell(w http.ResponseWriter, r *http.Request) error {
	p := s.cfg.Page
	lang := p.language(r)
	b := p.shells[lang]
	h := w.Header()
	securityHeaders(h)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Language", lang)
	h.Set("Vary", "Accept-Language, Cookie")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	return nil
}

// notServed are the files of ui/ that are templates, not assets.
var notServed = map[string]bool{"shell.html": true, "header.html": true, "footer.html": true}

// pageFile: GET /ui/{file...}, an asset, overridden or embedded. Assets
// are revalidated on every use (ETag), so an upgrade or an operator's
// change shows at once.
func (s *Server) pageFile(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("file")
	if !fs.ValidPath(name) || notServed[name] || strings.HasPrefix(name, "messages/") {
		return fmt.Errorf("%w: no such file /ui/%s", jobs.ErrNotFound, name)
	}
	b, _, ok, err := s.cfg.Page.files.read(name)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: no such file /ui/%s", jobs.ErrNotFound, name)
	}
	serveAsset(w, r, newAsset(name, b))
	return nil
}

// serveAsset answers with a, or 304 when the client has it.
func serveAsset(w http.ResponseWriter, r *http.Request, a asset) {
	h := w.Header()
	securityHeaders(h)
	h.Set("ETag", a.etag)
	h.Set("Cache-Control", "no-cache")
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", a.ct)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
