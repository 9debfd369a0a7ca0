package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"slices"
	"strings"

	"golang.org/x/text/language"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// The page's words: ui/messages/<lang>.json, a JSON object of strings by
// key, English complete and the other languages over it. An operator's
// web/messages/<lang>.json replaces the keys it gives (a new file adds a
// language); a key English does not have is an error, since it would be a
// typo that changes nothing. Strings may hold {name} placeholders that the
// script fills in.

// pageDefaultLanguage is the catalogue every key must be in.
const pageDefaultLanguage = "en"

// loadMessages reads every catalogue, embedded and overridden, checks it
// and keeps each language's merged strings as JSON.
func (p *Page) loadMessages() error {
	names, err := p.files.list("messages")
	if err != nil {
		return err
	}
	langs := []string{}
	for _, n := range names {
		if l, ok := strings.CutSuffix(n, ".json"); ok {
			if _, err := language.Parse(l); err != nil {
				return fmt.Errorf("page catalogue messages/%s: %q is not a language tag (BCP 47, such as es or pt-BR)", n, l)
			}
			langs = append(langs, l)
		}
	}
	slices.Sort(langs)
	if i := slices.Index(langs, pageDefaultLanguage); i < 0 {
		return errors.New("page: messages/en.json missing")
	} else {
		langs = append([]string{pageDefaultLanguage}, slices.Delete(langs, i, i+1)...)
	}
	merged := map[string]map[string]string{}
	for _, l := range langs {
		strs := map[string]string{}
		for k, v := range merged[pageDefaultLanguage] {
			strs[k] = v
		}
		name := "messages/" + l + ".json"
		if b, err := fs.ReadFile(p.files.embedded, name); err == nil {
			m, err := parsePageCatalogue(b, "(embedded) web/ui/"+name)
			if err != nil {
				return err
			}
			maps.Copy(strs, m)
		}
		if b, where, ok, err := p.files.readOverride(name); err != nil {
			return err
		} else if ok {
			m, err := parsePageCatalogue(b, where)
			if err != nil {
				return err
			}
			for k, v := range m {
				if _, known := strs[k]; !known {
					return fmt.Errorf("page catalogue %s: key %q is not in the English catalogue (a typo?)", where, k)
				}
				strs[k] = v
			}
		}
		merged[l] = strs
	}
	p.langs = langs
	tags := make([]language.Tag, len(langs))
	for i, l := range langs {
		tags[i] = language.Make(l)
	}
	p.matcher = language.NewMatcher(tags)
	p.messages = map[string]asset{}
	p.strs = merged
	for _, l := range langs {
		b, err := json.Marshal(merged[l])
		if err != nil {
			return err
		}
		p.messages[l] = newAsset("m.json", b)
	}
	return nil
}

// strings returns lang's merged strings.
func (p *Page) strings(lang string) map[string]string { return p.strs[lang] }

// parsePageCatalogue reads a catalogue: one JSON object whose values are
// strings. where names the file in errors, with the line of the problem.
func parsePageCatalogue(b []byte, where string) (map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tokenErr := func(off int64, err error) error {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("page catalogue %s:%d: the object is not closed", where, 1+bytes.Count(b, []byte("\n")))
		}
		line := 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n"))
		return fmt.Errorf("page catalogue %s:%d: %v", where, line, err)
	}
	fail := func(off int64, format string, args ...any) error {
		line := 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n"))
		return fmt.Errorf("page catalogue %s:%d: %s", where, line, fmt.Sprintf(format, args...))
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, tokenErr(dec.InputOffset(), err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fail(0, "want a JSON object of strings")
	}
	out := map[string]string{}
	for dec.More() {
		off := dec.InputOffset()
		kt, err := dec.Token()
		if err != nil {
			return nil, tokenErr(off, err)
		}
		key := kt.(string) // object keys are strings
		off = dec.InputOffset()
		vt, err := dec.Token()
		if err != nil {
			return nil, tokenErr(off, err)
		}
		v, ok := vt.(string)
		if !ok {
			return nil, fail(off, "key %q: want a string, got %v", key, vt)
		}
		if _, dup := out[key]; dup {
			return nil, fail(off, "key %q given twice", key)
		}
		out[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, tokenErr(dec.InputOffset(), err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, fail(dec.InputOffset(), "more after the object")
	}
	return out, nil
}

// pageMessages: GET /ui/api/messages/{lang}, a language's strings.
func (s *Server) pageMessages(w http.ResponseWriter, r *http.Request) error {
	a, ok := s.cfg.Page.messages[r.PathValue("lang")]
	if !ok {
		return fmt.Errorf("%w: no strings in language %q", jobs.ErrNotFound, r.PathValue("lang"))
	}
	serveAsset(w, r, a)
	return nil
}
