package gridcode

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// MaxISEA3HResolution is the finest ISEA3H resolution GBIF_ISEA3HCode takes
// (its cell identifiers have room for resolutions 1 to 22).
const MaxISEA3HResolution = 22

// ISEA3H is GBIF_ISEA3HCode: the identifier of the cell of the ISEA
// aperture-3 hexagonal discrete global grid (Sahr, White and Kimerling
// 2003) at the given resolution, as GBIF computes it with Mocnik's geogrid
// library (the icosahedron oriented so that the poles fall on edge
// midpoints and the equator is symmetric; Snyder's equal-area projection
// onto its faces). Each resolution has three times as many cells as the
// one before it; at resolution 1 there are 20 hexagons and 12 pentagons.
//
// The identifier is a decimal integer, as GBIF returns it (Mocnik 2018,
// doi:10.1080/15230406.2018.1455157): negative for a pentagon; then the
// resolution, plus 22 when the cell's centre lies south of the equator and
// 44 when west of Greenwich; then the centre's latitude with six decimals
// in eight digits and its longitude in nine, both without sign.
// "5340766511074019041" is the resolution-9 cell centred at 40.766511°N,
// 74.019041°W.
//
// resolution must be 1 to 22, else err is an *ArgumentError, as GBIF. ok
// is false, GBIF's NULL, for NaN arguments, coordinates beyond ±90°/±180°
// and an infinite uncertainty. A positive uncertainty randomizes the point
// first (see Randomize).
func ISEA3H(resolution int, lat, lon, uncertaintyMeters float64, rnd *rand.Rand) (string, bool, error) {
	if resolution < 1 || resolution > MaxISEA3HResolution {
		return "", false, argErr("GBIF_ISEA3HCode", "resolution %d is not between 1 and %d", resolution, MaxISEA3HResolution)
	}
	if !validPoint(lat, lon, uncertaintyMeters) {
		return "", false, nil
	}
	lat, lon = Randomize(lat, lon, uncertaintyMeters, rnd)
	return strconv.FormatInt(isea3hCell(resolution, lat, lon), 10), true, nil
}

// isea3hCell is the identifier of the resolution's cell holding (lat, lon).
func isea3hCell(resolution int, lat, lon float64) int64 {
	g := &isea3hGrids[resolution]
	p := iseaToFace(lat, lon)
	c := g.snap(p)
	clat, clon := iseaFromFace(c)
	return isea3hID(resolution, clat, clon, g.pentagon(c))
}

// Angles are in degrees throughout, converted as Java's Math.toRadians and
// Math.toDegrees convert them, so that the centres agree with GBIF's to the
// last of the identifier's digits.
const (
	degToRad = 0.017453292519943295
	radToDeg = 57.29577951308232
)

func sind(x float64) float64      { return math.Sin(x * degToRad) }
func cosd(x float64) float64      { return math.Cos(x * degToRad) }
func tand(x float64) float64      { return math.Tan(x * degToRad) }
func asind(x float64) float64     { return math.Asin(clampUnit(x)) * radToDeg }
func acosd(x float64) float64     { return math.Acos(clampUnit(x)) * radToDeg }
func atand(x float64) float64     { return math.Atan(x) * radToDeg }
func atan2d(y, x float64) float64 { return math.Atan2(y, x) * radToDeg }

// clampUnit keeps a sine or cosine that rounding took a hair past ±1 (at
// an icosahedron's vertex, sin(E + g) is 1 and may be computed as
// 1.0000000000000002) inside asin's and acos's domain.
func clampUnit(x float64) float64 { return max(-1, min(1, x)) }

// faceCoord is a point on one of the icosahedron's 20 faces, in kilometres
// from the face's centre (x east, y toward the face's apex for an upright
// face), the plane Snyder's projection maps the sphere to.
type faceCoord struct {
	face int
	x, y float64
}

// iseaProjection holds the constants of Snyder's equal-area projection of
// the authalic sphere onto the icosahedron (Snyder 1992), with the faces'
// centres and the rotation that puts the poles on edge midpoints.
type iseaProjection struct {
	g                    float64 // spherical distance from a face's centre to its vertices
	e, f                 float64 // latitudes of the faces' centres (northern and equatorial rows)
	r                    float64 // R', the icosahedron's scaled radius
	halfBase             float64 // half a face's edge on the plane (Snyder's G, with R')
	tanG, rTanG, rTanG2  float64
	cosBigG, sinGcosg    float64
	cotTheta             float64
	areaScale            float64 // π R² / 180
	faceLat              [20]float64
	faceLon              [20]float64
	faceSin, faceCos     [20]float64 // of faceLat
	rotLat, rotLon       float64     // the orientation: symmetric equator
	sinRot, cosRot       float64
	sinNegRot, cosNegRot float64
}

