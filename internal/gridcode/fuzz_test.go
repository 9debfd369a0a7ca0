package gridcode

import (
	"errors"
	"math"
	"math/rand/v2"
	"regexp"
	"testing"
)

// The shapes of well-formed codes.
var (
	eqdgRE     = regexp.MustCompile(`^[EW]\d{3}[NS]\d{2}[A-D]*$`)
	dmsgRE     = regexp.MustCompile(`^CRS4326RES[01]-\d{1,2}-\d{1,2}LON-?\d{1,3}-\d{1,2}-\d{1,2}LAT-?\d{1,2}-\d{1,2}-\d{1,2}$`)
	eeaRE      = regexp.MustCompile(`^\d+k?m[EW]\d+[NS]\d+$`)
	euroStatRE = regexp.MustCompile(`^CRS3035RES\d+mN-?\d+E-?\d+$`)
	isea3hRE   = regexp.MustCompile(`^-?\d{17,19}$`)
	mgrsRE     = regexp.MustCompile(`^(0[1-9]|[1-5]\d|60)[C-HJ-NP-X]([A-HJ-NP-Z][A-HJ-NP-V](\d\d){0,5})?$`)
)

type gridFunc func(int, float64, float64, float64, *rand.Rand) (string, bool, error)

// fuzzGrid checks f on arbitrary input: no panic, an error only as an
// *ArgumentError, a code of the right shape when ok, NULL for NaN, and the
// same answer again for the same seed.
func fuzzGrid(f *testing.F, fn gridFunc, re *regexp.Regexp, seeds [][4]float64) {
	for _, s := range seeds {
		f.Add(int(s[0]), s[1], s[2], s[3], uint64(1))
	}
	f.Fuzz(func(t *testing.T, size int, lat, lon, u float64, seed uint64) {
		code, ok, err := fn(size, lat, lon, u, seeded(seed))
		if err != nil {
			if ok || code != "" || !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("(%d, %v, %v, %v) = %q, %v, %v: bad error result", size, lat, lon, u, code, ok, err)
			}
			return
		}
		if !ok {
			if code != "" {
				t.Fatalf("(%d, %v, %v, %v) = %q but not ok", size, lat, lon, u, code)
			}
			return
		}
		if !re.MatchString(code) {
			t.Fatalf("(%d, %v, %v, %v) = %q: malformed", size, lat, lon, u, code)
		}
		if math.IsNaN(lat) || math.IsNaN(lon) || math.IsNaN(u) {
			t.Fatalf("(%d, %v, %v, %v) = %q: NaN must give NULL", size, lat, lon, u, code)
		}
		again, ok2, _ := fn(size, lat, lon, u, seeded(seed))
		if again != code || !ok2 {
			t.Fatalf("(%d, %v, %v, %v) = %q then %q with the same seed", size, lat, lon, u, code, again)
		}
	})
}

var fuzzSeeds = [][4]float64{
	{2, 52.3, 10.3, 0}, {6, -0.5, -0.5, 1000}, {0, 90, 180, 0}, {3600, -90, -180, 5e6},
	{1, 84, 0, 0}, {100_000, -80, 179.999, 1e9}, {1303, 47.168611, 9.508333, 25},
	{1, math.NaN(), 0, 0}, {1, 0, 0, math.Inf(1)}, {-1, 0, 0, 0}, {1_000_000, 0, 0, 0},
}

func FuzzEQDG(f *testing.F)     { fuzzGrid(f, EQDG, eqdgRE, fuzzSeeds) }
func FuzzDMSG(f *testing.F)     { fuzzGrid(f, DMSG, dmsgRE, fuzzSeeds) }
func FuzzEEA(f *testing.F)      { fuzzGrid(f, EEA, eeaRE, fuzzSeeds) }
func FuzzEuroStat(f *testing.F) { fuzzGrid(f, EuroStat, euroStatRE, fuzzSeeds) }
func FuzzMGRS(f *testing.F)     { fuzzGrid(f, MGRS, mgrsRE, fuzzSeeds) }
func FuzzISEA3H(f *testing.F)   { fuzzGrid(f, ISEA3H, isea3hRE, fuzzSeeds) }

