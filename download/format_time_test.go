package download

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// checkTimestamp compares appendTimestamp with time's formatting of v, after
// a prefix (timeLayout's with appendTime, checked against Java below).
func checkTimestamp(t *testing.T, v int64, unit arrow.TimeUnit, layout string) {
	t.Helper()
	want := "x\t" + arrow.Timestamp(v).ToTime(unit).UTC().Format(layout)
	if layout == timeLayout {
		want = "x\t" + string(appendTime(nil, arrow.Timestamp(v).ToTime(unit)))
	}
	if got := string(appendTimestamp([]byte("x\t"), arrow.Timestamp(v), unit, layout)); got != want {
		t.Fatalf("appendTimestamp(%d %s, %q) = %q, want %q", v, unit, layout, got, want)
	}
}

var (
	timeUnits   = []arrow.TimeUnit{arrow.Second, arrow.Millisecond, arrow.Microsecond, arrow.Nanosecond}
	timeLayouts = []string{timeLayout, occurrence.LayoutUTCSeconds, time.RFC3339Nano}
)

// TestAppendTimestampLikeTime: the civil-date formatter writes what
// time.AppendFormat writes, for both layouts the columns use (and another,
// which it hands to time), every unit, the epoch, leap days, century and
// era boundaries, negative times, years beyond 9999 and random instants.
func TestAppendTimestampLikeTime(t *testing.T) {
	edges := []time.Time{
		time.Unix(0, 0), time.Unix(-1, 0), time.Unix(0, 1e6), time.Unix(-1, 999e6),
		time.Date(2000, 2, 29, 23, 59, 59, 120e6, time.UTC), time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2100, 2, 28, 12, 0, 0, 100e6, time.UTC), time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 6, 3, 4, 5, 6e6, time.UTC),
	}
	for _, unit := range timeUnits {
		for _, layout := range timeLayouts {
			for _, e := range edges {
				switch unit {
				case arrow.Second:
					checkTimestamp(t, e.Unix(), unit, layout)
				case arrow.Millisecond:
					checkTimestamp(t, e.UnixMilli(), unit, layout)
				case arrow.Microsecond:
					checkTimestamp(t, e.UnixMicro(), unit, layout)
				default:
					if e.Year() > 1677 && e.Year() < 2262 {
						checkTimestamp(t, e.UnixNano(), unit, layout)
					}
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(13, 14))
	for range 100000 {
		unit := timeUnits[r.IntN(len(timeUnits))]
		layout := timeLayouts[r.IntN(2)]
		checkTimestamp(t, r.Int64N(8e12)-2e12, unit, layout) // around 1906-2223 in ms
		checkTimestamp(t, r.Int64()>>r.IntN(40), unit, layout)
	}
}

// TestAppendTimeLikeISOInstant: lastInterpreted and the other millisecond
// timestamps are written as Java's DateTimeFormatter.ISO_INSTANT prints a
// millisecond instant, which GBIF's downloads use (MillisecondsToISO8601):
// three digits of milliseconds, or none.
func TestAppendTimeLikeISOInstant(t *testing.T) {
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{time.Date(2021, 1, 8, 8, 15, 8, 500e6, time.UTC), "2021-01-08T08:15:08.500Z"},
		{time.Date(2021, 1, 8, 8, 15, 8, 510e6, time.UTC), "2021-01-08T08:15:08.510Z"},
		{time.Date(2021, 1, 8, 8, 15, 8, 458e6, time.UTC), "2021-01-08T08:15:08.458Z"},
		{time.Date(2021, 1, 8, 8, 15, 8, 1e6, time.UTC), "2021-01-08T08:15:08.001Z"},
		{time.Date(2021, 1, 8, 8, 15, 8, 0, time.UTC), "2021-01-08T08:15:08Z"},
		{time.Date(2021, 1, 8, 8, 15, 8, 999_999, time.UTC), "2021-01-08T08:15:08Z"}, // below a millisecond
		{time.Date(10000, 1, 1, 0, 0, 0, 20e6, time.UTC), "10000-01-01T00:00:00.020Z"},
	} {
		if got := string(appendTime(nil, c.t)); got != c.want {
			t.Errorf("appendTime(%v) = %s, want %s", c.t, got, c.want)
		}
		if got := string(appendTimestamp(nil, arrow.Timestamp(c.t.UnixMilli()), arrow.Millisecond, timeLayout)); c.t.Year() < 10000 && got != c.want {
			t.Errorf("appendTimestamp(%v) = %s, want %s", c.t, got, c.want)
		}
	}
}

func FuzzAppendTimestamp(f *testing.F) {
	f.Add(int64(0), uint8(1), false)
	f.Add(int64(-1), uint8(0), true)
	f.Add(int64(math.MaxInt64), uint8(3), false)
	f.Fuzz(func(t *testing.T, v int64, unit uint8, seconds bool) {
		layout := timeLayout
		if seconds {
			layout = occurrence.LayoutUTCSeconds
		}
		checkTimestamp(t, v, timeUnits[unit%4], layout)
	})
}
