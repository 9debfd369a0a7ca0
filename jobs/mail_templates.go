package jobs

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	texttemplate "text/template"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The words of notices: message catalogues per language and the templates
// that arrange them, embedded in the binary (mail/ beside this file) and
// overridden file by file from an operator's overrides directory, whose
// mail/ folder mirrors the embedded one:
//
//	mail/messages/<lang>.json           strings by key; an override file's keys
//	                                    replace the embedded ones, a new file
//	                                    adds a language
//	mail/templates/<name>               a template; an override of the same
//	mail/templates/<lang>/<name>        name wins, for one language or all
//
// Catalogue strings are text/template snippets over the notice's data with
// the same functions as the templates (t, plural, num, date, size).
// Templates named *.html.tmpl are html/template (the data and the strings
// are escaped), *.text.tmpl text/template. Everything is parsed, and every
// notice rendered in every language once, when the service starts: a bad
// override stops the start with its file, key and line.

//go:embed mail
var embeddedMail embed.FS

// defaultLanguage is the catalogue every key must be in and the one a
// missing string or an unknown language falls back to.
const defaultLanguage = "en"

// mailCatalog holds the languages notices can be written in.
type mailCatalog struct {
	locales map[string]*mailLocale
	tags    []language.Tag // in the order of names
	names   []string       // defaultLanguage first, then sorted
	matcher language.Matcher
}

// mailLocale is one language: its strings and its parsed templates.
type mailLocale struct {
	name    string
	tag     language.Tag
	strings map[string]string
	parsed  map[string]*texttemplate.Template
	src     map[string]string // where each string came from, for errors
	base    *mailLocale       // the default language (nil for itself)
	printer *message.Printer
	months  []string
	text    *texttemplate.Template
	html    *htmltemplate.Template
}

// mailFiles is the embedded tree under an optional overrides tree.
type mailFiles struct {
	embedded fs.FS
	dir      string // the overrides directory ("" for none)
}

// read returns the override of name when there is one, else the embedded
// file; where says which it was. ok is false when neither exists.
func (f mailFiles) read(name string) (data []byte, where string, ok bool, err error) {
	if f.dir != "" {
		p := filepath.Join(f.dir, filepath.FromSlash(name))
		b, err := os.ReadFile(p)
		if err == nil {
			return b, p, true, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, p, false, err
		}
	}
	b, err := fs.ReadFile(f.embedded, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", false, nil
	}
	return b, "(embedded) " + name, err == nil, err
}

