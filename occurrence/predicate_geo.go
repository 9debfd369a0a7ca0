package occurrence

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Geometry follows GBIF's WKT rules (gbif-api SearchTypeValidator): POLYGON,
// MULTIPOLYGON, POINT or LINESTRING in WGS84 lon/lat; for polygons closed
// rings, exterior rings counter-clockwise and holes clockwise, non-zero
// area, no self-intersection; a LINESTRING has two distinct points at
// least. A ring or line with an edge spanning more than 180 degrees of
// longitude crosses the anti-meridian (spatial4j's rule): it is unwrapped
// past +-180 and a record's longitude is tested as lon, lon+360 and
// lon-360. A record lies within a POINT when its coordinates are the
// point's, and within a LINESTRING when they lie on one of its segments,
// exactly, as GBIF's JTS test of a download decides (its search index
// rounds coordinates to about a centimetre first).

type ring struct {
	xs, ys                 []float64 // lon, lat; closed: last point equals first
	minX, maxX, minY, maxY float64
}

type polygon struct {
	shell ring
	holes []ring
	bands *bandIndex // edges by latitude band, for Eval
}

type geometry struct {
	polys []polygon
	// paths are a POINT (one vertex) or a LINESTRING, unwrapped as rings
	// are; a record matches on a vertex or a segment.
	paths                  []ring
	points                 int
	minX, maxX, minY, maxY float64
}

// wktLexer splits WKT into words, numbers and punctuation.
type wktLexer struct {
	s   string
	pos int
}

func (l *wktLexer) next() string {
	for l.pos < len(l.s) && strings.ContainsRune(" \t\r\n", rune(l.s[l.pos])) {
		l.pos++
	}
	if l.pos >= len(l.s) {
		return ""
	}
	start := l.pos
	if c := l.s[l.pos]; c == '(' || c == ')' || c == ',' {
		l.pos++
		return l.s[start:l.pos]
	}
	for l.pos < len(l.s) && !strings.ContainsRune(" \t\r\n(),", rune(l.s[l.pos])) {
		l.pos++
	}
	return l.s[start:l.pos]
}

func (l *wktLexer) expect(tok string) error {
	if t := l.next(); t != tok {
		if t == "" {
			return fmt.Errorf("unexpected end of WKT, want %q", tok)
		}
		return fmt.Errorf("unexpected %q at offset %d, want %q", t, l.pos-len(t), tok)
	}
	return nil
}

// parseWKT parses and validates a POLYGON or MULTIPOLYGON with at most
// maxPoints coordinates.
func parseWKT(s string, maxPoints int) (*geometry, error) {
	l := &wktLexer{s: s}
	kind := strings.ToUpper(l.next())
	g := &geometry{}
	var err error
	switch kind {
	case "POLYGON":
		var rings [][][2]float64
		if rings, err = parseRings(l); err == nil {
			err = g.add(rings)
		}
	case "MULTIPOLYGON":
		err = parseMulti(l, g)
	case "POINT", "LINESTRING":
		var pts [][2]float64
		if pts, err = parseCoords(l); err == nil {
			err = g.addPath(kind, pts)
		}
	case "":
		return nil, fmt.Errorf("empty geometry")
	default:
		return nil, fmt.Errorf("unsupported WKT type %s (POLYGON, MULTIPOLYGON, POINT or LINESTRING)", kind)
	}
	if err != nil {
		return nil, err
	}
	if t := l.next(); t != "" {
		return nil, fmt.Errorf("unexpected %q after the geometry", t)
	}
	if g.points > maxPoints {
		return nil, &pointsError{got: g.points, limit: maxPoints}
	}
	if err := g.validate(); err != nil {
		return nil, err
	}
	g.index()
	return g, nil
}

// pointsError is a geometry with more points than allowed.
type pointsError struct{ got, limit int }

func (e *pointsError) Error() string {
	return fmt.Sprintf("%d polygon points, over the limit of %d (%s)", e.got, e.limit, RulePolygonPoints)
}

func parseMulti(l *wktLexer, g *geometry) error {
	if err := l.expect("("); err != nil {
		return err
	}
	for {
		rings, err := parseRings(l)
		if err != nil {
			return err
		}
		if err := g.add(rings); err != nil {
			return err
		}
		switch t := l.next(); t {
		case ",":
		case ")":
			return nil
		default:
			return fmt.Errorf("unexpected %q in MULTIPOLYGON", t)
		}
	}
}