const (
	iseaBigG     = 36.0  // Snyder's G: half the angle at a face's centre between two vertices
	iseaTheta    = 30.0  // θ: half a face's vertex angle
	iseaAzMax    = 120.0 // 2(90 - θ): the azimuth span of one of the three sub-triangles
	iseaEarthR   = 6371.0071809184728409
	iseaPrec     = 1e-9
	iseaPoleBand = 1e-5 // a latitude this close to a pole has longitude 0
)

var isea = newISEAProjection()

func newISEAProjection() *iseaProjection {
	p := &iseaProjection{}
	phi := (1 + math.Sqrt(5)) / 2
	p.f = atand(1 / (2 * phi * phi))
	p.g = p.f + 2*atand(phi) - 90
	p.e = 90 - p.g
	p.r = (1/(2*math.Sqrt(5)) + 1/6.) * math.Sqrt(math.Pi*math.Sqrt(3)) * iseaEarthR
	p.tanG = tand(p.g)
	p.halfBase = p.r * p.tanG * math.Sqrt(3) / 2
	p.rTanG = p.r * p.tanG
	p.rTanG2 = p.rTanG * p.rTanG
	p.cosBigG = cosd(iseaBigG)
	p.sinGcosg = sind(iseaBigG) * cosd(p.g)
	p.cotTheta = 1 / tand(iseaTheta)
	p.areaScale = math.Pi * (iseaEarthR * iseaEarthR) / 180
	// Faces 0-4 touch the north vertex, 5-9 and 10-14 make the equatorial
	// band (5-9 upside down, 10-14 upright), 15-19 touch the south vertex.
	for i := range 5 {
		north := float64(-144 + 72*i)
		south := float64(-108 + 72*i)
		p.faceLat[i], p.faceLon[i] = p.e, north
		p.faceLat[5+i], p.faceLon[5+i] = p.f, north
		p.faceLat[10+i], p.faceLon[10+i] = -p.f, south
		p.faceLat[15+i], p.faceLon[15+i] = -p.e, south
	}
	for i := range 20 {
		p.faceSin[i], p.faceCos[i] = sind(p.faceLat[i]), cosd(p.faceLat[i])
	}
	p.rotLat, p.rotLon = (p.e+p.f)/2, -11.25
	p.sinRot, p.cosRot = sind(p.rotLat), cosd(p.rotLat)
	p.sinNegRot, p.cosNegRot = sind(-p.rotLat), cosd(p.rotLat)
	return p
}

// upright is +1 for a face whose apex points north on the plane, -1 for one
// upside down.
func upright(face int) float64 {
	if face <= 4 || (face >= 10 && face <= 14) {
		return 1
	}
	return -1
}

// normLon brings a longitude to [-180, 180] as geogrid's coordinates do.
func normLon(lon float64) float64 {
	lon = math.Mod(lon, 360)
	if lon > 180 {
		lon -= 360
	} else if lon < -180 {
		lon += 360
	}
	return lon
}

// iseaToFace projects a geographic point onto the face that holds it.
func iseaToFace(lat, lon float64) faceCoord {
	p := isea
	// Rotate into the icosahedron's frame.
	lon = normLon(lon)
	sinLat, cosLat := sind(lat), cosd(lat)
	l1 := lon + p.rotLon
	sinL1, cosL1 := sind(l1), cosd(l1)
	rlat := asind(sinLat*p.cosRot + cosL1*cosLat*p.sinRot)
	rlon := normLon(atan2d(sinL1*cosLat, cosL1*cosLat*p.cosRot-sinLat*p.sinRot))

	sinLat, cosLat = sind(rlat), cosd(rlat)
	for _, face := range p.likelyFaces(rlat, rlon) {
		if fc, ok := p.onFace(face, rlat, rlon, sinLat, cosLat); ok {
			return fc
		}
	}
	for face := range 20 {
		if fc, ok := p.onFace(face, rlat, rlon, sinLat, cosLat); ok {
			return fc
		}
	}
	// Every point lies on some face; rounding at a shared edge cannot send
	// it past all of them. Kept total for the fuzz test's sake.
	return faceCoord{}
}

// likelyFaces are the two faces a rotated point most probably lies on, as
// geogrid tries them first (its order decides which face an edge point is
// given to).
func (p *iseaProjection) likelyFaces(lat, lon float64) [2]int {
	band := p.e - p.f
	switch {
	case lat > band:
		i := sector(lon, -108, 72, 4)
		return [2]int{i, 5 + i}
	case lat < -band:
		i := sector(lon, -144, 72, 5)
		if i == 0 || i == 5 {
			return [2]int{19, 14}
		}
		return [2]int{14 + i, 9 + i}
	}
	// i: 0 below -144, 1 below -108, ..., 9 from 144 on.
	i := sector(lon, -144, 36, 9)
	up := [10]int{5, 5, 6, 6, 7, 7, 8, 8, 9, 9}
	down := [10]int{14, 10, 10, 11, 11, 12, 12, 13, 13, 14}
	return [2]int{up[i], down[i]}
}