// FuzzISEA3HCell: the cell's identifier decodes to its resolution and to a
// centre near the point (no farther than the radius of a cell of the
// resolution's area), and the centre's own cell is as near. (It need not
// be the same identifier: as in GBIF's geogrid, a point snapped to a cell
// whose centre lies on the next face of the icosahedron gets that centre
// projected from its own face, a second identifier for the cell; see
// TestISEA3HSecondIdentifier.)
func FuzzISEA3HCell(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(int(s[0]), s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, res int, lat, lon float64) {
		if res < 1 || res > MaxISEA3HResolution || !validPoint(lat, lon, 0) {
			return
		}
		id := isea3hCell(res, lat, lon)
		r, clat, clon := decodeISEA3H(id)
		if r != res {
			t.Fatalf("cell of (%v, %v) at %d: id %d says resolution %d", lat, lon, res, id, r)
		}
		cells := 10*math.Pow(3, float64(res-1)) + 2
		radius := math.Sqrt(510065621.72/cells) * 1000 // metres: the side of a square of the cell's area
		if d := sphericalDistance(lat, lon, clat, clon); d > radius {
			t.Fatalf("cell of (%v, %v) at %d: centre (%v, %v) is %.0f m away, more than %.0f", lat, lon, res, clat, clon, d, radius)
		}
		_, alat, alon := decodeISEA3H(isea3hCell(res, clat, clon))
		if d := sphericalDistance(lat, lon, alat, alon); d > radius {
			t.Fatalf("cell of (%v, %v) at %d: centre (%v, %v), whose cell's centre (%v, %v) is %.0f m away, more than %.0f", lat, lon, res, clat, clon, alat, alon, d, radius)
		}
	})
}

// decodeISEA3H reads an identifier back into its resolution and centre.
func decodeISEA3H(id int64) (res int, lat, lon float64) {
	if id < 0 {
		id = -id
	}
	code := int(id / 100_000_000_000_000_000)
	lat = float64(id/1_000_000_000%100_000_000) / 1e6
	lon = float64(id%1_000_000_000) / 1e6
	switch {
	case code > 66:
		code, lat, lon = code-66, -lat, -lon
	case code > 44:
		code, lon = code-44, -lon
	case code > 22:
		code, lat = code-22, -lat
	}
	return code, lat, lon
}

// FuzzRandomize: the moved point stays on the globe and, for uncertainties
// under 1000 km, within the radius (checked loosely on the sphere).
func FuzzRandomize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s[1], s[2], s[3], uint64(1))
	}
	f.Fuzz(func(t *testing.T, lat, lon, u float64, seed uint64) {
		if !validPoint(lat, lon, u) {
			return
		}
		lat2, lon2 := Randomize(lat, lon, u, seeded(seed))
		if !(lat2 >= -90 && lat2 <= 90 && lon2 >= -180 && lon2 <= 180) {
			t.Fatalf("Randomize(%v, %v, %v) = %v, %v: off the globe", lat, lon, u, lat2, lon2)
		}
		if u > 0 && u < 1e6 {
			if d := sphericalDistance(lat, lon, lat2, lon2); d > u*1.01+1e-6 {
				t.Fatalf("Randomize(%v, %v, %v) moved %v m", lat, lon, u, d)
			}
		}
	})
}

func sphericalDistance(lat1, lon1, lat2, lon2 float64) float64 {
	const rad = math.Pi / 180
	s := math.Sin((lat2-lat1)*rad/2)*math.Sin((lat2-lat1)*rad/2) +
		math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin((lon2-lon1)*rad/2)*math.Sin((lon2-lon1)*rad/2)
	return 2 * 6371008.8 * math.Asin(math.Min(1, math.Sqrt(s)))
}

// FuzzTemporalUncertainty: no panic, and a result is a positive-or-zero
// number of seconds no longer than the span of years 1–9999.
func FuzzTemporalUncertainty(f *testing.F) {
	for _, s := range []string{"2021-03-21T15:01:32.456Z", "2021/2022", "2021-02", "*", "2021-03-21/2021-03-23", "1-1", "2021-03-21T24:00+18:00"} {
		f.Add(s, "15:01:01")
	}
	f.Fuzz(func(t *testing.T, date, tm string) {
		s, ok := TemporalUncertainty(date, tm)
		if ok && (s < 0 || s > 10000*366*day) {
			t.Fatalf("TemporalUncertainty(%q, %q) = %d", date, tm, s)
		}
		if !ok && s != 0 {
			t.Fatalf("TemporalUncertainty(%q, %q) = %d but not ok", date, tm, s)
		}
	})
}
