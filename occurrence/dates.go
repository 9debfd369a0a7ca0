package occurrence

import (
	"strconv"
	"strings"
	"time"
)

// DateRange is an interpreted date: the first and last instant it covers and
// its ISO 8601 text at the source's precision ("2001", "2001-05",
// "2001-05-03", "2001-05-01/2001-05-15").
type DateRange struct {
	Start, End time.Time // End is the last millisecond covered
	Text       string
}

// precision of a parsed date.
type precision int

const (
	precYear precision = iota
	precMonth
	precDay
	precTime    // a local date-time: the source gave no offset, or a non-zero one
	precTimeUTC // a date-time the source gave in UTC (Z, +00:00)
)

// ParseDateRange parses the date forms seen in Darwin Core data: ISO 8601
// dates and date-times at any precision, ISO intervals (the end may omit the
// leading parts it shares with the start: "2001-05-01/15"), "YYYY/M/D",
// "D.M.YYYY" and "YYYYMMDD". ok is false for anything else.
func ParseDateRange(s string) (DateRange, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DateRange{}, false
	}
	if i := strings.IndexByte(s, '/'); i > 0 && !slashDate(s) {
		a, pa, ok := parseDate(s[:i])
		if !ok {
			return DateRange{}, false
		}
		endText := s[i+1:]
		if len(endText) < len(s[:i]) && pa < precTime {
			// Abbreviated end: borrow the start's leading parts.
			endText = s[:i][:len(s[:i])-len(endText)] + endText
		}
		b, pb, ok := parseDate(endText)
		if !ok {
			return DateRange{}, false
		}
		start, end := a, endOf(b, pb)
		if end.Before(start) {
			return DateRange{}, false
		}
		return DateRange{Start: start, End: end, Text: format(a, pa) + "/" + format(b, pb)}, true
	}
	t, p, ok := parseDate(s)
	if !ok {
		return DateRange{}, false
	}
	return DateRange{Start: t, End: endOf(t, p), Text: format(t, p)}, true
}

// slashDate reports whether s is a "YYYY/M/D" date rather than an interval.
func slashDate(s string) bool {
	parts := strings.Split(s, "/")
	if len(parts) != 3 || len(parts[0]) != 4 || len(parts[1]) > 2 || len(parts[2]) > 2 {
		return false
	}
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			return false
		}
	}
	return true
}

var timeLayouts = []struct {
	layout string
	zoned  bool // the layout reads an offset or Z
}{
	{time.RFC3339Nano, true}, {"2006-01-02T15:04:05", false}, {"2006-01-02T15:04", false}, {"2006-01-02 15:04:05", false},
	{"2006-01-02T15:04:05Z0700", true}, {"2006-01-02T15Z07:00", true}, {"2006-01-02T15:04Z07:00", true},
}

func parseDate(s string) (time.Time, precision, bool) {
	s = strings.TrimSpace(s)
	switch {
	case isDigits(s) && len(s) == 4:
		y, _ := strconv.Atoi(s)
		return date(y, 1, 1), precYear, true
	case isDigits(s) && len(s) == 8:
		y, _ := strconv.Atoi(s[:4])
		m, _ := strconv.Atoi(s[4:6])
		d, _ := strconv.Atoi(s[6:])
		return validDate(y, m, d)
	case len(s) == 7 && s[4] == '-' && isDigits(s[:4]) && isDigits(s[5:]):
		y, _ := strconv.Atoi(s[:4])
		m, _ := strconv.Atoi(s[5:])
		if m < 1 || m > 12 {
			return time.Time{}, 0, false
		}
		return date(y, m, 1), precMonth, true
	case len(s) == 10 && s[4] == '-' && s[7] == '-':
		t, err := time.Parse("2006-01-02", s)
		return t, precDay, err == nil
	}
	if p := strings.Split(s, "-"); len(p) == 3 && len(p[0]) == 4 && len(p[1]) <= 2 && len(p[2]) <= 2 && isDigits(p[0]+p[1]+p[2]) {
		// Unpadded ISO-like dates ("2002-1-1") are common in exports.
		y, _ := strconv.Atoi(p[0])
		m, _ := strconv.Atoi(p[1])
		d, _ := strconv.Atoi(p[2])
		return validDate(y, m, d)
	}
	if slashDate(s) {
		p := strings.Split(s, "/")
		y, _ := strconv.Atoi(p[0])
		m, _ := strconv.Atoi(p[1])
		d, _ := strconv.Atoi(p[2])
		return validDate(y, m, d)
	}
	if p := strings.Split(s, "."); len(p) == 3 && len(p[2]) == 4 && isDigits(p[0]+p[1]+p[2]) {
		d, _ := strconv.Atoi(p[0])
		m, _ := strconv.Atoi(p[1])
		y, _ := strconv.Atoi(p[2])
		return validDate(y, m, d)
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l.layout, s); err == nil {
			// GBIF keeps the source's wall clock and drops a non-zero
			// offset (gbif-api IsoDateInterval.toString(true),
			// IsoDateParsingUtils.stripOffsetOrZoneExceptUTC): a record
			// made at 22:30 at -05:00 is of that day, not the next one in
			// UTC. The wall clock is kept as a UTC time.
			_, off := t.Zone()
			p := precTime
			if l.zoned && off == 0 {
				p = precTimeUTC
			}
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
			if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
				// Midnight is how many sources write a plain day.
				return t, precDay, true
			}
			return t, p, true
		}
	}
	return time.Time{}, 0, false
}

func validDate(y, m, d int) (time.Time, precision, bool) {
	t := date(y, m, d)
	if t.Year() != y || int(t.Month()) != m || t.Day() != d {
		return time.Time{}, 0, false
	}
	return t, precDay, true
}

func date(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// endOf returns the last millisecond of the period starting at t.
func endOf(t time.Time, p precision) time.Time {
	switch p {
	case precYear:
		return t.AddDate(1, 0, 0).Add(-time.Millisecond)
	case precMonth:
		return t.AddDate(0, 1, 0).Add(-time.Millisecond)
	case precDay:
		return t.AddDate(0, 0, 1).Add(-time.Millisecond)
	}
	return t
}

func format(t time.Time, p precision) string {
	switch p {
	case precYear:
		return t.Format("2006")
	case precMonth:
		return t.Format("2006-01")
	case precDay:
		return t.Format("2006-01-02")
	}
	// A time as Java's LocalDateTime prints it, as GBIF writes eventDate
	// (2001-05-03T13:14, seconds and fraction only when not zero), Z after
	// a UTC source's; parseDate has already made a midnight a day.
	b := t.AppendFormat(make([]byte, 0, 32), "2006-01-02T15:04")
	if ns := t.Nanosecond(); t.Second() != 0 || ns != 0 {
		b = t.AppendFormat(b, ":05")
		switch {
		case ns == 0:
		case ns%1_000_000 == 0:
			b = t.AppendFormat(b, ".000")
		case ns%1000 == 0:
			b = t.AppendFormat(b, ".000000")
		default:
			b = t.AppendFormat(b, ".000000000")
		}
	}
	if p == precTimeUTC {
		b = append(b, 'Z')
	}
	return string(b)
}
