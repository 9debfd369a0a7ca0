package gridcode

import (
	"math"
	"testing"
)

// GBIF's vectors: MilitaryGridReferenceSystemCellCodeTest in
// gbif/occurrence-cube, cube-functions/src/test/java/org/gbif/occurrence/cube/functions/.
func TestMGRSGBIFVectors(t *testing.T) {
	const ref = "MilitaryGridReferenceSystemCellCodeTest.basicTest"
	checkGrid(t, "MGRS", MGRS, []gridCase{
		{0, 52.0, 10.0, 0, "32U", ref},
		{100_000, 52.0, 10.0, 0, "32UNC", ref},
		{10_000, 52.0, 10.0, 0, "32UNC66", ref},
		{1_000, 52.0, 10.0, 0, "32UNC6861", ref},
		{100, 52.0, 10.0, 0, "32UNC686615", ref},
		{10, 52.0, 10.0, 0, "32UNC68646151", ref},
		{1, 52.0, 10.0, 0, "32UNC6864961510", ref},
		{1, -52.0, -10.0, 0, "29FMC3135038489", ref},
		{1, 0.0, 0.0, 0, "31NAA6602100000", ref},
		{100_000, 45.8631, 14.5367, 1000, "33TVL", ref}, // randomized, far from edges
		{0, -79.0, -179.0, 0, "01C", ref},
		{100_000, -79.0, -179.0, 0, "01CDN", ref},
		{1, math.NaN(), 10, 0, "", "MilitaryGridReferenceSystemCellCodeTest.nullArgumentTest"},
		{1, 52, math.NaN(), 0, "", "MilitaryGridReferenceSystemCellCodeTest.nullArgumentTest"},
		{1, 52, 10, math.NaN(), "", "MilitaryGridReferenceSystemCellCodeTest.nullArgumentTest"},
		{1, 91, 10, 0, "", "MilitaryGridReferenceSystemCellCodeTest.illegalArgumentTests"},
		{1, 52, 181, 0, "", "MilitaryGridReferenceSystemCellCodeTest.illegalArgumentTests"},
		{1, math.Nextafter(84, 90), 0, 0, "", "MilitaryGridReferenceSystemCellCodeTest.beyondExtentTest"},
		{1, math.Nextafter(-80, -90), 0, 0, "", "MilitaryGridReferenceSystemCellCodeTest.beyondExtentTest"},
	})
}

func TestMGRSEdges(t *testing.T) {
	checkGrid(t, "MGRS", MGRS, []gridCase{
		{0, 84, 0, 0, "31X", "84°N is still band X"},
		{0, -80, 0, 0, "31C", "80°S is band C"},
		{0, 72, 0, 0, "31X", "a band boundary belongs to the band north of it"},
		{0, 71.999, 0, 0, "31W", "just south of X"},
		{0, 0, 180, 0, "60N", "180°E is zone 60"},
		{0, 0, -180, 0, "01N", "180°W is zone 1"},
		{0, -0.000001, 0, 0, "31M", "just south of the equator"},
		{0, 60, 4, 0, "32V", "Norway: 32V reaches west to 3°E"},
		{0, 60, 2.9, 0, "31V", "Norway: 31V is 0–3°E"},
		{0, 78, 8.9, 0, "31X", "Svalbard: 31X reaches east to 9°E"},
		{0, 78, 9, 0, "33X", "Svalbard: 33X is 9–21°E"},
		{0, 78, 32.9, 0, "35X", "Svalbard: 35X is 21–33°E"},
		{0, 78, 41.9, 0, "37X", "Svalbard: 37X is 33–42°E"},
		{0, 78, 42, 0, "38X", "east of Svalbard's zones"},
		{0, 90, 0, 0, "", "north pole: UPS, not coded"},
		{0, -90, 0, 0, "", "south pole: UPS, not coded"},
		{5_000, 52, 10, 0, "32UNC6861", "5000 m gives 1 km precision, as NGA's GridType.getPrecision"},
		{-100_000, 52, 10, 0, "32UNC", "negative sizes too"},
		{7, 52, 10, 0, "32UNC6864961510", "any other size is 1 m"},
		{1, 10, 10, math.Inf(1), "", "infinite uncertainty"},
	})
}

// Values from standard UTM (Krüger series): GBIF's approximate formulae
// agree to well under a metre, so the 10 m codes match.
func TestMGRSAgainstStandardUTM(t *testing.T) {
	checkGrid(t, "MGRS", MGRS, []gridCase{
		// On zone 18's central meridian: E 500 000 (column W), N 0.9996 × the
		// WGS84 meridian arc of 40° (4 429 529.0 m) = 4 427 757.2 (row K).
		{10, 40, -75, 0, "18TWK00002775", "40°N 75°W"},
		// The Washington Monument, USNG's textbook example 18S UJ 23487 06483.
		{10, 38.8895, -77.0352, 0, "18SUJ23480648", "Washington Monument"},
	})
}
