package gridcode

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// MGRS latitude limits: beyond them the polar UPS grids apply, for which
// GBIF returns NULL.
const (
	mgrsMinLat = -80.0
	mgrsMaxLat = 84.0
)

// The 100 km square letters: columns cycle through three sets by zone,
// rows through two offsets of A–V (I and O are never used).
var (
	mgrsColumns = [3]string{"ABCDEFGH", "JKLMNPQR", "STUVWXYZ"}
	mgrsRows    = [2]string{"ABCDEFGHJKLMNPQRSTUV", "FGHJKLMNPQRSTUVABCDE"}
)

// MGRS is GBIF_MGRSCode: the Military Grid Reference System cell of the
// point, with a two-digit zone, such as "32U" (gridSize 0, the grid zone),
// "32UNC" (100 km), "32UNC66" (10 km) down to "32UNC6864961510" (1 m).
//
// Like GBIF (NGA's GridType.getPrecision) any gridSize is accepted: 0 gives
// the grid zone, anything else the precision of the largest of 100000,
// 10000, 1000, 100 and 10 that divides it, else 1 m; so 5000 gives 1 km
// cells. err is therefore always nil; it is there for the shared shape.
//
// ok is false, GBIF's NULL, for NaN arguments, coordinates beyond
// ±90°/±180° (GBIF throws), an infinite uncertainty, and for points (after
// randomizing) north of 84°N or south of 80°S: the polar UPS areas are not
// coded, by GBIF or here. A positive uncertainty randomizes the point first
// (see Randomize). The Norway (32V) and Svalbard (31X–37X) zone exceptions
// apply.
func MGRS(gridSize int, lat, lon, uncertaintyMeters float64, rnd *rand.Rand) (string, bool, error) {
	if !validPoint(lat, lon, uncertaintyMeters) {
		return "", false, nil
	}
	lat, lon = Randomize(lat, lon, uncertaintyMeters, rnd)
	if lat > mgrsMaxLat || lat < mgrsMinLat {
		return "", false, nil
	}
	code, ok := mgrsCode(mgrsDigits(gridSize), lat, lon)
	return code, ok, nil
}

// mgrsDigits is the number of easting (and northing) digits for a grid
// size, or -1 for the grid zone alone.
func mgrsDigits(gridSize int) int {
	if gridSize == 0 {
		return -1
	}
	digits := 5
	for p := 10; p <= 100000 && gridSize%p == 0; p *= 10 {
		digits--
	}
	return digits
}

// mgrsCode is ok unless the UTM position falls outside the 100 km letter
// range, which the zone widths rule out; NGA's code would throw there.
func mgrsCode(digits int, lat, lon float64) (string, bool) {
	band := mgrsBand(lat)
	zone := mgrsZone(lat, lon, band)
	var sb strings.Builder
	if zone < 10 {
		sb.WriteByte('0')
	}
	sb.WriteString(strconv.Itoa(zone))
	sb.WriteByte(band)
	if digits < 0 {
		return sb.String(), true
	}
	u := toUTM(lat, lon, zone)
	col := javaInt(math.Floor(u.easting / 100000))
	row := javaInt(math.Floor(u.northing/100000)) % 20
	if col < 1 || col > 8 || row < 0 || u.northing < 0 {
		return "", false
	}
	sb.WriteByte(mgrsColumns[(zone-1)%3][col-1])
	sb.WriteByte(mgrsRows[(zone-1)%2][row])
	if digits > 0 {
		e := pad5(int64(math.Mod(u.easting, 100000)))
		n := pad5(int64(math.Mod(u.northing, 100000)))
		sb.WriteString(e[:digits])
		sb.WriteString(n[:digits])
	}
	return sb.String(), true
}

func pad5(v int64) string {
	s := strconv.FormatInt(v, 10)
	if len(s) < 5 {
		s = strings.Repeat("0", 5-len(s)) + s
	}
	return s
}

// mgrsBand is the latitude band letter: C to X in 8° bands from 80°S
// (skipping I and O), X stretched to 12° up to 84°N. A latitude on a
// boundary belongs to the band north of it.
func mgrsBand(lat float64) byte {
	bands := int((lat - mgrsMinLat) / 8)
	if bands >= 20 {
		bands = 19
	}
	switch {
	case bands > 10:
		bands += 2 // past I and O
	case bands > 5:
		bands++ // past I
	}
	return 'C' + byte(bands)
}

// mgrsZone is the UTM zone number, 1–60 in 6° strips from 180°W (180°E is
// zone 60), with the Norway and Svalbard exceptions.
func mgrsZone(lat, lon float64, band byte) int {
	zone := min(1+int((lon+180)/6), 60)
	switch {
	case band == 'X' && zone >= 31 && zone <= 37:
		// Svalbard: only the odd zones 31, 33, 35 and 37, widened.
		zone = int(math.Round(31 + lon/6))
		if zone%2 == 0 {
			zone--
		}
	case band == 'V' && (zone == 31 || zone == 32):
		// Norway: 32V reaches west to 3°E.
		zone = 31
		if lon >= 3 {
			zone = 32
		}
	}
	return zone
}
