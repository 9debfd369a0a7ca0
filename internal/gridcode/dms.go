package gridcode

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// DMSG is GBIF_DMSGCode: the code of the degree-minute-second grid cell,
// in the INSPIRE statistical-units notation for a geographic CRS, such as
// "CRS4326RES0-15-0LON10-45-0LAT52-15-0" for 15-minute cells. resolution
// is the cell size in arc seconds and must divide 3600 (3600, 1800, 900,
// 600, 300, 150, 60, 30, ... 1), else err is an *ArgumentError, as GBIF.
//
// The LON and LAT parts name the cell's south-west corner, with a leading
// "-" west and south of zero (also for "-0-6-40"). ok is false, GBIF's
// NULL, for NaN arguments, coordinates beyond ±90°/±180° (GBIF throws) and
// an infinite uncertainty. A positive uncertainty randomizes the point
// first (see Randomize).
//
// GBIF's floating-point arithmetic is reproduced, including its known
// artefacts: 52.3° (52°18′) falls in the 1-minute cell LAT52-17-0.
func DMSG(resolution int, lat, lon, uncertaintyMeters float64, rnd *rand.Rand) (string, bool, error) {
	if resolution < 1 || 3600%resolution != 0 {
		return "", false, argErr("GBIF_DMSGCode", "resolution %d is not a whole number of seconds dividing 3600 (one degree), e.g. 3600, 900, 60 or 1", resolution)
	}
	if !validPoint(lat, lon, uncertaintyMeters) {
		return "", false, nil
	}
	lat, lon = Randomize(lat, lon, uncertaintyMeters, rnd)
	return dmsgCode(resolution, lat, lon), true, nil
}

func dmsgCode(seconds int, lat, lon float64) string {
	var sb strings.Builder
	sb.WriteString("CRS4326RES")
	writeDMS(&sb, false, seconds/3600, seconds%3600/60, seconds%60)
	d, m, s := dmsCorner(seconds, lon)
	sb.WriteString("LON")
	writeDMS(&sb, lon < 0, d, m, s)
	d, m, s = dmsCorner(seconds, lat)
	sb.WriteString("LAT")
	writeDMS(&sb, lat < 0, d, m, s)
	return sb.String()
}

// dmsCorner gives the magnitude of the cell's south-west corner (for one
// axis) as degrees, minutes and seconds. A negative value is pushed one
// cell further from zero and then floored as if it were positive, in GBIF's
// order of operations.
func dmsCorner(seconds int, v float64) (deg, min, sec int) {
	if v < 0 {
		v = math.Nextafter(math.Abs(v-float64(seconds)/3600.0), math.Inf(-1))
	}
	deg = javaInt(math.Floor(v))
	v -= float64(deg)
	factor := float64(3600 / seconds)
	total := javaInt(math.Floor(math.Mod(float64(v*factor), factor))) * seconds
	return deg, total / 60, total % 60
}

func writeDMS(sb *strings.Builder, negative bool, d, m, s int) {
	if negative {
		sb.WriteByte('-')
	}
	sb.WriteString(strconv.Itoa(d))
	sb.WriteByte('-')
	sb.WriteString(strconv.Itoa(m))
	sb.WriteByte('-')
	sb.WriteString(strconv.Itoa(s))
}
