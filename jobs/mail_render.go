package jobs

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	texttemplate "text/template"
	"time"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/number"
)

// Rendering notices: the functions of templates and strings (words,
// numbers, plurals, dates, sizes in a language), the choice of a language,
// and a notice rendered from its templates.

// funcs are the functions of templates and catalogue strings in l.
func (l *mailLocale) funcs() texttemplate.FuncMap {
	t := func(key string, data ...any) (string, error) {
		var dot any
		if len(data) > 0 {
			dot = data[0]
		}
		return l.text1(key, dot)
	}
	return texttemplate.FuncMap{
		"t": t,
		"plural": func(key string, v any) (string, error) {
			n, err := toInt64(v)
			if err != nil {
				return "", fmt.Errorf("plural %q: %w", key, err)
			}
			return t(pluralKey(l, key, n), n)
		},
		"num": func(v any) (string, error) {
			n, err := toInt64(v)
			if err != nil {
				return "", fmt.Errorf("num: %w", err)
			}
			return l.printer.Sprint(number.Decimal(n)), nil
		},
		"date": l.date,
		"size": l.size,
	}
}

// toInt64 reads the integers templates pass (int64 fields, int from len).
func toInt64(v any) (int64, error) {
	switch n := v.(type) {
	case int:
		return int64(n), nil
	case int64:
		return n, nil
	case int32:
		return int64(n), nil
	case uint32:
		return int64(n), nil
	}
	return 0, fmt.Errorf("want an integer, not %T", v)
}

// pluralKey is key's string for n in l: key.one, key.other and so on,
// key.other when l has no string for n's form.
func pluralKey(l *mailLocale, key string, n int64) string {
	k := key + "." + pluralForm(l.tag, n)
	if _, ok := l.parsed[k]; ok {
		return k
	}
	return key + ".other"
}

// text1 renders the string key with dot.
func (l *mailLocale) text1(key string, dot any) (string, error) {
	t, ok := l.parsed[key]
	if !ok {
		return "", fmt.Errorf("no string %q in the mail catalogue", key)
	}
	return execString(t, dot)
}

func execString(t *texttemplate.Template, dot any) (string, error) {
	var b strings.Builder
	if err := t.Execute(&b, dot); err != nil {
		return "", err
	}
	return b.String(), nil
}

// pluralForm names n's CLDR plural category in tag: "one" or "other" in
// English and Spanish (French counts 0 as one); languages with more forms
// get "zero", "two", "few" or "many" (pluralKey falls back to "other").
func pluralForm(tag language.Tag, n int64) string {
	if n < 0 {
		n = -n
	}
	i := int(n % 1_000_000_000) // the rules look at the last digits; keep i an int on 32-bit
	if n >= 1_000_000_000 {
		i += 1_000_000_000 // stays a multiple of 10^6 exactly when n is (French "many")
	}
	switch plural.Cardinal.MatchPlural(tag, i, 0, 0, 0, 0) {
	case plural.Zero:
		return "zero"
	case plural.One:
		return "one"
	case plural.Two:
		return "two"
	case plural.Few:
		return "few"
	case plural.Many:
		return "many"
	}
	return "other"
}

// date writes a day in l's words ("7 May 2026", "7 de mayo de 2026").
func (l *mailLocale) date(t time.Time) (string, error) {
	if t.IsZero() {
		return "", nil
	}
	t = t.UTC()
	return l.text1("date.format", struct {
		Day   int
		Month string
		Year  int
	}{t.Day(), l.months[t.Month()-1], t.Year()})
}

// size writes a byte count in words: "812 bytes", "12.3 MB" ("12,3 Mo"),
// decimal units as storage is sold.
func (l *mailLocale) size(n int64) (string, error) {
	if n < 1000 {
		return l.text1(pluralKey(l, "size.bytes", n), n)
	}
	units, err := l.raw("size.units")
	if err != nil {
		return "", err
	}
	u := strings.Fields(units)
	v := float64(n) / 1000
	i := 0
	for v >= 999.95 && i < len(u)-1 {
		v /= 1000
		i++
	}
	if len(u) == 0 {
		return "", errors.New("mail catalogue: size.units is empty")
	}
	return l.printer.Sprint(number.Decimal(v, number.MaxFractionDigits(1), number.MinFractionDigits(1))) + " " + u[i], nil
}

