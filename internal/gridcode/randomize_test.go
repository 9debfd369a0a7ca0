package gridcode

import (
	"math"
	"testing"
)

func dms(d, m, s float64) float64 { return math.Copysign(math.Abs(d)+m/60+s/3600, d) }

// Vincenty (1975)'s and Geoscience Australia's worked example: Flinders Peak
// to Buninyong on GRS80 (the same as WGS84 to 0.1 mm here).
func TestGeodesicDestinationFlindersPeak(t *testing.T) {
	lat, lon := geodesicDestination(dms(-37, 57, 3.72030), dms(144, 25, 29.52440), dms(306, 52, 5.37), 54972.271)
	wantLat, wantLon := dms(-37, 39, 10.15610), dms(143, 55, 35.38390)
	if math.Abs(lat-wantLat) > 1e-7 || math.Abs(lon-wantLon) > 1e-7 {
		t.Errorf("destination = %.8f, %.8f; want %.8f, %.8f", lat, lon, wantLat, wantLon)
	}
}

func TestGeodesicDestinationEdges(t *testing.T) {
	for _, c := range []struct {
		name                       string
		lat, lon, az, dist         float64
		wantLat, wantLon, tolerDeg float64
	}{
		{"east across the anti-meridian", 0, 179.99, 90, 2226.4, 0, -179.99, 1e-4},
		{"west across the anti-meridian", 0, -179.99, 270, 2226.4, 0, 179.99, 1e-4},
		{"a quarter meridian north from the equator", 0, 10, 0, 10001965.729, 90, 10, 1e-6},
		{"half the equator east", 0, 0, 90, math.Pi * wgs84A, 0, 180, 1e-6},
		{"zero distance", 45, 45, 123, 0, 45, 45, 0},
	} {
		lat, lon := geodesicDestination(c.lat, c.lon, c.az, c.dist)
		dLon := math.Abs(lon - c.wantLon)
		dLon = math.Min(dLon, 360-dLon)
		if math.Abs(lat-c.wantLat) > c.tolerDeg || dLon > c.tolerDeg && math.Abs(c.wantLat) != 90 {
			t.Errorf("%s: %.8f, %.8f; want %.8f, %.8f", c.name, lat, lon, c.wantLat, c.wantLon)
		}
		if lat < -90 || lat > 90 || lon < -180 || lon > 180 {
			t.Errorf("%s: %v, %v out of range", c.name, lat, lon)
		}
	}
}

// As GBIF's RandomizeCoordinateTest.basicTest: zero uncertainty keeps the
// point; 110 km around 0°, 0° stays within a degree and fills the four
// quadrants evenly.
func TestRandomize(t *testing.T) {
	if lat, lon := Randomize(55.5, 12, 0, seeded(1)); lat != 55.5 || lon != 12 {
		t.Errorf("Randomize with 0 m moved the point to %v, %v", lat, lon)
	}
	if lat, lon := Randomize(55.5, 12, math.NaN(), nil); lat != 55.5 || lon != 12 {
		t.Errorf("Randomize with NaN moved the point to %v, %v", lat, lon)
	}
	if lat, lon := Randomize(55.5, 12, -5, nil); lat != 55.5 || lon != 12 {
		t.Errorf("Randomize with -5 m moved the point to %v, %v", lat, lon)
	}
	var quads [4]int
	rnd := seeded(42)
	for range 40_000 {
		lat, lon := Randomize(0, 0, 110_000, rnd)
		if math.Hypot(lat, lon) >= 1 {
			t.Fatalf("moved to %v, %v: further than 110 km", lat, lon)
		}
		q := 0
		if lon > 0 {
			q++
		}
		if lat > 0 {
			q += 2
		}
		quads[q]++
	}
	for q, n := range quads {
		if n < 9000 || n > 11000 {
			t.Errorf("quadrant %d has %d of 40000 points; want about 10000", q, n)
		}
	}
	// Area-uniform: about a quarter of the points lie within half the radius.
	inner := 0
	for range 40_000 {
		lat, lon := Randomize(0, 0, 110_000, rnd)
		if math.Hypot(lat*110.574, lon*111.320) < 55 { // km per degree at the equator
			inner++
		}
	}
	if inner < 9000 || inner > 11000 {
		t.Errorf("%d of 40000 points within half the radius; want about 10000", inner)
	}
}

func TestRandomizeDeterministic(t *testing.T) {
	a1, b1 := Randomize(10, 20, 5000, seeded(3))
	a2, b2 := Randomize(10, 20, 5000, seeded(3))
	if a1 != a2 || b1 != b2 {
		t.Errorf("same seed, different points: %v,%v and %v,%v", a1, b1, a2, b2)
	}
}