// sector is how many of the bounds first, first+step, ... (n of them) lie
// at or below lon.
func sector(lon, first, step float64, n int) int {
	i := 0
	for i < n && lon >= first+float64(i)*step {
		i++
	}
	return i
}

// onFace is Snyder's forward projection of a rotated point onto face, ok
// false when the point lies beyond the face's edge.
func (p *iseaProjection) onFace(face int, lat, lon, sinLat, cosLat float64) (faceCoord, bool) {
	lon0, sinLat0, cosLat0 := p.faceLon[face], p.faceSin[face], p.faceCos[face]
	sinDL, cosDL := sind(lon-lon0), cosd(lon-lon0)
	az := atan2d(cosLat*sinDL, cosLat0*sinLat-sinLat0*cosLat*cosDL)
	az, adjust := subTriangle(face, az)
	sinAz, cosAz := sind(az), cosd(az)
	z := acosd(sinLat0*sinLat + cosLat0*cosLat*cosDL)
	q := atan2d(p.tanG, cosAz+sinAz*p.cotTheta)
	if z > q+iseaPrec {
		return faceCoord{}, false
	}
	h := p.hAngle(sinAz, cosAz)
	area := (az + (iseaBigG - 180) + h) * p.areaScale
	azPlane := atan2d(2*area, p.rTanG2-area*2*p.cotTheta)
	sinAzP, cosAzP := sind(azPlane), cosd(azPlane)
	rho := 2 * p.r * p.scale(sinAzP, cosAzP, q) * sind(z/2)
	azPlane -= adjust
	return faceCoord{face, rho * sind(azPlane), rho * cosd(azPlane)}, true
}

// subTriangle brings an azimuth (from north on the sphere, from the face's
// y axis on the plane) into the one of the face's three sub-triangles
// Snyder's formulas are written for, [0°, 120°], turning an upside-down
// face upright first; adjust is what was added, to take off at the end.
func subTriangle(face int, az float64) (float64, float64) {
	adjust := 0.0
	if upright(face) < 0 {
		adjust = 180
	}
	az += adjust
	for az < 0 {
		adjust += iseaAzMax
		az += iseaAzMax
	}
	for az > iseaAzMax {
		adjust -= iseaAzMax
		az -= iseaAzMax
	}
	return az, adjust
}

// hAngle is Snyder's H for the azimuth on the sphere.
func (p *iseaProjection) hAngle(sinAz, cosAz float64) float64 {
	return acosd(sinAz*p.sinGcosg - cosAz*p.cosBigG)
}

// scale is Snyder's f: the plane's distance to the edge over the sphere's;
// q is the sphere's angular distance to the edge along the azimuth.
func (p *iseaProjection) scale(sinAzP, cosAzP, q float64) float64 {
	d := p.rTanG / (cosAzP + sinAzP*p.cotTheta)
	return d / (2 * p.r * sind(q/2))
}

// iseaFromFace is the inverse projection: the geographic coordinates of a
// point on a face, the azimuth found by Newton's method as Snyder gives it.
func iseaFromFace(c faceCoord) (lat, lon float64) {
	p := isea
	azP := atan2d(c.x, c.y)
	rho := math.Sqrt(c.x*c.x + c.y*c.y)
	azP, adjust := subTriangle(c.face, azP)
	sinAzP, cosAzP := sind(azP), cosd(azP)
	area := p.rTanG2 / (2 * (cosAzP/sinAzP + p.cotTheta))
	target := area/p.areaScale - (iseaBigG - 180)
	az := azP
	for step := 10 * iseaPrec; math.Abs(step) > iseaPrec; {
		sinAz, cosAz := sind(az), cosd(az)
		h := p.hAngle(sinAz, cosAz)
		fAz := target - h - az
		dfAz := (cosAz*p.sinGcosg+sinAz*p.cosBigG)/sind(h) - 1
		step = -fAz / dfAz
		az += step
	}
	sinAz, cosAz := sind(az), cosd(az)
	q := atan2d(p.tanG, cosAz+sinAz*p.cotTheta)
	z := 2 * asind(rho/(2*p.r*p.scale(sinAzP, cosAzP, q)))
	az -= adjust
	lon0, sinLat0, cosLat0 := p.faceLon[c.face], p.faceSin[c.face], p.faceCos[c.face]
	sinZ, cosZ := sind(z), cosd(z)
	rlat := asind(sinLat0*cosZ + cosLat0*sinZ*cosd(az))
	rlon := normLon(lon0 + atan2d(sind(az)*sinZ*cosLat0, cosZ-sinLat0*sind(rlat)))
	return p.unrotate(rlat, rlon)
}