// pick returns the locale for the first preference that matches a
// catalogue: each a BCP 47 tag or an Accept-Language header; the default
// language when none does.
func (c *mailCatalog) pick(prefs ...string) *mailLocale {
	for _, p := range prefs {
		if strings.TrimSpace(p) == "" {
			continue
		}
		tags, _, err := language.ParseAcceptLanguage(p)
		if err != nil || len(tags) == 0 {
			continue
		}
		_, i, conf := c.matcher.Match(tags...)
		if conf != language.No {
			return c.locales[c.names[i]]
		}
	}
	return c.locales[defaultLanguage]
}

// rendered is a notice in words.
type rendered struct{ Subject, Text, HTML string }

// render writes notice kind ("success", "failure", "erasure_warning",
// "digest") with data: the subject is the string "<kind>.subject", the
// bodies the templates <kind>.text.tmpl and <kind>.html.tmpl (the HTML part
// is left out when there is no such template).
func (l *mailLocale) render(kind string, data any) (rendered, error) {
	var r rendered
	var err error
	if r.Subject, err = l.text1(kind+".subject", data); err != nil {
		return r, fmt.Errorf("mail %s subject (%s): %w", kind, l.name, err)
	}
	r.Subject = strings.Join(strings.Fields(r.Subject), " ")
	var b bytes.Buffer
	if err := l.text.ExecuteTemplate(&b, kind+".text.tmpl", data); err != nil {
		return r, fmt.Errorf("mail %s text (%s): %w", kind, l.name, err)
	}
	r.Text = b.String()
	if l.html.Lookup(kind+".html.tmpl") != nil {
		b.Reset()
		if err := l.html.ExecuteTemplate(&b, kind+".html.tmpl", data); err != nil {
			return r, fmt.Errorf("mail %s HTML (%s): %w", kind, l.name, err)
		}
		r.HTML = b.String()
	}
	return r, nil
}

// check renders every notice in l with sample data.
func (l *mailLocale) check() error {
	for _, kind := range noticeKinds {
		d := sampleNotice(kind)
		d.Lang = l.name
		if _, err := l.render(string(kind), d); err != nil {
			return fmt.Errorf("%w (files: %s)", err, path.Join("mail", "templates", string(kind)+".*.tmpl"))
		}
	}
	return nil
}

// MailPreview renders notice kind in the catalogue language that best
// matches lang (a tag; English when none does) with sample data, from the
// embedded templates under those of overridesDir: what an operator checks
// overrides with (`downloader mail preview`), and sends with Mailer.Send
// to check the SMTP settings.
func MailPreview(overridesDir string, kind NoticeKind, lang string) (Message, error) {
	c, err := loadMailCatalog(overridesDir)
	if err != nil {
		return Message{}, err
	}
	if !slices.Contains(noticeKinds, kind) {
		return Message{}, fmt.Errorf("%w: notice %q (want one of %v)", ErrInvalidRequest, kind, noticeKinds)
	}
	l := c.pick(lang)
	d := sampleNotice(kind)
	d.Lang = l.name
	d.Format, d.Opening = formatWords(l, d.FormatName), openingWords(l, d.FormatName)
	if d.Reason, err = l.text1("reason."+reasonInternal, d); err != nil {
		return Message{}, err
	}
	out, err := l.render(string(kind), d)
	if err != nil {
		return Message{}, err
	}
	return Message{Subject: out.Subject, Text: out.Text, HTML: out.HTML, Language: l.name,
		MessageID: messageID("preview/"+string(kind)+"/"+time.Now().Format(time.RFC3339Nano), "preview@localhost"),
		Date:      time.Now()}, nil
}
