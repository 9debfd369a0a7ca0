package jobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/language"

	"github.com/biodiversity-downloads/downloader/download"
)

// DescribePredicate puts the predicate's JSON in words as it is (these
// tests' engine parses nothing).
func (checkOnlyEngine) DescribePredicate(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	return "predicate " + string(raw), nil
}

func mustCatalog(t *testing.T, dir string) *mailCatalog {
	t.Helper()
	c, err := loadMailCatalog(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The shipped catalogues are complete: every language has every key of
// the default one, and every registered format has words.
func TestMailCataloguesComplete(t *testing.T) {
	c := mustCatalog(t, "")
	if strings.Join(c.names, " ") != "en es fr" {
		t.Fatalf("languages %v, want en es fr", c.names)
	}
	en := c.locales["en"]
	for _, name := range []string{"es", "fr"} {
		b, err := fs.ReadFile(embeddedMail, "mail/messages/"+name+".json")
		if err != nil {
			t.Fatal(err)
		}
		own, err := parseCatalogue(b, name)
		if err != nil {
			t.Fatal(err)
		}
		for k := range en.strings {
			if _, ok := own[k]; !ok {
				t.Errorf("%s lacks %q (it would fall back to English)", name, k)
			}
		}
	}
	for _, f := range download.FormatNames() {
		if _, ok := en.strings["format."+f]; !ok {
			t.Errorf("no words for format %s", f)
		}
		if _, ok := en.strings["open."+f]; !ok {
			t.Errorf("no words on opening format %s", f)
		}
	}
}

func testNoticeData(lang string) noticeData {
	d := sampleNotice(NoticeSuccess)
	d.Lang = lang
	d.Records, d.Datasets, d.Size = 12345, 3, 12_345_678
	d.Created = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	d.EraseAfter = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	d.DaysLeft = 1
	d.Description = `<script>alert("x")</script> & more`
	return d
}

// A SQL download's notices count its result's rows, not records.
func TestMailCountsRowsOfSQLDownloads(t *testing.T) {
	c := mustCatalog(t, "")
	for lang, want := range map[string][2]string{"en": {"12,345 rows", " from 3 datasets"},
		"es": {"12.345 filas", " de 3 conjuntos"}, "fr": {"12\u00a0345 lignes", " issues de 3"}} {
		l := c.locales[lang]
		d := testNoticeData(lang)
		d.Rows = true
		for _, notice := range []NoticeKind{NoticeSuccess, NoticeErasureWarning} {
			out, err := l.render(string(notice), d)
			if err != nil {
				t.Fatal(err)
			}
			words := want[0]
			if notice == NoticeSuccess {
				words += want[1]
			}
			if !strings.Contains(out.Text, words) || !strings.Contains(out.HTML, words) {
				t.Errorf("%s %s lacks %q:\n%s", lang, notice, words, out.Text)
			}
		}
	}
}

// Each notice in two languages: subject, text and HTML parts carry the
// link, counts, size, format, dates and the words of the language.
func TestMailRenderLanguages(t *testing.T) {
	c := mustCatalog(t, "")
	cases := []struct {
		lang                       string
		subject, counts, size, day string
		keep, words, opening       string
	}{
		{"en", "Your download 0000001-260507100000000 is ready", "12,345 records from 3 datasets", "12.3 MB",
			"2 November 2026", "in 1 day", "What is in it", "UTF-8 as the character set, Tab as the separator and no text qualifier"},
		{"es", "Su descarga 0000001-260507100000000 está lista", "12.345 registros de 3 conjuntos de datos", "12,3 MB",
			"2 de noviembre de 2026", "dentro de 1 día", "Qué contiene", "UTF-8 como juego de caracteres, el tabulador como separador y sin calificador de texto"},
		{"fr", "Votre téléchargement 0000001-260507100000000 est prêt", "12\u00a0345 enregistrements issus de 3 jeux de données", "12,3 Mo",
			"2 novembre 2026", "dans 1 jour", "Ce qu'il contient", "UTF-8 comme jeu de caractères, la tabulation comme séparateur et sans délimiteur de texte"},
	}
	for _, cs := range cases {
		t.Run(cs.lang, func(t *testing.T) {
			l := c.locales[cs.lang]
			d := testNoticeData(cs.lang)
			d.Format = formatWords(l, "DWCA")
			d.Opening = openingWords(l, "DWCA")
			out, err := l.render(string(NoticeSuccess), d)
			if err != nil {
				t.Fatal(err)
			}
			if out.Subject != cs.subject {
				t.Errorf("subject %q, want %q", out.Subject, cs.subject)
			}
			for part, body := range map[string]string{"text": out.Text, "html": out.HTML} {
				for _, want := range []string{d.Link, d.Citation, cs.counts, cs.size, cs.day, cs.keep, "Darwin Core Archive",
					d.Query, "curl -u alice -X PUT " + d.API, cs.opening} {
					if !strings.Contains(body, want) {
						t.Errorf("%s part lacks %q:\n%s", part, want, body)
					}
				}
				want := cs.words
				if part == "html" {
					want = strings.ReplaceAll(want, "'", "&#39;")
				}
				if !strings.Contains(body, want) {
					t.Errorf("%s part lacks %q", part, want)
				}
			}
			if !strings.Contains(out.HTML, `lang="`+cs.lang+`"`) || !strings.Contains(out.HTML, `href="`+d.Link+`"`) {
				t.Errorf("HTML lacks its language or link:\n%s", out.HTML)
			}
			// The request's description is the user's text: escaped in HTML.
			if strings.Contains(out.HTML, "<script>") || !strings.Contains(out.HTML, "&lt;script&gt;") {
				t.Errorf("description not escaped in HTML")
			}
			if !strings.Contains(out.Text, `<script>alert("x")</script> & more`) {
				t.Errorf("text part changed the description")
			}
		})
	}
}

func TestMailRenderFailureWarningDigest(t *testing.T) {
	c := mustCatalog(t, "")
	for _, lang := range []string{"en", "fr"} {
		l := c.locales[lang]
		d := testNoticeData(lang)
		d.Status = string(StatusFailed)
		var err error
		if d.Reason, err = l.text1("reason."+reasonTooLarge, d); err != nil {
			t.Fatal(err)
		}
		d.Detail = "The request contains 200000 predicate items.  The maximum is 101000."
		out, err := l.render(string(NoticeFailure), d)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{d.Key, d.Reason, d.Detail, d.Help, d.Page} {
			if !strings.Contains(out.Text, want) || !strings.Contains(out.HTML, htmlEscape(want)) {
				t.Errorf("%s failure lacks %q:\n%s\n%s", lang, want, out.Text, out.HTML)
			}
		}
		if !strings.Contains(out.HTML, `href="mailto:help@example.org"`) {
			t.Errorf("%s failure: help is not a mailto link", lang)
		}
		if !strings.Contains(out.Subject, d.Key) || (lang == "fr") != strings.Contains(out.Subject, "a échoué") {
			t.Errorf("%s failure subject %q", lang, out.Subject)
		}

		d = testNoticeData(lang)
		d.DaysLeft = 14
		out, err = l.render(string(NoticeErasureWarning), d)
		if err != nil {
			t.Fatal(err)
		}
		wantDay := map[string]string{"en": "2 November 2026", "fr": "2 novembre 2026"}[lang]
		wantDays := map[string]string{"en": "in 14 days", "fr": "dans 14 jours"}[lang]
		for _, want := range []string{wantDay, wantDays, d.API, d.Citation} {
			if !strings.Contains(out.Text, want) || !strings.Contains(out.HTML, want) {
				t.Errorf("%s erasure warning lacks %q:\n%s", lang, want, out.Text)
			}
		}
		if !strings.Contains(out.Subject, wantDay) {
			t.Errorf("%s warning subject %q", lang, out.Subject)
		}

		d = sampleNotice(NoticeDigest)
		d.Lang = lang
		d.Failures = append(d.Failures, digestLine{Key: "0000002-x", Status: string(StatusKilled), Error: "worker lost <b>"})
		out, err = l.render(string(NoticeDigest), d)
		if err != nil {
			t.Fatal(err)
		}
		wantSubj := map[string]string{"en": "Example portal: 2 failed downloads on 7 May 2026",
			"fr": "Example portal : 2 téléchargements en échec le 7 mai 2026"}[lang]
		if out.Subject != wantSubj {
			t.Errorf("digest subject %q, want %q", out.Subject, wantSubj)
		}
		if !strings.Contains(out.Text, "0000002-x") || !strings.Contains(out.HTML, "worker lost &lt;b&gt;") {
			t.Errorf("%s digest lacks a failure:\n%s", lang, out.HTML)
		}
	}
	// French writes the first of the month as 1er.
	if s, err := c.locales["fr"].date(time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)); err != nil || s != "1er mai 2026" {
		t.Errorf("French first of May: %q %v", s, err)
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

func TestMailSizeAndPlural(t *testing.T) {
	c := mustCatalog(t, "")
	en, fr := c.locales["en"], c.locales["fr"]
	for n, want := range map[int64]string{1: "1 byte", 999: "999 bytes", 1000: "1.0 kB", 999_949: "999.9 kB",
		999_950: "1.0 MB", 12_345_678: "12.3 MB", 31_000_000_000: "31.0 GB"} {
		if got, err := en.size(n); err != nil || got != want {
			t.Errorf("size(%d) = %q %v, want %q", n, got, err, want)
		}
	}
	if got, _ := fr.size(0); got != "0 octet" {
		t.Errorf("French 0 bytes: %q (0 is singular in French)", got)
	}
	if got, _ := en.size(0); got != "0 bytes" {
		t.Errorf("English 0 bytes: %q", got)
	}
	pl := language.Polish
	if pluralForm(pl, 1) != "one" || pluralForm(pl, 2) != "few" || pluralForm(pl, 5) != "many" || pluralForm(pl, 22) != "few" {
		t.Errorf("Polish plurals: %s %s %s", pluralForm(pl, 1), pluralForm(pl, 2), pluralForm(pl, 5))
	}
	// A form without a string of its own takes "other".
	if got, _ := fr.text1(pluralKey(&mailLocale{tag: pl, parsed: fr.parsed}, "records", 2_000_000), int64(2_000_000)); got != "2\u00a0000\u00a0000 enregistrements" {
		t.Errorf("a many form without its string: %q", got)
	}
}

// The user's language wins, then the request's Accept-Language, then
// English.
func TestMailLanguagePick(t *testing.T) {
	c := mustCatalog(t, "")
	for _, cs := range []struct {
		user, accept, want string
	}{
		{"", "", "en"},
		{"es", "fr", "es"},
		{"es-MX", "", "es"},
		{"", "fr-CA,en;q=0.5", "fr"},
		{"", "pt-BR, es;q=0.8", "es"},
		{"pt", "de", "en"},
		{"not a tag!", "fr", "fr"},
	} {
		if got := c.pick(cs.user, cs.accept).name; got != cs.want {
			t.Errorf("user %q accept %q: %s, want %s", cs.user, cs.accept, got, cs.want)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// An override file of the same name wins: a string, a template for all
// languages, a template for one language, and a new language.
func TestMailOverrides(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "mail/messages/es.json"), `{"success.subject": "¡Lista! {{.Key}}"}`)
	writeFile(t, filepath.Join(dir, "mail/templates/success.text.tmpl"), "OVERRIDDEN {{.Link}} {{t \"success.counts\" .}}\n")
	writeFile(t, filepath.Join(dir, "mail/templates/fr/success.html.tmpl"), "<p>FR ONLY {{.Description}}</p>")
	writeFile(t, filepath.Join(dir, "mail/messages/de.json"), `{"success.subject": "Ihr Download {{.Key}} ist fertig",
		"records.one": "{{num .}} Datensatz", "records.other": "{{num .}} Datensätze"}`)
	c := mustCatalog(t, dir)
	d := testNoticeData("")
	es, err := c.locales["es"].render("success", d)
	if err != nil {
		t.Fatal(err)
	}
	if es.Subject != "¡Lista! "+d.Key || !strings.HasPrefix(es.Text, "OVERRIDDEN "+d.Link+" 12.345 registros") {
		t.Errorf("Spanish overrides not taken: %q %q", es.Subject, es.Text)
	}
	if !strings.Contains(es.HTML, "Qué contiene") {
		t.Errorf("Spanish HTML should stay the embedded one")
	}
	fr, err := c.locales["fr"].render("success", d)
	if err != nil {
		t.Fatal(err)
	}
	if fr.HTML != "<p>FR ONLY &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; more</p>" || !strings.HasPrefix(fr.Text, "OVERRIDDEN") {
		t.Errorf("French overrides: %q / %q", fr.HTML, fr.Text)
	}
	en, err := c.locales["en"].render("success", d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(en.HTML, "What is in it") || en.Subject != "Your download "+d.Key+" is ready" {
		t.Errorf("English changed by others' overrides: %q", en.Subject)
	}
	if got := c.pick("de-AT").name; got != "de" {
		t.Fatalf("German added by an override: picked %s", got)
	}
	de, err := c.locales["de"].render("success", d)
	if err != nil {
		t.Fatal(err)
	}
	// German words where given, English for the rest, German numbers.
	if de.Subject != "Ihr Download "+d.Key+" ist fertig" || !strings.Contains(de.Text, "12.345 Datensätze from 3 datasets") {
		t.Errorf("German: %q\n%s", de.Subject, de.Text)
	}
}

// Bad overrides stop the start with the file and what is wrong.
func TestMailOverridesRejected(t *testing.T) {
	for _, cs := range []struct {
		file, content string
		want          []string
	}{
		{"mail/messages/fr.json", "{\n  \"success.subject\": \"x\",\n  \"succes.intro\": \"typo\"\n}", []string{"fr.json", `"succes.intro"`, "not in the en catalogue"}},
		{"mail/messages/fr.json", "{\n  \"success.subject\": \"x\"\n  \"a\": \"b\"\n}", []string{"fr.json:3:3", "invalid character"}},
		{"mail/messages/fr.json", `{"success.subject": 3}`, []string{"fr.json:1:21", `"success.subject"`, "want a string"}},
		{"mail/messages/fr.json", "{\"greeting\": \"a\",\n \"greeting\": \"b\"}", []string{"fr.json:2:2", "given twice"}},
		{"mail/messages/fr.json", `{"greeting": "a"} {}`, []string{"fr.json:1:19", "after the JSON object"}},
		{"mail/messages/fr.json", `{"greeting": "a"`, []string{"fr.json:1:17", "not closed"}},
		{"mail/messages/fr.json", `["greeting"]`, []string{"fr.json:1:1", "one JSON object"}},
		{"mail/messages/fr.json", `{"success.subject": "{{.Nope}}"}`, []string{"mail success subject (fr)", "Nope"}},
		{"mail/messages/fr.json", `{"success.subject": "{{if}}"}`, []string{"fr.json", `"success.subject"`}},
		{"mail/messages/fr.json", `{"records.one": "{{t \"records.other\"}}", "records.other": "{{t \"records.one\"}}"}`, []string{"circle"}},
		{"mail/messages/fr.json", `{"records.one": "{{t (print \"records\")}}"}`, []string{"quoted string"}},
		{"mail/messages/fr.json", `{"greeting": "{{t \"no.such\"}}"}`, []string{`no string "no.such"`}},
		{"mail/messages/fr.json", `{"date.months": "janvier février"}`, []string{"date.months", "want 12"}},
		{"mail/messages/xx yy.json", `{}`, []string{"not a language tag"}},
		{"mail/templates/success.html.tmpl", "<p>{{.Link}</p>", []string{"success.html.tmpl", "bad character"}},
		{"mail/templates/success.txt", "x", []string{"success.txt", ".text.tmpl or .html.tmpl"}},
		{"mail/templates/es/failure.text.tmpl", "{{.Missing}}", []string{"mail failure text (es)", "Missing"}},
	} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, cs.file), cs.content)
		_, err := loadMailCatalog(dir)
		if err == nil {
			t.Errorf("%s %q: loaded", cs.file, cs.content)
			continue
		}
		for _, w := range cs.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %q: error %q lacks %q", cs.file, cs.content, err, w)
			}
		}
	}
}

