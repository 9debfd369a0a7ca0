package gridcode

import "math"

// UTM as computed by NGA's mgrs-java 2.1.3 (mil.nga.mgrs.utm.UTM), which
// GBIF's MGRS codes use. It is not the usual Krüger series but a closed
// approximation on a spheroid of polar curvature radius 6399593.625 m and
// second eccentricity² 0.006739496742 (WGS84), with eastings and northings
// rounded to the centimetre. The same constants and rounding are used here
// so that 1 m codes agree with GBIF's.
const (
	utmK0      = 0.9996
	utmC       = 6399593.625 // polar radius of curvature a²/b
	utmCEast   = 6399593.62  // (sic) the easting formula's value of c
	utmEp2     = 0.006739496742
	utmEp      = 0.0820944379 // sqrt(utmEp2), as written in the easting formula
	utmFalseE  = 500000.0
	utmFalseNS = 10000000.0
)

// utmPoint is a UTM position; north is false in the southern hemisphere,
// where the northing carries the 10 000 km false northing.
type utmPoint struct {
	zone              int
	north             bool
	easting, northing float64
}

// toUTM converts degrees to UTM in the given zone.
func toUTM(lat, lon float64, zone int) utmPoint {
	phi := lat * math.Pi / 180
	dLambda := lon*math.Pi/180 - float64(6*zone-183)*math.Pi/180
	cosPhi := math.Cos(phi)
	cos2 := cosPhi * cosPhi
	b := cosPhi * math.Sin(dLambda)
	xi := 0.5 * math.Log((1+b)/(1-b))

	easting := xi*utmK0*utmCEast/math.Sqrt(1+utmEp*utmEp*cos2)*
		(1+utmEp*utmEp/2*xi*xi*cos2/3) + utmFalseE

	nu := utmK0 * utmC / math.Sqrt(1+utmEp2*cos2)
	sin2Phi := math.Sin(2 * phi)
	j2 := phi + sin2Phi/2
	j4 := (3*j2 + sin2Phi*cos2) / 4
	j6 := (5*j4 + sin2Phi*cos2*cos2) / 3
	meridian := utmK0 * utmC * (phi - 0.005054622556*j2 + 4.258201531e-05*j4 - 1.674057895e-07*j6)
	northing := (math.Atan(math.Tan(phi)/math.Cos(dLambda))-phi)*nu*(1+utmEp2/2*xi*xi*cos2) + meridian

	north := lat >= 0
	if !north {
		northing += utmFalseNS
	}
	return utmPoint{
		zone:     zone,
		north:    north,
		easting:  javaRound(easting*100) * 0.01,
		northing: javaRound(northing*100) * 0.01,
	}
}
