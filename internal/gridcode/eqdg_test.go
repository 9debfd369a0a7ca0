package gridcode

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// seeded returns a deterministic random source for tests.
func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

type gridCase struct {
	size      int
	lat, lon  float64
	u         float64
	want      string // "" with ok false: GBIF's NULL
	reference string // where the vector comes from
}

// checkGrid runs cases through f, with a fresh seeded source per case.
func checkGrid(t *testing.T, name string, f func(int, float64, float64, float64, *rand.Rand) (string, bool, error), cases []gridCase) {
	t.Helper()
	for _, c := range cases {
		got, ok, err := f(c.size, c.lat, c.lon, c.u, seeded(1))
		if err != nil {
			t.Errorf("%s(%d, %v, %v, %v): unexpected error %v", name, c.size, c.lat, c.lon, c.u, err)
			continue
		}
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s(%d, %v, %v, %v) = %q, %v; want %q (%s)", name, c.size, c.lat, c.lon, c.u, got, ok, c.want, c.reference)
		}
	}
}

// GBIF's vectors: ExtendedQuarterDegreeGridCellCodeTest.basicTest in
// gbif/occurrence-cube, cube-functions/src/test/java/org/gbif/occurrence/cube/functions/.
func TestEQDGGBIFVectors(t *testing.T) {
	const ref = "ExtendedQuarterDegreeGridCellCodeTest.basicTest"
	checkGrid(t, "EQDG", EQDG, []gridCase{
		{0, 52.0, 10.0, 0, "E010N52", ref},
		{0, -52.0, 10.0, 0, "E010S51", ref},
		{0, 52.0, -10.0, 0, "W009N52", ref},
		{0, -52.0, -10.0, 0, "W009S51", ref},
		{1, 52.3, 10.3, 0, "E010N52C", ref},
		{1, -52.3, 10.3, 0, "E010S52A", ref},
		{1, 52.3, -10.3, 0, "W010N52D", ref},
		{1, -52.3, -10.3, 0, "W010S52B", ref},
		{2, 52.3, 10.3, 0, "E010N52CB", ref},
		{2, -52.3, 10.3, 0, "E010S52AD", ref},
		{2, 52.3, -10.3, 0, "W010N52DA", ref},
		{2, -52.3, -10.3, 0, "W010S52BC", ref},
		{3, 52.3, 10.3, 0, "E010N52CBC", ref},
		{3, -52.3, 10.3, 0, "E010S52ADA", ref},
		{3, 52.3, -10.3, 0, "W010N52DAD", ref},
		{3, -52.3, -10.3, 0, "W010S52BCB", ref},
		{6, 52.3, 10.3, 0, "E010N52CBCCBB", ref},
		{0, 0.0, 0.0, 0, "E000N00", ref},
		{0, -0.1, -0.1, 0, "W000S00", ref},
		{1, 0.5, 0.5, 0, "E000N00B", ref},
		{6, 0.5, 0.5, 0, "E000N00BCCCCC", ref},
		{1, 0.5, -0.5, 0, "W000N00A", ref},
		{6, 0.5, -0.5, 0, "W000N00ADDDDD", ref},
		{1, -0.5, 0.5, 0, "E000S00D", ref},
		{6, -0.5, 0.5, 0, "E000S00DAAAAA", ref},
		{1, -0.5, -0.5, 0, "W000S00C", ref},
		{6, -0.5, -0.5, 0, "W000S00CBBBBB", ref},
		// Randomized within 1 km, but far enough from any edge.
		{2, 46.377106, 14.033383, 1000, "E014N46CA", ref},
		// nullArgumentTest: a NULL coordinate or uncertainty gives NULL.
		{1, math.NaN(), 10, 0, "", "ExtendedQuarterDegreeGridCellCodeTest.nullArgumentTest"},
		{1, 52, math.NaN(), 0, "", "ExtendedQuarterDegreeGridCellCodeTest.nullArgumentTest"},
		{1, 52, 10, math.NaN(), "", "ExtendedQuarterDegreeGridCellCodeTest.nullArgumentTest"},
		// illegalArgumentTests: GBIF throws beyond ±90°/±180°; NULL here.
		{1, 91, 10, 0, "", "ExtendedQuarterDegreeGridCellCodeTest.illegalArgumentTests"},
		{1, 52, 181, 0, "", "ExtendedQuarterDegreeGridCellCodeTest.illegalArgumentTests"},
	})
}

func TestEQDGEdges(t *testing.T) {
	checkGrid(t, "EQDG", EQDG, []gridCase{
		{0, 90, 180, 0, "E180N90", "north-east corner of the world"},
		{0, -90, -180, 0, "W179S89", "a negative whole degree counts toward zero"},
		{2, 89.99, 179.99, 0, "E179N89BB", "north-east quadrant letters"},
		{1, math.Copysign(0, -1), math.Copysign(0, -1), 0, "E000N00B", "negative zero is east and north, with the south-west square's letters"},
		{3, -33.9, 18.4, 0, "E018S33CDD", "Cape Town, QDGC 3318CD"},
		{0, 45, -180.0000001, 0, "", "beyond the anti-meridian"},
		{0, -90.5, 0, 0, "", "beyond the pole"},
		{0, 10, 10, math.Inf(1), "", "infinite uncertainty"},
		{0, 10, 10, -5, "E010N10", "negative uncertainty does not randomize"},
		// 0.3 is binary 0.0100110011…: a letter per bit, C for 0 and B for 1.
		{MaxEQDGLevel, 0.3, 0.3, 0, "E000N00CB" + strings.Repeat("CCBB", 12) + "CC", "deepest level"},
	})
}

func TestEQDGBadLevel(t *testing.T) {
	for _, level := range []int{-1, MaxEQDGLevel + 1, math.MaxInt} {
		_, ok, err := EQDG(level, 0, 0, 0, nil)
		var ae *ArgumentError
		if ok || !errors.As(err, &ae) || !errors.Is(err, ErrInvalidArgument) || ae.Function != "GBIF_EQDGCode" {
			t.Errorf("EQDG(level %d) = ok %v, err %v; want an ArgumentError", level, ok, err)
		}
	}
}