func TestMessageIDAndReason(t *testing.T) {
	a := messageID("success/0000001-x", "Downloads <downloads@Example.ORG>")
	if a != messageID("success/0000001-x", "downloads@example.org") || !strings.HasPrefix(a, "success.") ||
		!strings.HasSuffix(a, "@example.org") || a == messageID("failure/0000001-x", "downloads@example.org") {
		t.Errorf("message ids: %s", a)
	}
	for err, want := range map[error]string{
		&PermanentError{Err: fmt.Errorf("%w: bad", ErrInvalidRequest)}:             reasonQuery,
		&LimitError{Kind: ErrPredicateTooLarge, Reason: "big"}:                     reasonTooLarge,
		&PermanentError{Err: errors.New("download: bad download format")}:          reasonQuery,
		fmt.Errorf("storage: %w", errors.New("connection reset")):                  reasonInternal,
		&PermanentError{Err: &LimitError{Kind: ErrPredicateTooLarge, Reason: "x"}}: reasonTooLarge,
	} {
		if got := failureReason(err); got != want {
			t.Errorf("failureReason(%v) = %s, want %s", err, got, want)
		}
	}
}

// FuzzMailCatalogue: any bytes as a catalogue either load or fail with an
// error naming the file; never a panic.
func FuzzMailCatalogue(f *testing.F) {
	f.Add([]byte(`{"success.subject": "x {{.Key}}"}`))
	f.Add([]byte(`{"records.one": "{{plural \"records\" 1}}"}`))
	f.Add([]byte("{\n\"a\": 1}"))
	f.Add([]byte(`{"date.months": "a b c d e f g h i j k l"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseCatalogue(b, "fuzz.json")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		dir := t.TempDir()
		out, _ := json.Marshal(m)
		writeFile(t, filepath.Join(dir, "mail/messages/fr.json"), string(out))
		if _, err := loadMailCatalog(dir); err != nil && !strings.Contains(err.Error(), "fr") {
			t.Fatalf("error without the language: %v", err)
		}
	})
}

// The days a notice counts to the erasure are calendar days, whatever the
// hour it is sent at: an erasure warning queued for 16 December says "in 3
// days" on the 13th at 23:30 UTC as at 00:10.
func TestDaysUntil(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		now, then string
		want      int64
	}{
		{"2026-12-13T23:30:00Z", "2026-12-16T00:00:00Z", 3},
		{"2026-12-13T00:10:00Z", "2026-12-16T00:00:00Z", 3},
		{"2026-12-13T00:10:00Z", "2026-12-16T23:59:00Z", 3},
		{"2026-12-06T10:00:00Z", "2027-06-07T10:00:00Z", 183},
		{"2026-12-13T23:59:00+02:00", "2026-12-16T00:00:00Z", 3}, // 21:59 UTC
		{"2026-12-16T08:00:00Z", "2026-12-16T00:00:00Z", 0},
		{"2026-12-20T08:00:00Z", "2026-12-16T00:00:00Z", 0},
	} {
		if got := daysUntil(at(c.now), at(c.then)); got != c.want {
			t.Errorf("from %s to %s: %d days, want %d", c.now, c.then, got, c.want)
		}
	}
}
