package gridcode

import "testing"

const (
	hour = 3600
	day  = 24 * hour
)

type temporalCase struct {
	date, time string
	want       int64 // -1: NULL
	reference  string
}

func checkTemporal(t *testing.T, cases []temporalCase) {
	t.Helper()
	for _, c := range cases {
		got, ok := TemporalUncertainty(c.date, c.time)
		if c.want < 0 && ok || c.want >= 0 && (!ok || got != c.want) {
			t.Errorf("TemporalUncertainty(%q, %q) = %d, %v; want %d (%s)", c.date, c.time, got, ok, c.want, c.reference)
		}
	}
}

// GBIF's vectors: TemporalUncertaintyTest in gbif/occurrence-cube,
// cube-functions/src/test/java/org/gbif/occurrence/cube/functions/.
// eventDateAndEventTimeTest repeats eventDateTest's dates with an eventTime,
// which only changes the date-only case.
func TestTemporalUncertaintyGBIFVectors(t *testing.T) {
	var cases []temporalCase
	for _, tm := range []struct{ time, ref string }{
		{"", "TemporalUncertaintyTest.eventDateTest"},
		{"15:01:01", "TemporalUncertaintyTest.eventDateAndEventTimeTest"},
	} {
		dateOnly := int64(day)
		if tm.time != "" {
			dateOnly = 1
		}
		for _, c := range []struct {
			date string
			want int64
		}{
			{"2021-03-21T15:01:32.456Z", 1},
			{"2021-03-21T15:01:32.456", 1},
			{"2021-03-21T15:01:32Z", 1},
			{"2021-03-21T15:01:32", 1},
			{"2021-03-21T15:01:00Z", 60},
			{"2021-03-21T15:01:00", 60},
			{"2021-03-21T15:01Z", 60},
			{"2021-03-21T15:01", 60},
			{"2021-03-21T15:00:00Z", hour},
			{"2021-03-21T15:00:00", hour},
			{"2021-03-21T15:00Z", hour},
			{"2021-03-21T15:00", hour},
			{"2021-03-21", dateOnly},
			{"2021-02", 28 * day},
			{"2024-02", 29 * day},
			{"2021", 365 * day},
			{"2024", 366 * day},
			{"2021-03-21/2021-03-23", 3 * day},
			{"2021-03/2021-04", (31 + 30) * day},
			{"2021/2022", 365 * 2 * day},
			{"2022/2024", (365*3 + 1) * day},
		} {
			cases = append(cases, temporalCase{c.date, tm.time, c.want, tm.ref})
		}
	}
	cases = append(cases,
		temporalCase{"2021-03-21T15:01:32.456Z", "15:01", 1, "TemporalUncertaintyTest.eventDateAndEventTimeTest"},
		temporalCase{"2021-03-21", "AOEU", day, "TemporalUncertaintyTest.eventDateAndEventTimeTest (bad time)"},
		temporalCase{"ABCD", "", -1, "TemporalUncertaintyTest.illegalArgumentTests (GBIF throws)"},
		temporalCase{"", "", -1, "TemporalUncertaintyTest.nullArgumentTest"},
		temporalCase{"", "12:00:00", -1, "TemporalUncertaintyTest.nullArgumentTest"},
	)
	checkTemporal(t, cases)
}

func TestTemporalUncertaintyEdges(t *testing.T) {
	checkTemporal(t, []temporalCase{
		{"2021-03-21", "15:00", hour, "eventTime with whole hours"},
		{"2021-03-21", "15:30+02:00", 60, "eventTime with an offset"},
		{"2021-03-21", "00:00:00Z", day, "eventTime at midnight"},
		{"2021-03-21", "24:00", day, "eventTime 24:00 is midnight"},
		{"2021-03-21", "25:00", day, "impossible eventTime is ignored"},
		{"2021-03-21", "15", day, "incomplete eventTime is ignored"},
		{"2021-03-21T24:00", "", day, "T24:00 is the next midnight"},
		{"2021-03-21T24:01", "", -1, "T24:01 does not exist"},
		{"2021-03-21T15:01:32.1234567890", "", -1, "ten fraction digits"},
		{"2021-03-21T15:01:32.", "", -1, "empty fraction"},
		{"2021-03-21T15:01:32+01:00", "", 1, "offset ±HH:MM"},
		{"2021-03-21T15:01:00-0330", "", 60, "offset ±HHMM"},
		{"2021-03-21T15:00:00+05", "", hour, "offset ±HH"},
		{"2021-03-21T15:00:00+19:00", "", -1, "offset beyond ±18:00"},
		{"2021-03-21T15", "", -1, "hour without minutes"},
		{"2021-02-30", "", day, "SMART resolution: 30 February is the 28th"},
		{"2021-02-32", "", -1, "no 32nd day"},
		{"2021-13", "", -1, "no 13th month"},
		{"2021-00", "", -1, "no month 0"},
		{"0000", "", -1, "no year 0 (year of era)"},
		{"2021-3-1", "", -1, "single-digit month"},
		{"21", "", -1, "two-digit year"},
		{"2021Z", "", 365 * day, "offset on a year is ignored"},
		{" 2021", "", -1, "leading space"},
		{"*", "", -1, "wildcard alone is NULL"},
		{"2021/*", "", 365 * day, "open end is ignored"},
		{"*/2021", "", -1, "open start fails"},
		{"/2021", "", -1, "empty start fails"},
		{"2021/", "", -1, "missing end fails"},
		{"2021/2020", "", -1, "backward interval"},
		{"2021/2021", "", 365 * day, "one-year interval"},
		{"2021-03/2021-03", "", 31 * day, "one-month interval"},
		{"2021-03-21/2021-03-20", "", -1, "backward dates"},
		{"2021/2021-03", "", -1, "ends of different precision"},
		{"2021-03-21T10:00/2021-03-21T10:00Z", "", -1, "local and offset ends"},
		{"2021-03-21T10:00/2021-03-21T12:30", "", 2*hour + 30*60, "date-time interval"},
		{"2021-03-21T10:00/2021-03-21T10:00", "", 0, "empty date-time interval"},
		{"2021-03-21T10:00+02:00/2021-03-21T09:00Z", "", hour, "offsets are compared as instants"},
		{"2021-03-21T10:00:00.9/2021-03-21T10:00:01.1", "", 0, "whole seconds, truncated"},
		{"2021-03-21T10:00:01.1/2021-03-21T10:00:00.9", "", 0, "truncated toward zero, as Java, not backward"},
		{"2021-03-21T10:00:02/2021-03-21T10:00:00", "", -1, "backward date-times"},
		{"1600-01-01T00:00/2021-01-01T00:00", "", (421*365 + 103) * day, "421 years with 103 leap days: longer than time.Duration"},
		{"2021-03-21/2021-03-23", "12:00", 3 * day, "eventTime is ignored for intervals"},
	})
}
