package gridcode

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// MaxEQDGLevel is the deepest EQDG level accepted. GBIF accepts any level;
// past 52 subdivisions a float64 has no fraction bits left to split, so
// deeper codes only repeat one letter.
const MaxEQDGLevel = 52

// The letters of the four quadrants of a degree square, indexed by
// (east half ? 1 : 0) + (north half ? 2 : 0) measured away from 0°, 0°.
// A is always the north-west quadrant on the map, so the index order
// depends on the square's quarter of the globe (GBIF's arrays I, J, K, L).
var (
	eqdgNW = [4]byte{'D', 'C', 'B', 'A'} // lon ≤ 0, lat > 0
	eqdgNE = [4]byte{'C', 'D', 'A', 'B'} // lon > 0, lat > 0
	eqdgSW = [4]byte{'B', 'A', 'D', 'C'} // lon ≤ 0, lat ≤ 0
	eqdgSE = [4]byte{'A', 'B', 'C', 'D'} // lon > 0, lat ≤ 0
)

// EQDG is GBIF_EQDGCode: the Extended Quarter Degree Grid Cell code
// (Larsen et al. 2009, doi:10.1111/j.1365-2028.2008.00997.x) of the point
// at the given level, such as "E010N52CBC" for level 3. Level 0 gives the
// one-degree square ("E010N52"), each further level one letter A–D for a
// quarter of the previous cell.
//
// Level must be 0 to MaxEQDGLevel, else err is an *ArgumentError (GBIF
// accepts any level; a negative one acts as 0). ok is false, GBIF's NULL,
// for NaN arguments, coordinates beyond ±90°/±180° (GBIF throws) and an
// infinite uncertainty. A positive uncertainty randomizes the point first
// (see Randomize).
//
// Like GBIF, a negative whole degree belongs to the cell nearer zero
// (lon -10.0 is in W009), and the quadrant letters of points exactly on
// 0° longitude or latitude are those of the western or southern squares.
func EQDG(level int, lat, lon, uncertaintyMeters float64, rnd *rand.Rand) (string, bool, error) {
	if level < 0 || level > MaxEQDGLevel {
		return "", false, argErr("GBIF_EQDGCode", "level %d is not between 0 and %d", level, MaxEQDGLevel)
	}
	if !validPoint(lat, lon, uncertaintyMeters) {
		return "", false, nil
	}
	lat, lon = Randomize(lat, lon, uncertaintyMeters, rnd)
	return eqdgCode(level, lat, lon), true, nil
}

func eqdgCode(level int, lat, lon float64) string {
	square := eqdgSquare(lat, lon)
	// Distances from the square's corner nearest 0°, 0°, in degrees.
	x := math.Abs(lon - math.Trunc(lon))
	y := math.Abs(lat - math.Trunc(lat))

	var sb strings.Builder
	sb.Grow(7 + level)
	eqdgDegrees(&sb, lon, 'E', 'W', 3)
	eqdgDegrees(&sb, lat, 'N', 'S', 2)

	boundary := 1.0
	for range level {
		boundary /= 2
		i := 0
		if x >= boundary {
			i++
			x -= boundary
		}
		if y >= boundary {
			i += 2
			y -= boundary
		}
		sb.WriteByte(square[i])
	}
	return sb.String()
}

func eqdgSquare(lat, lon float64) *[4]byte {
	switch {
	case lon > 0 && lat > 0:
		return &eqdgNE
	case lon > 0:
		return &eqdgSE
	case lat > 0:
		return &eqdgNW
	}
	return &eqdgSW
}

// eqdgDegrees writes the hemisphere letter and the zero-padded whole
// degrees. There are two zero squares (E000 and W000), so a negative whole
// degree counts toward zero: -10.0 is W009 like -9.5, not W010 like -10.5.
func eqdgDegrees(sb *strings.Builder, deg float64, pos, neg byte, width int) {
	if deg >= 0 {
		sb.WriteByte(pos)
	} else {
		sb.WriteByte(neg)
		if math.Mod(deg, 1) == 0 {
			deg++
		}
	}
	digits := strconv.Itoa(int(math.Floor(math.Abs(deg))))
	for range width - len(digits) {
		sb.WriteByte('0')
	}
	sb.WriteString(digits)
}
