package gridcode

import "math"

// laea is the ellipsoidal Lambert azimuthal equal-area projection (EPSG
// method 9820, oblique aspect), following IOGP Guidance Note 7-2 §3.2.3.
type laea struct {
	a, e, e2     float64
	qp, rq, d    float64
	sinB0, cosB0 float64
	lon0, fe, fn float64
}

// etrs89LAEA is EPSG:3035, ETRS89 / LAEA Europe: GRS 1980 ellipsoid, centre
// 52°N 10°E, false easting 4 321 000 m and northing 3 210 000 m. GBIF
// declares ETRS89 identical to WGS84 (TOWGS84 zero), so WGS84 coordinates
// are projected as they are.
var etrs89LAEA = newLAEA(6378137, 1/298.257222101, 52, 10, 4321000, 3210000)

func newLAEA(a, f, lat0, lon0, fe, fn float64) *laea {
	e2 := f * (2 - f)
	p := &laea{a: a, e: math.Sqrt(e2), e2: e2, lon0: lon0 * math.Pi / 180, fe: fe, fn: fn}
	p.qp = p.q(1)
	sinPhi0, cosPhi0 := math.Sincos(lat0 * math.Pi / 180)
	beta0 := math.Asin(p.q(sinPhi0) / p.qp)
	p.sinB0, p.cosB0 = math.Sincos(beta0)
	p.rq = a * math.Sqrt(p.qp/2)
	p.d = a * (cosPhi0 / math.Sqrt(1-e2*sinPhi0*sinPhi0)) / (p.rq * p.cosB0)
	return p
}

// q is the authalic function of sin(latitude).
func (p *laea) q(sinPhi float64) float64 {
	es := p.e * sinPhi
	return (1 - p.e2) * (sinPhi/(1-es*es) - 1/(2*p.e)*math.Log((1-es)/(1+es)))
}

// forward projects degrees to (easting, northing) in metres. ok is false
// at and around the antipode of the centre, where the projection is
// undefined (GeoTools throws a ProjectionException there).
func (p *laea) forward(lat, lon float64) (x, y float64, ok bool) {
	sinPhi := math.Sin(lat * math.Pi / 180)
	ratio := math.Max(-1, math.Min(1, p.q(sinPhi)/p.qp))
	sinB, cosB := math.Sincos(math.Asin(ratio))
	sinL, cosL := math.Sincos(lon*math.Pi/180 - p.lon0)
	den := 1 + p.sinB0*sinB + p.cosB0*cosB*cosL
	if !(den > 1e-10) {
		return 0, 0, false
	}
	b := p.rq * math.Sqrt(2/den)
	x = p.fe + b*p.d*cosB*sinL
	y = p.fn + b/p.d*(p.cosB0*sinB-p.sinB0*cosB*cosL)
	return x, y, true
}