func parseRings(l *wktLexer) ([][][2]float64, error) {
	if err := l.expect("("); err != nil {
		return nil, err
	}
	var rings [][][2]float64
	for {
		pts, err := parseCoords(l)
		if err != nil {
			return nil, err
		}
		rings = append(rings, pts)
		t := l.next()
		if t == ")" {
			return rings, nil
		}
		if t != "," {
			return nil, fmt.Errorf("unexpected %q between rings", t)
		}
	}
}

// parseCoords reads a parenthesized list of lon lat coordinates.
func parseCoords(l *wktLexer) ([][2]float64, error) {
	if err := l.expect("("); err != nil {
		return nil, err
	}
	var pts [][2]float64
	for {
		x, y := l.next(), l.next()
		fx, err1 := strconv.ParseFloat(x, 64)
		fy, err2 := strconv.ParseFloat(y, 64)
		if err1 != nil || err2 != nil || math.IsNaN(fx) || math.IsNaN(fy) || math.IsInf(fx, 0) || math.IsInf(fy, 0) {
			return nil, fmt.Errorf("bad coordinate %q %q (want lon lat)", x, y)
		}
		pts = append(pts, [2]float64{fx, fy})
		t := l.next()
		if t == ")" {
			return pts, nil
		}
		if t != "," {
			return nil, fmt.Errorf("unexpected %q after a coordinate (only 2D lon lat points)", t)
		}
		if len(pts) > 1<<20 {
			return nil, fmt.Errorf("%w: a coordinate list of more than %d points", ErrPredicateTooComplex, 1<<20)
		}
	}
}

// addPath adds a POINT (one coordinate) or a LINESTRING (two distinct
// points at least, JTS's rule for a valid line).
func (g *geometry) addPath(kind string, pts [][2]float64) error {
	g.points += len(pts)
	switch {
	case kind == "POINT" && len(pts) != 1:
		return fmt.Errorf("a POINT has one coordinate, this one %d", len(pts))
	case kind == "LINESTRING" && !distinctPoints(pts):
		return fmt.Errorf("a LINESTRING needs at least 2 distinct points")
	}
	r, err := unwrapped(pts)
	if err != nil {
		return err
	}
	g.paths = append(g.paths, r)
	return nil
}

func distinctPoints(pts [][2]float64) bool {
	for _, p := range pts[1:] {
		if p != pts[0] {
			return true
		}
	}
	return false
}

func (g *geometry) add(rings [][][2]float64) error {
	var p polygon
	for i, pts := range rings {
		g.points += len(pts)
		r, err := newRing(pts)
		if err != nil {
			return fmt.Errorf("polygon %d ring %d: %w", len(g.polys)+1, i+1, err)
		}
		if i == 0 {
			p.shell = r
		} else {
			p.holes = append(p.holes, r)
		}
	}
	g.polys = append(g.polys, p)
	return nil
}

func newRing(pts [][2]float64) (ring, error) {
	n := len(pts)
	if n < 4 {
		return ring{}, fmt.Errorf("a ring needs at least 4 points, has %d", n)
	}
	if pts[0] != pts[n-1] {
		return ring{}, fmt.Errorf("ring is not closed (first point %g %g, last %g %g)", pts[0][0], pts[0][1], pts[n-1][0], pts[n-1][1])
	}
	r, err := unwrapped(pts)
	if err != nil {
		return ring{}, err
	}
	if math.Abs(r.xs[n-1]-r.xs[0]) > 1e-9 {
		return ring{}, fmt.Errorf("ring winds around the globe")
	}
	r.xs[n-1] = r.xs[0]
	r.bbox()
	if r.maxX-r.minX > 360 {
		return ring{}, fmt.Errorf("ring spans more than 360 degrees of longitude")
	}
	return r, nil
}

// unwrapped checks pts' range and makes a ring of them, each point's
// longitude moved by 360 degrees until it lies within 180 of the one
// before (an edge crossing the anti-meridian), with its bounding box.
func unwrapped(pts [][2]float64) (ring, error) {
	r := ring{xs: make([]float64, len(pts)), ys: make([]float64, len(pts))}
	for i, p := range pts {
		if p[1] < -90 || p[1] > 90 || p[0] < -360 || p[0] > 360 {
			return ring{}, fmt.Errorf("point %g %g out of range (lon lat)", p[0], p[1])
		}
		x := p[0]
		if i > 0 { // unwrap across the anti-meridian
			for x-r.xs[i-1] > 180 {
				x -= 360
			}
			for x-r.xs[i-1] < -180 {
				x += 360
			}
		}
		r.xs[i], r.ys[i] = x, p[1]
	}
	r.bbox()
	r.inRange()
	return r, nil
}

