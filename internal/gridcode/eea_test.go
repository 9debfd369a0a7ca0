package gridcode

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// IOGP Guidance Note 7-2, worked example for EPSG method 9820 on EPSG:3035:
// 50°N 5°E is E 3 962 799.45 m, N 2 999 718.85 m.
func TestLAEAProjectionIOGPExample(t *testing.T) {
	x, y, ok := etrs89LAEA.forward(50, 5)
	if !ok || math.Abs(x-3962799.45) > 0.01 || math.Abs(y-2999718.85) > 0.01 {
		t.Errorf("forward(50, 5) = %.3f, %.3f, %v; want 3962799.45, 2999718.85", x, y, ok)
	}
	x, y, ok = etrs89LAEA.forward(52, 10)
	if !ok || math.Abs(x-4321000) > 1e-6 || math.Abs(y-3210000) > 1e-6 {
		t.Errorf("forward(centre) = %f, %f, %v; want the false origin", x, y, ok)
	}
	if _, _, ok := etrs89LAEA.forward(-52, -170); ok {
		t.Error("forward(antipode) is ok; want undefined")
	}
}

// GBIF's vectors: EeaCellCodeTest in gbif/occurrence-cube,
// cube-functions/src/test/java/org/gbif/occurrence/cube/functions/.
func TestEEAGBIFVectors(t *testing.T) {
	const ref = "EeaCellCodeTest.basicTest"
	lat, lon := 47.168611, 9.508333 // Schaan-Vaduz railway station
	checkGrid(t, "EEA", EEA, []gridCase{
		{100_000, lat, lon, 0, "100kmE42N26", ref},
		{10_000, lat, lon, 0, "10kmE428N267", ref},
		{1_000, lat, lon, 0, "1kmE4283N2672", ref},
		{100, lat, lon, 0, "100mE42836N26729", ref},
		{10, lat, lon, 0, "10mE428369N267290", ref},
		{1, lat, lon, 0, "1mE4283694N2672906", ref},
		{50_000, lat, lon, 0, "50kmE425N265", ref},
		{250, lat, lon, 0, "250mE428350N267275", ref},
		{25, lat, lon, 0, "25mE4283675N2672900", ref},
		{1_303, lat, lon, 0, "1303mE4282961N2672453", ref},
		{100_000, 54.176, -6.349, 0, "100kmE32N35", ref}, // Newry, from the EEA specification
		{1_000, 54.176, -6.349, 0, "1kmE3263N3572", ref},
		{1, math.NaN(), 10, 0, "", "EeaCellCodeTest.nullArgumentTest"},
		{1, 52, math.NaN(), 0, "", "EeaCellCodeTest.nullArgumentTest"},
		{1, 52, 10, math.NaN(), "", "EeaCellCodeTest.nullArgumentTest"},
		{1, 91, 10, 0, "", "EeaCellCodeTest.illegalArgumentTests"},
		{1, 52, 181, 0, "", "EeaCellCodeTest.illegalArgumentTests"},
		{1, 29.3235947, -14.9412539, 0, "", "EeaCellCodeTest.beyondExtentTest"},
		{1, 65.9889821, 95.3766984, 0, "", "EeaCellCodeTest.beyondExtentTest"},
	})
}

func TestEEAEdges(t *testing.T) {
	checkGrid(t, "EEA", EEA, []gridCase{
		{1_000, 52, 10, 0, "1kmE4321N3210", "the projection's centre, GBIF's documented example"},
		{200_000, 52, 10, 0, "200kmE42N32", "multiple-of-ten sizes keep km and their digits"},
		{20, 52, 10, 0, "20mE432100N321000", "20 m"},
		{1_000, 90, 0, 0, "", "north pole is outside the extent"},
		{1_000, -52, -170, 0, "", "antipode of the centre"},
		{1_000, 52, 10, math.Inf(1), "", "infinite uncertainty"},
	})
}

