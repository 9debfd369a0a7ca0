package gridcode

import (
	"math"
	"math/rand/v2"
)

// WGS84 ellipsoid, the datum of decimalLatitude/decimalLongitude.
const (
	wgs84A = 6378137.0
	wgs84F = 1 / 298.257223563
	wgs84B = wgs84A * (1 - wgs84F)
)

// Randomize moves the point (lat, lon), in degrees, to a uniformly random
// position within uncertaintyMeters of it on the WGS84 ellipsoid, as GBIF's
// RandomizeCoordinate does for the EQDG, DMSG and MGRS codes: a uniform
// azimuth in [0°, 360°) and a distance of sqrt(u)·uncertaintyMeters, u
// uniform in [0, 1), drawn in that order from rnd (nil: the global source).
//
// An uncertainty that is zero, negative or NaN leaves the point unchanged
// and draws nothing. The returned longitude is normalised to [-180, 180].
func Randomize(lat, lon, uncertaintyMeters float64, rnd *rand.Rand) (float64, float64) {
	if !(uncertaintyMeters > 0) {
		return lat, lon
	}
	azimuth := draw(rnd) * 360
	distance := math.Sqrt(draw(rnd)) * uncertaintyMeters
	return geodesicDestination(lat, lon, azimuth, distance)
}

// randomizePlanar moves a projected point (metres) to a random position in
// the disc of radius uncertaintyMeters, as GBIF's EEA and EuroStat codes
// do: angle first, then radius. As in GBIF a negative radius mirrors the
// offset, which gives the disc of radius |uncertainty|.
func randomizePlanar(x, y, uncertaintyMeters float64, rnd *rand.Rand) (float64, float64) {
	theta := draw(rnd) * 2 * math.Pi
	r := math.Sqrt(draw(rnd)) * uncertaintyMeters
	return x + r*math.Cos(theta), y + r*math.Sin(theta)
}

func draw(rnd *rand.Rand) float64 {
	if rnd == nil {
		return rand.Float64()
	}
	return rnd.Float64()
}

// geodesicDestination solves the direct geodesic problem on WGS84 with
// Vincenty's formulae: the point reached from (lat, lon) after distance
// metres at azimuth degrees clockwise from north. GBIF uses GeoTools'
// GeodeticCalculator (GeographicLib); the two agree far below a metre.
func geodesicDestination(lat, lon, azimuth, distance float64) (float64, float64) {
	const rad = math.Pi / 180
	sinA1, cosA1 := math.Sincos(azimuth * rad)
	tanU1 := (1 - wgs84F) * math.Tan(lat*rad)
	cosU1 := 1 / math.Sqrt(1+tanU1*tanU1)
	sinU1 := tanU1 * cosU1
	sigma1 := math.Atan2(tanU1, cosA1)
	sinAlpha := cosU1 * sinA1
	cos2Alpha := 1 - sinAlpha*sinAlpha
	uu := cos2Alpha * (wgs84A*wgs84A - wgs84B*wgs84B) / (wgs84B * wgs84B)
	a := 1 + uu/16384*(4096+uu*(-768+uu*(320-175*uu)))
	b := uu / 1024 * (256 + uu*(-128+uu*(74-47*uu)))

	sigma := distance / (wgs84B * a)
	var sinSigma, cosSigma, cos2SigmaM float64
	for range 200 {
		cos2SigmaM = math.Cos(2*sigma1 + sigma)
		sinSigma, cosSigma = math.Sincos(sigma)
		c2 := cos2SigmaM * cos2SigmaM
		deltaSigma := b * sinSigma * (cos2SigmaM + b/4*(cosSigma*(-1+2*c2)-
			b/6*cos2SigmaM*(-3+4*sinSigma*sinSigma)*(-3+4*c2)))
		next := distance/(wgs84B*a) + deltaSigma
		done := math.Abs(next-sigma) < 1e-12
		sigma = next
		if done {
			break
		}
	}
	sinSigma, cosSigma = math.Sincos(sigma)
	cos2SigmaM = math.Cos(2*sigma1 + sigma)

	t := sinU1*sinSigma - cosU1*cosSigma*cosA1
	lat2 := math.Atan2(sinU1*cosSigma+cosU1*sinSigma*cosA1, (1-wgs84F)*math.Sqrt(sinAlpha*sinAlpha+t*t))
	lambda := math.Atan2(sinSigma*sinA1, cosU1*cosSigma-sinU1*sinSigma*cosA1)
	c := wgs84F / 16 * cos2Alpha * (4 + wgs84F*(4-3*cos2Alpha))
	l := lambda - (1-c)*wgs84F*sinAlpha*
		(sigma+c*sinSigma*(cos2SigmaM+c*cosSigma*(-1+2*cos2SigmaM*cos2SigmaM)))
	return math.Max(-90, math.Min(90, lat2/rad)), normalizeLon(lon + l/rad)
}

// normalizeLon wraps a longitude into [-180, 180].
func normalizeLon(lon float64) float64 {
	if lon >= -180 && lon <= 180 {
		return lon
	}
	lon = math.Mod(lon+180, 360)
	if lon < 0 {
		lon += 360
	}
	return lon - 180
}