// inRange shifts a ring lying wholly past +-180 back by 360 degrees.
func (r *ring) inRange() {
	if r.minX >= 180 {
		r.shift(-360)
	} else if r.maxX <= -180 {
		r.shift(360)
	}
}

func (r *ring) bbox() {
	r.minX, r.maxX, r.minY, r.maxY = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range r.xs {
		r.minX, r.maxX = math.Min(r.minX, r.xs[i]), math.Max(r.maxX, r.xs[i])
		r.minY, r.maxY = math.Min(r.minY, r.ys[i]), math.Max(r.maxY, r.ys[i])
	}
}

func (r *ring) shift(dx float64) {
	for i := range r.xs {
		r.xs[i] += dx
	}
	r.minX += dx
	r.maxX += dx
}

// signedArea is positive for counter-clockwise rings.
func (r *ring) signedArea() float64 {
	a := 0.0
	for i := 0; i+1 < len(r.xs); i++ {
		a += r.xs[i]*r.ys[i+1] - r.xs[i+1]*r.ys[i]
	}
	return a / 2
}

func (r *ring) reversedWKT() string {
	var b strings.Builder
	b.WriteString("(")
	for i := len(r.xs) - 1; i >= 0; i-- {
		if i < len(r.xs)-1 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", strconv.FormatFloat(r.xs[i], 'f', -1, 64), strconv.FormatFloat(r.ys[i], 'f', -1, 64))
	}
	b.WriteString(")")
	return b.String()
}

func (g *geometry) validate() error {
	g.minX, g.maxX, g.minY, g.maxY = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	var all []*ring
	for pi := range g.polys {
		all = append(all, &g.polys[pi].shell)
		for hi := range g.polys[pi].holes {
			all = append(all, &g.polys[pi].holes[hi])
		}
	}
	if err := checkIntersections(all); err != nil {
		return err
	}
	for pi := range g.polys {
		p := &g.polys[pi]
		if a := p.shell.signedArea(); a == 0 {
			return fmt.Errorf("polygon %d has zero area", pi+1)
		} else if a < 0 {
			return fmt.Errorf("polygon %d: exterior ring is clockwise; GBIF requires counter-clockwise, did you mean %s?", pi+1, p.shell.reversedWKT())
		}
		for hi := range p.holes {
			h := &p.holes[hi]
			if a := h.signedArea(); a == 0 {
				return fmt.Errorf("polygon %d hole %d has zero area", pi+1, hi+1)
			} else if a > 0 {
				return fmt.Errorf("polygon %d: hole %d is counter-clockwise; GBIF requires clockwise holes, did you mean %s?", pi+1, hi+1, h.reversedWKT())
			}
			if !ringContains(&p.shell, h.xs[0], h.ys[0]) {
				return fmt.Errorf("polygon %d: hole %d lies outside the exterior ring", pi+1, hi+1)
			}
		}
		g.minX, g.maxX = math.Min(g.minX, p.shell.minX), math.Max(g.maxX, p.shell.maxX)
		g.minY, g.maxY = math.Min(g.minY, p.shell.minY), math.Max(g.maxY, p.shell.maxY)
	}
	for i := range g.paths {
		r := &g.paths[i]
		g.minX, g.maxX = math.Min(g.minX, r.minX), math.Max(g.maxX, r.maxX)
		g.minY, g.maxY = math.Min(g.minY, r.minY), math.Max(g.maxY, r.maxY)
	}
	for i := range g.polys {
		for j := range g.polys {
			s := &g.polys[j].shell
			if i != j && ringContains(s, g.polys[i].shell.xs[0], g.polys[i].shell.ys[0]) {
				return fmt.Errorf("polygons %d and %d of the MULTIPOLYGON overlap", j+1, i+1)
			}
		}
	}
	return nil
}

