package occurrence

import "math"

// bandIndex buckets a polygon's edges by latitude band so the ray test of a
// point only visits edges whose latitude span can contain the point's. An
// edge is listed in every band from that of its lower to that of its upper
// latitude; band() is monotone, so an edge that crosses the ray at y is always
// in band(y) and the result equals the full scan's.
type bandIndex struct {
	y0, scale float64
	n         int
	// edges of band b are edges[start[b]:start[b+1]].
	start []int32
	rings []*ring
	edges []edgeRef
}

// edgeRef names the edge from point i to i+1 of rings[ring].
type edgeRef struct {
	ring int32
	i    int32
}

func (g *geometry) index() {
	for i := range g.polys {
		p := &g.polys[i]
		rings := []*ring{&p.shell}
		for h := range p.holes {
			rings = append(rings, &p.holes[h])
		}
		p.bands = newBandIndex(rings, p.shell.minY, p.shell.maxY)
	}
}

func newBandIndex(rings []*ring, minY, maxY float64) *bandIndex {
	edges := 0
	for _, r := range rings {
		edges += len(r.xs) - 1
	}
	n := edges
	if n > 1024 {
		n = 1024
	}
	if n < 1 {
		n = 1
	}
	b := &bandIndex{y0: minY, n: n, rings: rings}
	if maxY > minY {
		b.scale = float64(n) / (maxY - minY)
	}
	counts := make([]int32, n+1)
	each := func(f func(band int, e edgeRef)) {
		for ri, r := range rings {
			for i := 0; i+1 < len(r.xs); i++ {
				lo, hi := b.band(math.Min(r.ys[i], r.ys[i+1])), b.band(math.Max(r.ys[i], r.ys[i+1]))
				for k := lo; k <= hi; k++ {
					f(k, edgeRef{int32(ri), int32(i)})
				}
			}
		}
	}
	each(func(k int, _ edgeRef) { counts[k+1]++ })
	for k := 1; k <= n; k++ {
		counts[k] += counts[k-1]
	}
	b.start = counts
	b.edges = make([]edgeRef, counts[n])
	fill := make([]int32, n)
	copy(fill, counts[:n])
	each(func(k int, e edgeRef) { b.edges[fill[k]] = e; fill[k]++ })
	return b
}

func (b *bandIndex) band(y float64) int {
	k := int((y - b.y0) * b.scale)
	if k < 0 {
		return 0
	}
	if k >= b.n {
		return b.n - 1
	}
	return k
}

// contains reports whether (x,y) is inside the shell and outside every hole,
// by even-odd parity per ring over the band's edges, or on any ring's edge
// (the boundary belongs to the polygon, as in containsSimple).
func (b *bandIndex) contains(x, y float64, parity []bool) bool {
	for i := range parity {
		parity[i] = false
	}
	k := b.band(y)
	for _, e := range b.edges[b.start[k]:b.start[k+1]] {
		r := b.rings[e.ring]
		i := e.i
		if onEdge(r.xs[i], r.ys[i], r.xs[i+1], r.ys[i+1], x, y) {
			return true
		}
		if crosses(r.xs[i], r.ys[i], r.xs[i+1], r.ys[i+1], x, y) {
			parity[e.ring] = !parity[e.ring]
		}
	}
	if !parity[0] {
		return false
	}
	for _, in := range parity[1:] {
		if in {
			return false
		}
	}
	return true
}

const bboxSlack = 1e-6

// containsFast is Eval's point-in-geometry test: bounding boxes, then bands.
func (g *geometry) containsFast(lat, lon float64, parity []bool) bool {
	if lat < g.minY || lat > g.maxY {
		return false
	}
	for _, x := range [3]float64{lon, lon + 360, lon - 360} {
		// The x bounds are widened by bboxSlack: the crossing formula may round
		// an intersection an ulp outside the ring's bounding box.
		if x < g.minX-bboxSlack || x > g.maxX+bboxSlack {
			continue
		}
		for i := range g.paths {
			r := &g.paths[i]
			if x >= r.minX && x <= r.maxX && lat >= r.minY && lat <= r.maxY && onPath(r, x, lat) {
				return true
			}
		}
		for i := range g.polys {
			p := &g.polys[i]
			s := &p.shell
			if x < s.minX-bboxSlack || x > s.maxX+bboxSlack || lat < s.minY || lat > s.maxY {
				continue
			}
			if p.bands.contains(x, lat, parity[:len(p.bands.rings)]) {
				return true
			}
		}
	}
	return false
}

func (g *geometry) maxRings() int {
	m := 0
	for i := range g.polys {
		if k := 1 + len(g.polys[i].holes); k > m {
			m = k
		}
	}
	return m
}
