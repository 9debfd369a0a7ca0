package gridcode

import "math"

// GBIF's arithmetic is Java's. These helpers give Go the Java semantics
// where the two languages differ, so codes agree to the last digit.

// javaInt converts like Java's (int) cast: truncation toward zero,
// saturating at the int32 limits, NaN to 0. (Go leaves out-of-range
// conversions implementation-defined.)
func javaInt(f float64) int {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int(f)
}

// javaRound is Java's Math.round for values within the int64 range: the
// nearest integer, ties toward positive infinity (Go's math.Round sends
// negative ties away from zero).
func javaRound(f float64) float64 {
	fl := math.Floor(f)
	if f-fl == 0.5 {
		return fl + 1
	}
	return math.Round(f)
}

// validPoint reports whether GBIF computes a cell for the arguments at all:
// NaN stands for SQL NULL, and GBIF rejects coordinates beyond ±90°/±180°
// and (through its geodesic library) non-finite distances.
func validPoint(lat, lon, uncertainty float64) bool {
	if math.IsNaN(lat) || math.IsNaN(lon) || math.IsNaN(uncertainty) || math.IsInf(uncertainty, 0) {
		return false
	}
	return lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180
}