// collinearOverlap reports adjacent segments that fold back onto each other.
func collinearOverlap(r *ring, i, j int) bool {
	ax, ay, bx, by := r.xs[i], r.ys[i], r.xs[i+1], r.ys[i+1]
	cx, cy, dx, dy := r.xs[j], r.ys[j], r.xs[j+1], r.ys[j+1]
	if orient(ax, ay, bx, by, cx, cy) != 0 || orient(ax, ay, bx, by, dx, dy) != 0 {
		return false
	}
	// Collinear: they overlap if the non-shared endpoints lie on the same side.
	var sx, sy, p1x, p1y, p2x, p2y float64
	switch {
	case bx == cx && by == cy:
		sx, sy, p1x, p1y, p2x, p2y = bx, by, ax, ay, dx, dy
	case ax == dx && ay == dy:
		sx, sy, p1x, p1y, p2x, p2y = ax, ay, bx, by, cx, cy
	default:
		return false
	}
	return (p1x-sx)*(p2x-sx)+(p1y-sy)*(p2y-sy) > 0
}

// segment is one edge of a ring, for the intersection sweep.
type segment struct {
	ring, i    int
	minY, maxY float64
}

// checkIntersections rejects rings that cross themselves or each other. A
// sweep over edges sorted by lower latitude only pairs edges whose latitude
// spans overlap.
func checkIntersections(rings []*ring) error {
	var segs []segment
	for ri, r := range rings {
		for i := 0; i+1 < len(r.xs); i++ {
			segs = append(segs, segment{ri, i, math.Min(r.ys[i], r.ys[i+1]), math.Max(r.ys[i], r.ys[i+1])})
		}
	}
	sort.Slice(segs, func(a, b int) bool { return segs[a].minY < segs[b].minY })
	for a := range segs {
		sa := segs[a]
		ra := rings[sa.ring]
		for b := a + 1; b < len(segs) && segs[b].minY <= sa.maxY; b++ {
			sb := segs[b]
			rb := rings[sb.ring]
			i, j := sa.i, sb.i
			if sa.ring == sb.ring {
				n := len(ra.xs) - 1
				if i > j {
					i, j = j, i
				}
				if j == i+1 || (i == 0 && j == n-1) {
					if collinearOverlap(ra, i, j) {
						return fmt.Errorf("ring %d intersects itself", sa.ring+1)
					}
					continue // adjacent edges share a point
				}
			}
			if segmentsIntersect(ra.xs[sa.i], ra.ys[sa.i], ra.xs[sa.i+1], ra.ys[sa.i+1], rb.xs[sb.i], rb.ys[sb.i], rb.xs[sb.i+1], rb.ys[sb.i+1]) {
				if sa.ring == sb.ring {
					return fmt.Errorf("ring %d intersects itself", sa.ring+1)
				}
				return fmt.Errorf("rings %d and %d intersect each other", min(sa.ring, sb.ring)+1, max(sa.ring, sb.ring)+1)
			}
		}
	}
	return nil
}

