package jobs

import (
	"context"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/biodiversity-downloads/downloader/download"
)

// noticeData is what the templates and catalogue strings of a notice see
// as their dot. docs/mail.md lists the fields; renaming one breaks
// operators' overrides.
type noticeData struct {
	// Lang is the language the notice is written in ("en", "es", "fr").
	Lang string
	// Portal names the service (jobs.Config.Portal).
	Portal string
	// Key, Creator, Status and Description are the download's.
	Key, Creator, Status, Description string
	// Link is the archive's address; API the download's address in the
	// API (its status, and where PUT postpones its erasure); Page its page
	// in the portal (MailConfig.PageURL), else API. PortalPage says Page is
	// the portal's.
	Link, API, Page string
	PortalPage      bool
	// Citation is the line to cite the download with, as its archive says.
	Citation string
	// Records, Datasets and Size (bytes) count the archive; Rows says
	// Records counts a SQL download's result rows, not records.
	Records, Datasets, Size int64
	Rows                    bool
	// Format is the format in words ("Darwin Core Archive"), FormatName its
	// name in the API ("DWCA"); Opening says how to open it (the
	// catalogue's open.FORMAT, empty without one).
	Format, FormatName, Opening string
	// Query is the request's filter in words (the words of the archive's
	// metadata; English); QueryAbbreviated says it was cut at 1,000
	// characters.
	Query            string
	QueryAbbreviated bool
	// Created and EraseAfter are the download's; DaysLeft counts the
	// calendar days (UTC, as the dates are written) from today to
	// EraseAfter's day (an erasure warning's EraseAfter is that day).
	Created, EraseAfter time.Time
	DaysLeft            int64
	// Reason says why a download failed, in words; Detail is the error
	// itself when it is about the request (a bad or too large query), else
	// empty.
	Reason, Detail string
	// Help is where users get help (MailConfig.Help), HelpLink the same as
	// a link (mailto: for an address).
	Help, HelpLink string
	// Day and Failures are the digest's: the day it covers (UTC) and the
	// downloads that failed in it.
	Day      time.Time
	Failures []digestLine
	// Contact is the contact notice's: the sender, the record and the
	// message (mail_contact.go).
	Contact contactData
}

// digestLine is one failed download in the operators' digest.
type digestLine struct {
	Key, Creator, Status, Format, Error, API string
	Modified                                 time.Time
}

// maxQueryWords is how much of a query in words a notice shows (GBIF's
// mails cut theirs there too).
const maxQueryWords = 1000

// fileName is download r's file name (KEY.zip, KEY.avro).
func fileName(r row) string {
	name, _ := FileName(r.Key, r.Request.Format)
	return name
}

// downloadData is the data of a notice about download r in l.
func (s *Service) downloadData(r row, l *mailLocale, a notifyArgs) noticeData {
	mc := s.mailer.cfg
	base := strings.TrimSuffix(s.cfg.PublicURL, "/")
	d := noticeData{Portal: s.cfg.Portal.Name, Key: r.Key, Creator: r.Creator, Status: string(r.Status),
		Description: r.Request.Description, Link: base + "/v1/occurrence/download/request/" + fileName(r),
		API: base + "/v1/occurrence/download/" + r.Key, Records: r.TotalRecords, Datasets: r.NumberDatasets,
		Size: r.Size, FormatName: r.Request.Format, Created: r.Created.Time, EraseAfter: r.EraseAfter.Time,
		Help: mc.Help, Rows: r.Request.SQL != ""}
	d.Page = d.API
	if mc.PageURL != "" {
		d.Page, d.PortalPage = strings.ReplaceAll(mc.PageURL, "{key}", r.Key), true
	}
	if d.Help != "" {
		d.HelpLink = d.Help
		if _, err := mail.ParseAddress(d.Help); err == nil && !strings.Contains(d.Help, "://") {
			d.HelpLink = "mailto:" + d.Help
		}
	}
	d.Citation = download.Citation(s.cfg.Portal, r.Created.Time, r.DOI, s.downloadLink(r.Key), r.Key)
	d.Format = formatWords(l, r.Request.Format)
	d.Opening = openingWords(l, r.Request.Format)
	d.Query, d.QueryAbbreviated = s.queryWords(l, r)
	if a.Notice == NoticeErasureWarning {
		if day, err := time.Parse(time.DateOnly, a.Date); err == nil {
			d.EraseAfter = day
		}
	}
	if !d.EraseAfter.IsZero() {
		d.DaysLeft = daysUntil(s.now(), d.EraseAfter)
	}
	if r.Status == StatusFailed || r.Status == StatusKilled {
		code := a.Reason
		if r.Status == StatusKilled {
			code = reasonInterrupted
		}
		if code == reasonQuery || code == reasonTooLarge {
			d.Detail = cut(r.Error, 300)
		}
		var err error
		if d.Reason, err = l.text1("reason."+code, d); err != nil {
			d.Reason, _ = l.text1("reason."+reasonInternal, d)
		}
	}
	return d
}

// formatWords names a format in l's words ("Darwin Core Archive"); a
// format without a string in the catalogue is described as its registry
// entry describes it.
func formatWords(l *mailLocale, name string) string {
	if w, err := l.text1("format."+name, nil); err == nil {
		return w
	}
	if info, err := download.LookupFormat(name); err == nil {
		return name + " (" + info.Description + ")"
	}
	return name
}

