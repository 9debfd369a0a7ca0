package gridcode

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Grid sizes accepted by GBIF_EEARGCode and GBIF_EuroStatCode, in metres.
// GBIF documents only 25, 100, 250, 1000, 10000, 50000 and 100000 for the
// EEA grid, but its code (and test suite) accepts any size in this range.
const (
	MinLAEAGridSize = 1
	MaxLAEAGridSize = 999_999
)

// The projected extent of EPSG:3035 within which GBIF computes EEA codes,
// in metres (GBIF's EeaCellCode, from epsg.io).
const (
	eeaMinX, eeaMaxX = 1_896_628.62, 7_104_179.2
	eeaMinY, eeaMaxY = 1_095_703.18, 6_882_401.15
)

// EEA is GBIF_EEARGCode: the code of the EEA reference grid cell (ETRS89 /
// LAEA Europe, EPSG:3035) of the point, such as "1kmE4321N3210" or
// "250mE432100N321000": the size in m or km, then the cell's south-west
// corner as easting and northing in units of the size's power of ten.
//
// gridSize must be 1 to 999999 metres, else err is an *ArgumentError, as
// GBIF. ok is false, GBIF's NULL, for NaN arguments, coordinates beyond
// ±90°/±180° (GBIF throws), an infinite uncertainty, and points whose
// projection lies outside EPSG:3035's extent (checked before randomizing,
// as GBIF does). The uncertainty randomizes the point in the projected
// plane (a negative one acts like its absolute value, as in GBIF).
func EEA(gridSize int, lat, lon, uncertaintyMeters float64, rnd *rand.Rand) (string, bool, error) {
	x, y, ok, err := laeaPoint("GBIF_EEARGCode", gridSize, lat, lon, uncertaintyMeters, rnd, true)
	if !ok {
		return "", false, err
	}
	return eeaCode(gridSize, x, y), true, nil
}

// EuroStat is GBIF_EuroStatCode: the code of the EuroStat / INSPIRE grid
// cell on ETRS89 / LAEA Europe, such as "CRS3035RES1000mN2672000E4283000":
// the size in metres, then the cell's south-west corner as northing and
// easting in metres.
//
// Arguments are checked and randomized as for EEA, except that there is no
// extent: any point on Earth gets a code, negative northings and eastings
// included. ok is also false near the antipode of 52°N 10°E, where the
// projection is undefined.
func EuroStat(gridSize int, lat, lon, uncertaintyMeters float64, rnd *rand.Rand) (string, bool, error) {
	x, y, ok, err := laeaPoint("GBIF_EuroStatCode", gridSize, lat, lon, uncertaintyMeters, rnd, false)
	if !ok {
		return "", false, err
	}
	return euroStatCode(gridSize, x, y), true, nil
}

// laeaPoint validates, projects, bounds and randomizes in GBIF's order.
func laeaPoint(function string, gridSize int, lat, lon, uncertainty float64, rnd *rand.Rand, bounded bool) (x, y float64, ok bool, err error) {
	if gridSize < MinLAEAGridSize || gridSize > MaxLAEAGridSize {
		return 0, 0, false, argErr(function, "grid size %d is not between %d and %d metres", gridSize, MinLAEAGridSize, MaxLAEAGridSize)
	}
	if !validPoint(lat, lon, uncertainty) {
		return 0, 0, false, nil
	}
	x, y, ok = etrs89LAEA.forward(lat, lon)
	if !ok || bounded && (x < eeaMinX || x > eeaMaxX || y < eeaMinY || y > eeaMaxY) {
		return 0, 0, false, nil
	}
	if uncertainty != 0 {
		x, y = randomizePlanar(x, y, uncertainty, rnd)
	}
	return x, y, true, nil
}

// splitSize writes gridSize as t·10^order with t not a multiple of ten.
func splitSize(gridSize int) (t, order int) {
	t = gridSize
	for t%10 == 0 {
		t /= 10
		order++
	}
	return t, order
}

// floorToGrid floors v/10^order to a multiple of t, as GBIF does in
// floating point.
func floorToGrid(v float64, t, order int) float64 {
	return float64(t) * math.Floor(v/math.Pow10(order)/float64(t))
}

func eeaCode(gridSize int, x, y float64) string {
	t, order := splitSize(gridSize)
	var sb strings.Builder
	// The size: 25m, 250m, 1km, 10km, 50km, 100km, 1303m, ...
	sb.WriteString(strconv.Itoa(t))
	o := order
	for range 2 {
		if o%3 != 0 {
			sb.WriteByte('0')
			o--
		}
	}
	if o == 3 {
		sb.WriteByte('k')
	}
	sb.WriteByte('m')
	eeaAxis(&sb, x, 'E', 'W', t, order)
	eeaAxis(&sb, y, 'N', 'S', t, order)
	return sb.String()
}

func eeaAxis(sb *strings.Builder, v float64, pos, neg byte, t, order int) {
	if v >= 0 {
		sb.WriteByte(pos)
	} else {
		sb.WriteByte(neg)
		v = math.Abs(v)
	}
	sb.WriteString(strconv.Itoa(javaInt(floorToGrid(v, t, order))))
}

func euroStatCode(gridSize int, x, y float64) string {
	t, order := splitSize(gridSize)
	scale := math.Pow10(order)
	var sb strings.Builder
	sb.WriteString("CRS3035RES")
	sb.WriteString(strconv.Itoa(gridSize))
	sb.WriteString("mN")
	sb.WriteString(strconv.Itoa(javaInt(floorToGrid(y, t, order) * scale)))
	sb.WriteByte('E')
	sb.WriteString(strconv.Itoa(javaInt(floorToGrid(x, t, order) * scale)))
	return sb.String()
}