// unrotate takes a point of the icosahedron's frame back to geographic
// coordinates.
func (p *iseaProjection) unrotate(lat, lon float64) (float64, float64) {
	if lat < -90+iseaPoleBand || lat > 90-iseaPoleBand {
		lon = 0
	}
	sinLat, cosLat := sind(lat), cosd(lat)
	sinLon, cosLon := sind(lon), cosd(lon)
	glat := asind(sinLat*p.cosNegRot + cosLon*cosLat*p.sinNegRot)
	glon := atan2d(sinLon*cosLat, cosLon*cosLat*p.cosNegRot-sinLat*p.sinNegRot)
	return glat, normLon(glon - p.rotLon)
}

// isea3hGrid is one resolution's hexagon lattice on a face. Odd resolutions
// have hexagons with a vertex pointing along x, even ones along y; the
// lattice is computed in the first orientation with x and y swapped for
// the second.
type isea3hGrid struct {
	swapped                bool
	half, sixth            float64 // half and a sixth of the resolution's triangle base
	row, halfRow           float64 // the spacing of centres along the other axis, and half of it
	faceHalf, faceB, faceC float64 // a face's half base, centre-to-apex and centre-to-base distances
}

var isea3hGrids = func() (g [MaxISEA3HResolution + 1]isea3hGrid) {
	base := 2 * isea.halfBase
	inv := 1 / math.Sqrt(3)
	for res := 1; res <= MaxISEA3HResolution; res++ {
		l := math.Pow(inv, float64(res-1)) * base
		row := math.Pow(inv, float64(res)) * base
		g[res] = isea3hGrid{
			swapped: res%2 == 0,
			half:    l / 2, sixth: l / 6,
			row: row, halfRow: row / 2,
			faceHalf: base / 2, faceB: inv * base, faceC: inv * base / 2,
		}
	}
	return g
}()

func (g *isea3hGrid) point(face int, x, y float64) faceCoord {
	if g.swapped {
		return faceCoord{face, y, x}
	}
	return faceCoord{face, x, y}
}

// snap is the centre of the lattice's hexagon holding c.
func (g *isea3hGrid) snap(c faceCoord) faceCoord {
	x, y := c.x, c.y
	if g.swapped {
		x, y = y, x
	}
	nx := int(javaRound(x / g.half))
	cx := float64(nx) * g.half
	odd := nx%2 != 0
	if math.Abs(x-cx) <= g.sixth {
		// Within the column of centres at cx: the nearest row.
		off := 0.0
		if odd {
			off = g.halfRow
		}
		ny := javaRound((y - off) / g.row)
		return g.point(c.face, cx, ny*g.row+off)
	}
	// Between two columns: the nearer of the candidates in each.
	y1 := javaRound(y/g.row) * g.row
	y2 := javaRound((y-g.halfRow)/g.row)*g.row + g.halfRow
	first, second := y1, y2
	if odd {
		first, second = y2, y1
	}
	nextX := cx - g.half
	if x > cx {
		nextX = cx + g.half
	}
	a := g.point(c.face, cx, first)
	b := g.point(c.face, nextX, second)
	if dist(c, a) < dist(c, b) {
		return a
	}
	return b
}

func dist(a, b faceCoord) float64 { return math.Sqrt(sq(a.x-b.x) + sq(a.y-b.y)) }

func sq(v float64) float64 { return v * v }

// pentagon reports whether the centre c is one of the icosahedron's
// vertices, whose cells are the grid's twelve pentagons.
func (g *isea3hGrid) pentagon(c faceCoord) bool {
	d := upright(c.face)
	return (math.Abs(math.Abs(c.x)-g.faceHalf) < iseaPrec && math.Abs(c.y+d*g.faceC) < iseaPrec) ||
		(math.Abs(c.x) < iseaPrec && math.Abs(c.y-d*g.faceB) < iseaPrec)
}

// isea3hID encodes a cell as geogrid's non-adaptive identifier (six
// decimals of latitude and longitude).
func isea3hID(resolution int, lat, lon float64, pentagon bool) int64 {
	if lat < -90+iseaPoleBand || lat > 90-iseaPoleBand {
		lon = 0
	}
	lon = normLon(lon)
	const eps = 0.5e-6
	code := int64(resolution)
	if lat <= -eps {
		code += 22
	}
	if lon <= -eps && 180-math.Abs(lon) >= eps {
		code += 44
	}
	latDigits := int64(math.Abs(javaRound((lat + iseaPrec) * 1e6)))
	lonDigits := int64(math.Abs(javaRound((lon + iseaPrec) * 1e6)))
	id := code*100_000_000_000_000_000 + latDigits*1_000_000_000 + lonDigits
	if pentagon {
		return -id
	}
	return id
}