// openingWords is how to open a download of the named format, as the
// portal page says it (tab-separated text has no quotes, which
// spreadsheets must be told); "" when the catalogue has no words for it.
func openingWords(l *mailLocale, name string) string {
	w, err := l.text1("open."+name, nil)
	if err != nil {
		return ""
	}
	return w
}

// queryWords is r's filter in words, cut at maxQueryWords characters: the
// catalogue's query.all for every record, query.complex when the engine
// cannot describe it.
func (s *Service) queryWords(l *mailLocale, r row) (string, bool) {
	var q string
	var err error
	switch {
	case r.Request.SQL != "":
		// A SQL download's filter is its query, given as written.
		q = strings.Join(strings.Fields(r.Request.SQL), " ")
	case s.engine != nil:
		q, err = s.engine.DescribePredicate(r.Request.Predicate)
	default:
		err = ErrEngineUnavailable
	}
	switch {
	case err != nil:
		q, _ = l.text1("query.complex", nil)
		return q, false
	case q == "":
		q, _ = l.text1("query.all", nil)
		return q, false
	}
	if utf8.RuneCountInString(q) <= maxQueryWords {
		return q, false
	}
	return cut(q, maxQueryWords), true
}

// cut keeps the first n characters of s.
func cut(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// composeDigest is the operators' digest of the day before a.Date, or nil
// when there are no operators or nothing failed.
func (s *Service) composeDigest(ctx context.Context, a notifyArgs) (*notice, error) {
	mc := s.mailer.cfg
	if len(mc.Operators) == 0 {
		return nil, nil
	}
	end, err := time.Parse(time.DateOnly, a.Date)
	if err != nil {
		s.logger.ErrorContext(ctx, "digest without a day", "date", a.Date, "err", err)
		return nil, nil
	}
	start := end.Add(-24 * time.Hour)
	lines, err := s.db.failuresBetween(ctx, start, end)
	if err != nil || len(lines) == 0 {
		return nil, err
	}
	base := strings.TrimSuffix(s.cfg.PublicURL, "/")
	for i := range lines {
		lines[i].API = base + "/v1/occurrence/download/" + lines[i].Key
	}
	l := s.mail.pick(mc.OperatorLanguage)
	d := noticeData{Portal: s.cfg.Portal.Name, Day: start, Failures: lines, Help: mc.Help}
	return s.finishNotice(l, NoticeDigest, string(NoticeDigest)+"/"+a.Date, "", mc.Operators, d)
}

// maxDigestLines bounds a digest; the count says how many there were.
const maxDigestLines = 500

// failuresBetween lists the downloads that became FAILED or KILLED in
// [start, end), oldest first.
func (db *DB) failuresBetween(ctx context.Context, start, end time.Time) ([]digestLine, error) {
	return collect(ctx, db.read, db.q(`SELECT key, creator, status, format, error, modified FROM downloads
		WHERE status IN (?, ?) AND modified >= ? AND modified < ? ORDER BY modified, key LIMIT ?`),
		[]any{StatusFailed, StatusKilled, start.UnixMilli(), end.UnixMilli(), maxDigestLines},
		func(sc scanner) (digestLine, error) {
			var l digestLine
			var ms int64
			err := sc.Scan(&l.Key, &l.Creator, &l.Status, &l.Format, &l.Error, &ms)
			l.Modified = time.UnixMilli(ms).UTC()
			l.Error = cut(l.Error, 500)
			return l, err
		})
}

// sampleNotice is data of every field for checking templates at load.
func sampleNotice(kind NoticeKind) noticeData {
	now := time.Date(2026, 5, 7, 10, 0, 0, 0, time.UTC)
	d := noticeData{Portal: "Example portal", Key: "0000001-260507100000000", Creator: "alice", Status: string(StatusSucceeded),
		Description: "sample", Link: "https://example.org/v1/occurrence/download/request/0000001-260507100000000.zip",
		API: "https://example.org/v1/occurrence/download/0000001-260507100000000", Citation: "Example portal (7 May 2026) Occurrence Download https://example.org",
		Records: 1234, Datasets: 1, Size: 12_345_678, Format: "Darwin Core Archive", FormatName: "DWCA", Opening: "sample opening",
		Query: "Country is DK", Created: now, EraseAfter: now.Add(14 * 24 * time.Hour), DaysLeft: 14,
		Reason: "sample reason", Detail: "sample detail", Help: "help@example.org", HelpLink: "mailto:help@example.org"}
	d.Page = d.API
	if kind == NoticeFailure {
		d.Status = string(StatusFailed)
	}
	if kind == NoticeContact {
		d.Contact = sampleContact()
	}
	if kind == NoticeDigest {
		d.Day = now
		d.Failures = []digestLine{{Key: d.Key, Creator: "alice", Status: string(StatusFailed), Format: "DWCA",
			Error: "sample error", API: d.API, Modified: now}}
	}
	return d
}

// daysUntil counts the calendar days (UTC) from now's date to then's, 0
// for a day already past: the notice says "on 16 December, in 3 days" on
// the 13th at any hour. (Counting hours rounded up said "in 2 days" from
// 23:00 on, once a warning's erasure day stood for its midnight.)
func daysUntil(now, then time.Time) int64 {
	day := func(t time.Time) time.Time {
		y, m, d := t.UTC().Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
	return max(0, int64(day(then).Sub(day(now))/(24*time.Hour)))
}