func orient(ax, ay, bx, by, cx, cy float64) int {
	v := (bx-ax)*(cy-ay) - (by-ay)*(cx-ax)
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

func onSegment(ax, ay, bx, by, px, py float64) bool {
	return math.Min(ax, bx) <= px && px <= math.Max(ax, bx) && math.Min(ay, by) <= py && py <= math.Max(ay, by)
}

// segmentsIntersect reports whether segments ab and cd share any point.
func segmentsIntersect(ax, ay, bx, by, cx, cy, dx, dy float64) bool {
	if math.Max(ax, bx) < math.Min(cx, dx) || math.Max(cx, dx) < math.Min(ax, bx) ||
		math.Max(ay, by) < math.Min(cy, dy) || math.Max(cy, dy) < math.Min(ay, by) {
		return false
	}
	o1, o2 := orient(ax, ay, bx, by, cx, cy), orient(ax, ay, bx, by, dx, dy)
	o3, o4 := orient(cx, cy, dx, dy, ax, ay), orient(cx, cy, dx, dy, bx, by)
	if o1 != o2 && o3 != o4 {
		return true
	}
	return (o1 == 0 && onSegment(ax, ay, bx, by, cx, cy)) || (o2 == 0 && onSegment(ax, ay, bx, by, dx, dy)) ||
		(o3 == 0 && onSegment(cx, cy, dx, dy, ax, ay)) || (o4 == 0 && onSegment(cx, cy, dx, dy, bx, by))
}

// ringContains is the even-odd ray test over every edge: the reference
// (MatchRow) implementation.
func ringContains(r *ring, x, y float64) bool {
	in := false
	for i := 0; i+1 < len(r.xs); i++ {
		if crosses(r.xs[i], r.ys[i], r.xs[i+1], r.ys[i+1], x, y) {
			in = !in
		}
	}
	return in
}

// crosses reports whether edge (x1,y1)-(x2,y2) crosses the ray from (x,y)
// towards +x. The test is exactly the same in both evaluators.
func crosses(x1, y1, x2, y2, x, y float64) bool {
	if (y1 > y) == (y2 > y) {
		return false
	}
	return x < (x2-x1)*(y-y1)/(y2-y1)+x1
}

// onEdge reports whether (px,py) lies on the segment a-b.
func onEdge(ax, ay, bx, by, px, py float64) bool {
	return onSegment(ax, ay, bx, by, px, py) && orient(ax, ay, bx, by, px, py) == 0
}

// onRing reports whether (x,y) lies on an edge of r.
func onRing(r *ring, x, y float64) bool {
	for i := 0; i+1 < len(r.xs); i++ {
		if onEdge(r.xs[i], r.ys[i], r.xs[i+1], r.ys[i+1], x, y) {
			return true
		}
	}
	return false
}

// onPath reports whether (x,y) is a POINT's coordinate or lies on a
// LINESTRING's segment.
func onPath(r *ring, x, y float64) bool {
	if len(r.xs) == 1 {
		return r.xs[0] == x && r.ys[0] == y
	}
	return onRing(r, x, y)
}

// containsSimple is the reference point-in-geometry test. A point on the
// boundary of a polygon (its shell or a hole's edge) matches: GBIF tests
// that the geometry intersects the point.
func (g *geometry) containsSimple(lat, lon float64) bool {
	for _, x := range [3]float64{lon, lon + 360, lon - 360} {
		for i := range g.paths {
			if onPath(&g.paths[i], x, lat) {
				return true
			}
		}
		for i := range g.polys {
			p := &g.polys[i]
			if onRing(&p.shell, x, lat) {
				return true
			}
			for h := range p.holes {
				if onRing(&p.holes[h], x, lat) {
					return true
				}
			}
			if !ringContains(&p.shell, x, lat) {
				continue
			}
			inHole := false
			for h := range p.holes {
				if ringContains(&p.holes[h], x, lat) {
					inHole = true
					break
				}
			}
			if !inHole {
				return true
			}
		}
	}
	return false
}

// Earth's mean radius in metres, as Elasticsearch's geo_distance uses.
const earthRadius = 6371008.7714

type circle struct {
	lat, lon, meters float64
	latDeg           float64 // bound on |lat - lat0| in degrees for a match
}

var distanceUnits = map[string]float64{
	"": 1, "m": 1, "meters": 1, "km": 1000, "kilometers": 1000, "cm": 0.01, "mm": 0.001,
	"mi": 1609.344, "miles": 1609.344, "yd": 0.9144, "yards": 0.9144, "ft": 0.3048, "feet": 0.3048,
	"in": 0.0254, "inch": 0.0254, "nmi": 1852, "nm": 1852, "nauticalmiles": 1852,
}

func newCircle(lat, lon float64, dist string) (*circle, error) {
	if lat < -90 || lat > 90 || math.IsNaN(lat) {
		return nil, fmt.Errorf("latitude %g out of range -90..90", lat)
	}
	if lon < -180 || lon > 180 || math.IsNaN(lon) {
		return nil, fmt.Errorf("longitude %g out of range -180..180", lon)
	}
	d := strings.TrimSpace(dist)
	i := 0
	for i < len(d) && (d[i] >= '0' && d[i] <= '9' || d[i] == '.') {
		i++
	}
	f, err := strconv.ParseFloat(d[:i], 64)
	unit, ok := distanceUnits[strings.ToLower(strings.TrimSpace(d[i:]))]
	if err != nil || !ok || f <= 0 || math.IsInf(f, 0) {
		return nil, fmt.Errorf("distance %q is not a positive number with a unit (m, km, mi, yd, ft, nmi)", dist)
	}
	m := f * unit
	return &circle{lat: lat, lon: lon, meters: m, latDeg: m/earthRadius*180/math.Pi*(1+1e-9) + 1e-9}, nil
}

// haversine returns the great-circle distance in metres.
func haversine(lat1, lon1, lat2, lon2 float64) float64 {
	const rad = math.Pi / 180
	dLat := (lat2 - lat1) * rad
	dLon := (lon2 - lon1) * rad
	a := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthRadius * math.Asin(math.Min(1, math.Sqrt(a)))
}

func (c *circle) contains(lat, lon float64) bool {
	return haversine(c.lat, c.lon, lat, lon) <= c.meters
}
