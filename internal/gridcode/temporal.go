package gridcode

import (
	"strings"
	"time"
)

const (
	minuteSeconds = 60
	hourSeconds   = 60 * minuteSeconds
	daySeconds    = 24 * hourSeconds
)

// TemporalUncertainty is GBIF_TemporalUncertainty: the length in seconds of
// the period an ISO 8601 eventDate (optionally an interval "from/to")
// stands for, following GBIF's TemporalUncertainty and IsoDateInterval:
//
//   - a year is 365 or 366 days, a year-month its length, a date one day;
//   - a date-time is 1 s if it has non-zero seconds, else 60 s if it has
//     non-zero minutes, else 3600 s if it has a non-zero hour, else a day
//     (fractions of a second are ignored);
//   - a date alone takes the precision of eventTime ("HH:mm[:ss[.f]]" with
//     an optional offset) the same way when that parses; an unparsable or
//     empty eventTime is ignored, as by GBIF;
//   - an interval of dates, year-months or years covers whole days from the
//     first day of "from" to the last of "to"; an interval of date-times is
//     the whole seconds between them (0 for equal ends).
//
// eventDate is "yyyy[-MM[-dd[THH:mm[:ss[.fffffffff]]]]]" plus an optional
// offset (Z, ±HH, ±HHMM, ±HH:MM, ±HHMMss, ±HH:MM:ss; used only for
// date-times). As with Java's SMART resolver, a day past the month's end
// (up to 31) is moved to the last day, and T24:00 is the next midnight.
//
// ok is false, GBIF's NULL, for an empty eventDate (our NULL), "*", an
// interval whose ends differ in precision, run backwards, or lack "from",
// and any text that does not parse (GBIF's core throws; its Hive wrapper
// returns NULL). A "to" of "*" is ignored, as by GBIF. Unlike Java, years
// must have exactly four digits (Java also reads "+12345").
func TemporalUncertainty(eventDate, eventTime string) (seconds int64, ok bool) {
	from, to, ok := parseInterval(eventDate)
	if !ok || from == nil {
		return 0, false
	}
	if to != nil {
		return intervalSeconds(from, to)
	}
	switch from.kind {
	case kindYear:
		return int64(daysIn(from.t.Year(), 0)) * daySeconds, true
	case kindYearMonth:
		return int64(daysIn(from.t.Year(), from.t.Month())) * daySeconds, true
	case kindDate:
		if h, m, s, ok := parseEventTime(eventTime); ok {
			return precisionSeconds(h, m, s), true
		}
		return daySeconds, true
	}
	return precisionSeconds(from.t.Hour(), from.t.Minute(), from.t.Second()), true
}

func precisionSeconds(hour, minute, second int) int64 {
	switch {
	case second != 0:
		return 1
	case minute != 0:
		return minuteSeconds
	case hour != 0:
		return hourSeconds
	}
	return daySeconds
}

// intervalSeconds measures an interval whose ends parsed; GBIF rejects ends
// of different kinds and backward intervals.
func intervalSeconds(from, to *isoTemporal) (int64, bool) {
	if from.kind != to.kind {
		return 0, false
	}
	var start, end time.Time
	switch from.kind {
	case kindDateTime, kindOffsetDateTime:
		s := wholeSecondsBetween(from.t, to.t)
		return s, s >= 0
	case kindYear:
		start, end = from.t, time.Date(to.t.Year()+1, 1, 1, 0, 0, 0, 0, time.UTC)
	case kindYearMonth:
		start, end = from.t, time.Date(to.t.Year(), to.t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	default:
		start, end = from.t, to.t.AddDate(0, 0, 1)
	}
	if !end.After(start) {
		return 0, false // "to" precedes "from"
	}
	return end.Unix() - start.Unix(), true
}

// wholeSecondsBetween is Java's ChronoUnit.SECONDS.between: truncated
// toward zero, without time.Duration's ±292-year limit.
func wholeSecondsBetween(a, b time.Time) int64 {
	s := b.Unix() - a.Unix()
	ns := b.Nanosecond() - a.Nanosecond()
	switch {
	case s > 0 && ns < 0:
		s--
	case s < 0 && ns > 0:
		s++
	}
	return s
}

// daysIn is the length of the month, or of the year for month 0.
func daysIn(year int, month time.Month) int {
	if month == 0 {
		return time.Date(year, 12, 31, 0, 0, 0, 0, time.UTC).YearDay()
	}
	return time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

type temporalKind int

const (
	kindYear temporalKind = iota + 1
	kindYearMonth
	kindDate
	kindDateTime       // Java's LocalDateTime: no offset, compared as UTC
	kindOffsetDateTime // Java's OffsetDateTime
)

// isoTemporal is a parsed value: its kind (precision) and its start, in
// UTC or, for kindOffsetDateTime, in its own fixed offset.
type isoTemporal struct {
	kind temporalKind
	t    time.Time
}

// parseInterval splits at the first "/" as GBIF's IsoDateInterval does.
// A nil end is SQL NULL ("" or "*"); ok is false for text that fails.
func parseInterval(text string) (from, to *isoTemporal, ok bool) {
	i := strings.IndexByte(text, '/')
	if i < 0 {
		from, ok = parseTemporal(text)
		return from, nil, ok
	}
	if i+1 == len(text) {
		return nil, nil, false
	}
	if from, ok = parseTemporal(text[:i]); !ok {
		return nil, nil, false
	}
	if to, ok = parseTemporal(text[i+1:]); !ok {
		return nil, nil, false
	}
	if from == nil && to != nil {
		return nil, nil, false // GBIF fails on a missing start
	}
	return from, to, true
}

// parseTemporal reads one end: nil for "" and "*".
func parseTemporal(s string) (*isoTemporal, bool) {
	if s == "" || s == "*" {
		return nil, true
	}
	var f dateFields
	c := cursor{s: s}
	if !f.parse(&c) || c.i != len(s) {
		return nil, false
	}
	return f.resolve()
}
