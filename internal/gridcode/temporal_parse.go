package gridcode

import "time"

// A hand-written reader for the two patterns of GBIF's date parsing:
//
//	eventDate  [yyyy[-MM[-dd['T'HH:mm[:ss[.S…]]]]][offset]]  (IsoDateParsingUtils)
//	eventTime  HH:mm[:ss[.S…]][offset]                       (TemporalUncertainty)
//
// Each bracketed section is optional and, as in java.time, a section that
// fails is rolled back on its own while what precedes it stands.

type cursor struct {
	s string
	i int
}

// digits reads exactly n ASCII digits.
func (c *cursor) digits(n int) (int, bool) {
	if c.i+n > len(c.s) {
		return 0, false
	}
	v := 0
	for _, b := range []byte(c.s[c.i : c.i+n]) {
		if b < '0' || b > '9' {
			return 0, false
		}
		v = v*10 + int(b-'0')
	}
	c.i += n
	return v, true
}

func (c *cursor) lit(b byte) bool {
	if c.i < len(c.s) && c.s[c.i] == b {
		c.i++
		return true
	}
	return false
}

// optional runs section, rolling the cursor back if it fails.
func (c *cursor) optional(section func() bool) bool {
	at := c.i
	if section() {
		return true
	}
	c.i = at
	return false
}

// dateFields are the fields as written, before range checks.
type dateFields struct {
	year, month, day         int
	hasMonth, hasDay         bool
	hasTime                  bool
	hour, minute, second, ns int
	hasOffset                bool
	offsetSeconds            int
}

func (f *dateFields) parse(c *cursor) bool {
	var ok bool
	if f.year, ok = c.digits(4); !ok {
		return false
	}
	c.optional(func() bool {
		f.hasMonth = c.lit('-') && f.two(c, &f.month)
		if !f.hasMonth {
			return false
		}
		c.optional(func() bool {
			f.hasDay = c.lit('-') && f.two(c, &f.day)
			if !f.hasDay {
				return false
			}
			c.optional(func() bool {
				f.hasTime = c.lit('T') && f.parseTime(c)
				return f.hasTime
			})
			return true
		})
		return true
	})
	c.optional(func() bool {
		f.hasOffset = f.parseOffset(c)
		return f.hasOffset
	})
	return true
}

func (f *dateFields) two(c *cursor, dst *int) bool {
	v, ok := c.digits(2)
	*dst = v
	return ok
}

// parseTime reads HH:mm[:ss[.fraction]].
func (f *dateFields) parseTime(c *cursor) bool {
	if !f.two(c, &f.hour) || !c.lit(':') || !f.two(c, &f.minute) {
		return false
	}
	c.optional(func() bool {
		if !c.lit(':') || !f.two(c, &f.second) {
			return false
		}
		c.optional(func() bool { return c.lit('.') && f.parseFraction(c) })
		return true
	})
	return true
}

// parseFraction reads one to nine digits of a second.
func (f *dateFields) parseFraction(c *cursor) bool {
	n := 0
	f.ns = 0
	for n < 9 && c.i < len(c.s) && c.s[c.i] >= '0' && c.s[c.i] <= '9' {
		f.ns = f.ns*10 + int(c.s[c.i]-'0')
		c.i++
		n++
	}
	for k := n; k < 9; k++ {
		f.ns *= 10
	}
	return n > 0
}

// parseOffset reads Z or ±HH[[:]MM[[:]ss]], colons used throughout or not
// at all.
func (f *dateFields) parseOffset(c *cursor) bool {
	if c.lit('Z') {
		f.offsetSeconds = 0
		return true
	}
	sign := 1
	switch {
	case c.lit('+'):
	case c.lit('-'):
		sign = -1
	default:
		return false
	}
	h, ok := c.digits(2)
	if !ok {
		return false
	}
	var m, s int
	colon := c.i < len(c.s) && c.s[c.i] == ':'
	c.optional(func() bool {
		if colon && !c.lit(':') {
			return false
		}
		if m, ok = c.digits(2); !ok {
			return false
		}
		c.optional(func() bool {
			if colon && !c.lit(':') {
				return false
			}
			s, ok = c.digits(2)
			return ok
		})
		return true
	})
	if h > 18 || m > 59 || s > 59 || h*3600+m*60+s > 18*3600 {
		return false // left unread, so the whole text fails
	}
	f.offsetSeconds = sign * (h*3600 + m*60 + s)
	return true
}

// resolve range-checks the fields as Java's SMART resolver does and picks
// the most precise kind, as parseBest does.
func (f *dateFields) resolve() (*isoTemporal, bool) {
	switch {
	case f.year < 1:
		return nil, false
	case !f.hasMonth:
		return &isoTemporal{kind: kindYear, t: time.Date(f.year, 1, 1, 0, 0, 0, 0, time.UTC)}, true
	case f.month < 1 || f.month > 12:
		return nil, false
	case !f.hasDay:
		return &isoTemporal{kind: kindYearMonth, t: time.Date(f.year, time.Month(f.month), 1, 0, 0, 0, 0, time.UTC)}, true
	case f.day < 1 || f.day > 31:
		return nil, false
	}
	day := min(f.day, daysIn(f.year, time.Month(f.month)))
	if !f.hasTime {
		return &isoTemporal{kind: kindDate, t: time.Date(f.year, time.Month(f.month), day, 0, 0, 0, 0, time.UTC)}, true
	}
	extraDay, ok := f.validTime()
	if !ok {
		return nil, false
	}
	kind, loc := kindDateTime, time.UTC
	if f.hasOffset {
		kind, loc = kindOffsetDateTime, time.FixedZone("", f.offsetSeconds)
	}
	t := time.Date(f.year, time.Month(f.month), day+extraDay, f.hour%24, f.minute, f.second, f.ns, loc)
	return &isoTemporal{kind: kind, t: t}, true
}

// validTime checks the time fields; 24:00:00 is accepted as the next
// midnight (extraDay 1), as in java.time's SMART resolution.
func (f *dateFields) validTime() (extraDay int, ok bool) {
	if f.hour == 24 && f.minute == 0 && f.second == 0 && f.ns == 0 {
		return 1, true
	}
	return 0, f.hour < 24 && f.minute < 60 && f.second < 60
}

// parseEventTime reads an eventTime; ok is false when it does not parse.
func parseEventTime(s string) (hour, minute, second int, ok bool) {
	var f dateFields
	c := cursor{s: s}
	if !f.parseTime(&c) {
		return 0, 0, 0, false
	}
	c.optional(func() bool { return f.parseOffset(&c) })
	if c.i != len(s) {
		return 0, 0, 0, false
	}
	if _, ok := f.validTime(); !ok {
		return 0, 0, 0, false
	}
	return f.hour % 24, f.minute, f.second, true
}
