package download

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Timestamps written without time.AppendFormat, which walks its layout for
// every value: the two layouts the columns use are written from the civil
// date here, and any other layout or a year outside 0-9999 still goes
// through time. In a DWCA export of 100k generated wide records, whose
// modified and lastInterpreted change from record to record, formatting
// timestamps took 184M instructions with time and 56M this way (callgrind);
// in SIMPLE_CSV, whose one timestamp repeats across neighbouring rows
// (timestampCell keeps the last), it makes no difference.

// appendTimestamp appends v (in unit) in layout, as
// v.ToTime(unit).UTC().AppendFormat(dst, layout) does, timeLayout as
// appendTime does.
func appendTimestamp(dst []byte, v arrow.Timestamp, unit arrow.TimeUnit, layout string) []byte {
	millis := layout == timeLayout
	if !millis && layout != occurrence.LayoutUTCSeconds {
		return v.ToTime(unit).UTC().AppendFormat(dst, layout)
	}
	per := int64(unit.Multiplier())    // nanoseconds a unit
	perSec := int64(time.Second) / per // units a second
	secs, frac := floorDivMod(int64(v), perSec)
	days, sod := floorDivMod(secs, 86400)
	y, m, d := civilFromDays(days)
	if y < 0 || y > 9999 {
		if millis {
			return appendTime(dst, v.ToTime(unit))
		}
		return v.ToTime(unit).UTC().AppendFormat(dst, layout)
	}
	var b [24]byte
	putDigits(b[0:4], uint64(y))
	b[4] = '-'
	putDigits(b[5:7], uint64(m))
	b[7] = '-'
	putDigits(b[8:10], uint64(d))
	b[10] = 'T'
	putDigits(b[11:13], uint64(sod/3600))
	b[13] = ':'
	putDigits(b[14:16], uint64(sod/60%60))
	b[16] = ':'
	putDigits(b[17:19], uint64(sod%60))
	n := 19
	if ms := frac * per / int64(time.Millisecond); millis && ms != 0 {
		b[19] = '.'
		putDigits(b[20:23], uint64(ms))
		n = 23
	}
	b[n] = 'Z'
	return append(dst, b[:n+1]...)
}

// floorDivMod is a/b rounded down and the remainder, in [0, b).
func floorDivMod(a, b int64) (int64, int64) {
	q, r := a/b, a%b
	if r < 0 {
		q, r = q-1, r+b
	}
	return q, r
}

// civilFromDays is the proleptic Gregorian date of days since 1970-01-01
// (H. Hinnant's days-to-civil algorithm).
func civilFromDays(days int64) (y, m, d int64) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // [0, 365]
	mp := (5*doy + 2) / 153                                // [0, 11], March first
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}
