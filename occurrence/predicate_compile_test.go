package occurrence

import "testing"

// TestISODateOneDigit: months and days of one digit are read as GBIF's
// IsoDateFormat reads them, as the same periods as their padded forms.
func TestISODateOneDigit(t *testing.T) {
	for short, padded := range map[string]string{"1999-6": "1999-06", "1999-6-7": "1999-06-07", "1999-12-7": "1999-12-07", "1999-6-27": "1999-06-27"} {
		lo1, hi1, err1 := parseISODate(short)
		lo2, hi2, err2 := parseISODate(padded)
		if err1 != nil || err2 != nil || lo1 != lo2 || hi1 != hi2 {
			t.Errorf("%s: [%d, %d] %v; %s: [%d, %d] %v", short, lo1, hi1, err1, padded, lo2, hi2, err2)
		}
	}
	for _, bad := range []string{"1999-13", "1999-6-31", "1999-", "1999-6-"} {
		if _, _, err := parseISODate(bad); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}