// list returns the names of the files directly in folder, embedded and
// overridden together.
func (f mailFiles) list(folder string) ([]string, error) {
	seen := map[string]bool{}
	add := func(entries []fs.DirEntry) {
		for _, e := range entries {
			if !e.IsDir() {
				seen[e.Name()] = true
			}
		}
	}
	if es, err := fs.ReadDir(f.embedded, folder); err == nil {
		add(es)
	}
	if f.dir != "" {
		es, err := os.ReadDir(filepath.Join(f.dir, filepath.FromSlash(folder)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		add(es)
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// CheckMailOverrides loads the notices' catalogues and templates with those
// of overridesDir as a service with a mailer does when it starts, and
// returns what it would refuse.
func CheckMailOverrides(overridesDir string) error {
	_, err := loadMailCatalog(overridesDir)
	return err
}

// loadMailCatalog reads the embedded catalogues and templates and those of
// overridesDir ("" for none) and checks that every notice renders in every
// language.
func loadMailCatalog(overridesDir string) (*mailCatalog, error) {
	sub, err := fs.Sub(embeddedMail, "mail")
	if err != nil {
		return nil, err
	}
	files := mailFiles{embedded: sub}
	if overridesDir != "" {
		files.dir = filepath.Join(overridesDir, "mail")
	}
	names, err := catalogueLanguages(files)
	if err != nil {
		return nil, err
	}
	c := &mailCatalog{locales: map[string]*mailLocale{}}
	for _, name := range names {
		l, err := loadLocale(files, name, c.locales[defaultLanguage])
		if err != nil {
			return nil, err
		}
		c.locales[name] = l
		c.names = append(c.names, name)
		c.tags = append(c.tags, l.tag)
	}
	c.matcher = language.NewMatcher(c.tags)
	for _, name := range c.names {
		if err := c.locales[name].check(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// catalogueLanguages lists the languages with a catalogue, the default
// first.
func catalogueLanguages(files mailFiles) ([]string, error) {
	entries, err := files.list("messages")
	if err != nil {
		return nil, fmt.Errorf("mail catalogues: %w", err)
	}
	names := []string{defaultLanguage}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e, ".json")
		if !ok || name == defaultLanguage {
			continue
		}
		if _, err := language.Parse(name); err != nil {
			return nil, fmt.Errorf("mail catalogue %s: %q is not a language tag (want e.g. fr.json or pt-BR.json)", e, name)
		}
		names = append(names, name)
	}
	return names, nil
}

// loadLocale reads language name: its embedded catalogue, then its
// override's strings on top, then its templates.
func loadLocale(files mailFiles, name string, base *mailLocale) (*mailLocale, error) {
	l := &mailLocale{name: name, tag: language.Make(name), base: base, strings: map[string]string{},
		parsed: map[string]*texttemplate.Template{}, src: map[string]string{}}
	l.printer = message.NewPrinter(l.tag)
	file := "messages/" + name + ".json"
	if b, err := fs.ReadFile(files.embedded, file); err == nil {
		if err := l.addStrings(b, "(embedded) "+file); err != nil {
			return nil, err
		}
	}
	if files.dir != "" {
		p := filepath.Join(files.dir, "messages", name+".json")
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("mail catalogue: %w", err)
		}
		if err == nil {
			if err := l.addStrings(b, p); err != nil {
				return nil, err
			}
		}
	}
	if base != nil {
		for k := range l.strings {
			if _, ok := base.strings[k]; !ok {
				return nil, fmt.Errorf("mail catalogue %s: key %q is not in the %s catalogue (a typo?)", l.src[k], k, defaultLanguage)
			}
		}
	}
	if err := l.parseStrings(); err != nil {
		return nil, err
	}
	if err := l.parseTemplates(files); err != nil {
		return nil, err
	}
	return l, nil
}

// parseCatalogue reads a catalogue: one JSON object of strings by key.
// Errors name where (file, line and column).
func parseCatalogue(b []byte, where string) (map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	at := func(off int64) string {
		line, col := lineCol(b, off)
		return fmt.Sprintf("mail catalogue %s:%d:%d", where, line, col)
	}
	fail := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("%s: %v", at(se.Offset), err)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%s: the JSON object is not closed", at(int64(len(b))))
		}
		return fmt.Errorf("mail catalogue %s: %v", where, err)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fail(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%s: want one JSON object of strings", at(0))
	}
	m := map[string]string{}
	for dec.More() {
		keyAt := skipSpace(b, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil, fail(err)
		}
		key := tok.(string) // an object's members start with a string key
		if key == "" || strings.ContainsAny(key, " \t\r\n") {
			return nil, fmt.Errorf("%s: key %q: keys are words joined by dots", at(keyAt), key)
		}
		if _, dup := m[key]; dup {
			return nil, fmt.Errorf("%s: key %q given twice", at(keyAt), key)
		}
		valAt := skipSpace(b, dec.InputOffset())
		tok, err = dec.Token()
		if err != nil {
			return nil, fail(err)
		}
		v, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("%s: key %q: want a string, not %v", at(valAt), key, tok)
		}
		m[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, fail(err)
	}
	end := skipSpace(b, dec.InputOffset())
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: data after the JSON object", at(end))
	}
	return m, nil
}

// skipSpace moves off past JSON white space and the separators ':' and ','
// to the next token.
func skipSpace(b []byte, off int64) int64 {
	for off < int64(len(b)) && strings.IndexByte(" \t\r\n:,", b[off]) >= 0 {
		off++
	}
	return off
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(b []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(b)))
	before := b[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

func (l *mailLocale) addStrings(b []byte, where string) error {
	m, err := parseCatalogue(b, where)
	if err != nil {
		return err
	}
	for k, v := range m {
		l.strings[k] = v
		l.src[k] = where
	}
	return nil
}

// parseStrings completes l's strings with the default language's, parses
// every string as a template and reads the month names.
func (l *mailLocale) parseStrings() error {
	if l.base != nil {
		for k, v := range l.base.strings {
			if _, ok := l.strings[k]; !ok {
				l.strings[k], l.src[k] = v, l.base.src[k]
			}
		}
	}
	fn := l.funcs()
	for k, v := range l.strings {
		t, err := texttemplate.New(k).Option("missingkey=error").Funcs(fn).Parse(v)
		if err != nil {
			return fmt.Errorf("mail catalogue %s: key %q: %v", l.src[k], k, err)
		}
		l.parsed[k] = t
	}
	if err := l.checkReferences(); err != nil {
		return err
	}
	months, err := l.raw("date.months")
	if err != nil {
		return err
	}
	l.months = strings.Fields(months)
	if len(l.months) != 12 {
		return fmt.Errorf("mail catalogue %s: key \"date.months\": %d names, want 12 separated by spaces", l.src["date.months"], len(l.months))
	}
	return nil
}

// raw is the uninterpreted string of key.
func (l *mailLocale) raw(key string) (string, error) {
	if s, ok := l.strings[key]; ok {
		return s, nil
	}
	return "", fmt.Errorf("mail catalogue: no string %q", key)
}

// parseTemplates parses the text and HTML templates of l: per name, the
// override for l's language, else the override for all, else the embedded
// one.
func (l *mailLocale) parseTemplates(files mailFiles) error {
	names, err := files.list("templates")
	if err != nil {
		return fmt.Errorf("mail templates: %w", err)
	}
	if files.dir != "" {
		own, err := os.ReadDir(filepath.Join(files.dir, "templates", l.name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("mail templates: %w", err)
		}
		for _, e := range own {
			if !e.IsDir() && !slices.Contains(names, e.Name()) {
				names = append(names, e.Name())
			}
		}
	}
	l.text = texttemplate.New("").Option("missingkey=error").Funcs(l.funcs())
	l.html = htmltemplate.New("").Option("missingkey=error").Funcs(htmltemplate.FuncMap(l.funcs()))
	for _, name := range names {
		b, where, ok, err := files.read("templates/" + l.name + "/" + name)
		if err == nil && !ok {
			b, where, ok, err = files.read("templates/" + name)
		}
		if err != nil {
			return fmt.Errorf("mail template %s: %w", where, err)
		}
		if !ok {
			continue
		}
		switch {
		case strings.HasSuffix(name, ".html.tmpl"):
			_, err = l.html.New(name).Parse(string(b))
		case strings.HasSuffix(name, ".text.tmpl"):
			_, err = l.text.New(name).Parse(string(b))
		default:
			return fmt.Errorf("mail template %s: want a name ending .text.tmpl or .html.tmpl", where)
		}
		if err != nil {
			return fmt.Errorf("mail template %s: %v", where, err)
		}
	}
	return nil
}