// GBIF's vectors: EuroStatCellCodeTest in gbif/occurrence-cube.
func TestEuroStatGBIFVectors(t *testing.T) {
	const ref = "EuroStatCellCodeTest.basicTest"
	lat, lon := 47.168611, 9.508333
	checkGrid(t, "EuroStat", EuroStat, []gridCase{
		{100_000, lat, lon, 0, "CRS3035RES100000mN2600000E4200000", ref},
		{50_000, lat, lon, 0, "CRS3035RES50000mN2650000E4250000", ref},
		{20_000, lat, lon, 0, "CRS3035RES20000mN2660000E4280000", ref},
		{10_000, lat, lon, 0, "CRS3035RES10000mN2670000E4280000", ref},
		{5_000, lat, lon, 0, "CRS3035RES5000mN2670000E4280000", ref},
		{2_000, lat, lon, 0, "CRS3035RES2000mN2672000E4282000", ref},
		{1_000, lat, lon, 0, "CRS3035RES1000mN2672000E4283000", ref},
		{500, lat, lon, 0, "CRS3035RES500mN2672500E4283500", ref},
		{200, lat, lon, 0, "CRS3035RES200mN2672800E4283600", ref},
		{100, lat, lon, 0, "CRS3035RES100mN2672900E4283600", ref},
		{50, lat, lon, 0, "CRS3035RES50mN2672900E4283650", ref},
		{20, lat, lon, 0, "CRS3035RES20mN2672900E4283680", ref},
		{10, lat, lon, 0, "CRS3035RES10mN2672900E4283690", ref},
		{5, lat, lon, 0, "CRS3035RES5mN2672905E4283690", ref},
		{2, lat, lon, 0, "CRS3035RES2mN2672906E4283694", ref},
		{1, lat, lon, 0, "CRS3035RES1mN2672906E4283694", ref},
		{250, lat, lon, 0, "CRS3035RES250mN2672750E4283500", ref},
		{25, lat, lon, 0, "CRS3035RES25mN2672900E4283675", ref},
		{1_303, lat, lon, 0, "CRS3035RES1303mN2672453E4282961", ref},
		{100_000, 54.894722, -2.936389, 0, "CRS3035RES100000mN3600000E3400000", ref}, // Carlisle
		{1_000, 54.894722, -2.936389, 0, "CRS3035RES1000mN3606000E3495000", ref},
		{100_000, -12.843056, 45.138333, 0, "CRS3035RES100000mN-2800000E8700000", ref}, // Mayotte
		{5_000, 14.6792, -60.9403, 0, "CRS3035RES5000mN2500000E-2665000", ref},         // Martinique
		{1, math.NaN(), 10, 0, "", "EuroStatCellCodeTest.nullArgumentTest"},
		{1, 52, math.NaN(), 0, "", "EuroStatCellCodeTest.nullArgumentTest"},
		{1, 52, 10, math.NaN(), "", "EuroStatCellCodeTest.nullArgumentTest"},
		{1, 91, 10, 0, "", "EuroStatCellCodeTest.illegalArgumentTests"},
		{1, 52, 181, 0, "", "EuroStatCellCodeTest.illegalArgumentTests"},
	})
}

func TestEuroStatEdges(t *testing.T) {
	// EuroStatCellCodeTest.beyondExtentTest only checks these do not fail.
	for lon := -180.0; lon < 180; lon += 10 {
		if _, ok, err := EuroStat(100_000, 50, lon, 0, nil); !ok || err != nil {
			t.Errorf("EuroStat(100000, 50, %v) = ok %v, err %v; want a code", lon, ok, err)
		}
	}
	checkGrid(t, "EuroStat", EuroStat, []gridCase{
		{100_000, 84.73, 40.18, 0, "CRS3035RES100000mN6800000E4600000", "EuroStatCellCodeTest.beyondExtentTest input (GBIF asserts only no failure; regression value)"},
		{1_000, -52, -170, 0, "", "antipode of the centre"},
	})
}

func TestLAEABadGridSize(t *testing.T) {
	// EeaCellCodeTest / EuroStatCellCodeTest.illegalArgumentTests: 0 and 1 000 000.
	for _, size := range []int{0, -1, 1_000_000, math.MaxInt} {
		for name, f := range map[string]func(int, float64, float64, float64, *rand.Rand) (string, bool, error){"GBIF_EEARGCode": EEA, "GBIF_EuroStatCode": EuroStat} {
			_, ok, err := f(size, 52, 10, 0, nil)
			var ae *ArgumentError
			if ok || !errors.As(err, &ae) || ae.Function != name {
				t.Errorf("%s(grid size %d) = ok %v, err %v; want an ArgumentError", name, size, ok, err)
			}
		}
	}
}

// The randomized point stays within the uncertainty disc: with 10 m cells
// and 15 m uncertainty, the cell moves by at most two cells either way.
func TestEEARandomizedStaysNear(t *testing.T) {
	rnd := seeded(7)
	seen := map[string]bool{}
	for range 2000 {
		code, ok, _ := EuroStat(10, 52, 10, 15, rnd)
		if !ok {
			t.Fatal("no code")
		}
		seen[code] = true
	}
	for code := range seen {
		var n, e int
		if _, err := fmt.Sscanf(code, "CRS3035RES10mN%dE%d", &n, &e); err != nil {
			t.Fatalf("%q: %v", code, err)
		}
		if n < 3209980 || n > 3210010 || e < 4320980 || e > 4321010 {
			t.Errorf("%q is further than 15 m from the point", code)
		}
	}
	if len(seen) < 9 {
		t.Errorf("only %d cells seen; randomization looks inactive", len(seen))
	}
}
