package gridcode

import (
	"errors"
	"math"
	"testing"
)

// GBIF's vectors: DmsGridCellCodeTest.basicTest in gbif/occurrence-cube,
// cube-functions/src/test/java/org/gbif/occurrence/cube/functions/.
func TestDMSGGBIFVectors(t *testing.T) {
	const ref = "DmsGridCellCodeTest.basicTest"
	lon := 10 + 48/60.0 + 45.6/3600.0 // 10° 48′ 45.6″
	lat := 52 + 18/60.0               // 52° 18′ 0″
	checkGrid(t, "DMSG", DMSG, []gridCase{
		{3600, 0.1, 0.1, 0, "CRS4326RES1-0-0LON0-0-0LAT0-0-0", ref},
		{3600, -0.1, -0.1, 0, "CRS4326RES1-0-0LON-1-0-0LAT-1-0-0", ref},
		{3600, -0.9, -0.9, 0, "CRS4326RES1-0-0LON-1-0-0LAT-1-0-0", ref},
		{3600, -1.1, -1.1, 0, "CRS4326RES1-0-0LON-2-0-0LAT-2-0-0", ref},
		{1, 0.001, 0.001, 0, "CRS4326RES0-0-1LON0-0-3LAT0-0-3", ref},
		{1, -0.001, -0.001, 0, "CRS4326RES0-0-1LON-0-0-4LAT-0-0-4", ref},
		{1, 0.111, 0.111, 0, "CRS4326RES0-0-1LON0-6-39LAT0-6-39", ref},
		{1, -0.111, -0.111, 0, "CRS4326RES0-0-1LON-0-6-40LAT-0-6-40", ref},
		{1, -1.111, -1.111, 0, "CRS4326RES0-0-1LON-1-6-40LAT-1-6-40", ref},
		{3600, 1.0, lon, 0, "CRS4326RES1-0-0LON10-0-0LAT1-0-0", ref},
		{3600, 0.0, lon, 0, "CRS4326RES1-0-0LON10-0-0LAT0-0-0", ref},
		{3600, -1.0, lon, 0, "CRS4326RES1-0-0LON10-0-0LAT-1-0-0", ref},
		{3600, -2.0, lon, 0, "CRS4326RES1-0-0LON10-0-0LAT-2-0-0", ref},
		{60, 0.05, lon, 0, "CRS4326RES0-1-0LON10-48-0LAT0-3-0", ref},
		{60, 0.0, lon, 0, "CRS4326RES0-1-0LON10-48-0LAT0-0-0", ref},
		{60, -0.05, lon, 0, "CRS4326RES0-1-0LON10-48-0LAT-0-3-0", ref},
		{60, -0.10, lon, 0, "CRS4326RES0-1-0LON10-48-0LAT-0-6-0", ref},
		{1, 0.0025, lon, 0, "CRS4326RES0-0-1LON10-48-45LAT0-0-9", ref},
		{1, 0.0, lon, 0, "CRS4326RES0-0-1LON10-48-45LAT0-0-0", ref},
		{1, -0.0025, lon, 0, "CRS4326RES0-0-1LON10-48-45LAT-0-0-9", ref},
		{1, -0.0050, lon, 0, "CRS4326RES0-0-1LON10-48-45LAT-0-0-18", ref},
		{3600, 52.0, lon, 0, "CRS4326RES1-0-0LON10-0-0LAT52-0-0", ref},
		{3600, -52.0, -lon, 0, "CRS4326RES1-0-0LON-11-0-0LAT-52-0-0", ref},
		{900, lat, lon, 0, "CRS4326RES0-15-0LON10-45-0LAT52-15-0", ref},
		{900, -lat, -lon, 0, "CRS4326RES0-15-0LON-11-0-0LAT-52-30-0", ref},
		{600, lat, lon, 0, "CRS4326RES0-10-0LON10-40-0LAT52-10-0", ref},
		{600, -lat, -lon, 0, "CRS4326RES0-10-0LON-10-50-0LAT-52-20-0", ref},
		{300, lat, lon, 0, "CRS4326RES0-5-0LON10-45-0LAT52-15-0", ref},
		{300, -lat, -lon, 0, "CRS4326RES0-5-0LON-10-50-0LAT-52-20-0", ref},
		{150, lat, lon, 0, "CRS4326RES0-2-30LON10-47-30LAT52-17-30", ref},
		{150, -lat, -lon, 0, "CRS4326RES0-2-30LON-10-50-0LAT-52-20-0", ref},
		// GBIF's own floating-point artefacts (52-17-0 rather than 52-18-0).
		{60, lat, lon, 0, "CRS4326RES0-1-0LON10-48-0LAT52-17-0", ref},
		{60, -lat, -lon, 0, "CRS4326RES0-1-0LON-10-49-0LAT-52-18-0", ref},
		{30, lat, lon, 0, "CRS4326RES0-0-30LON10-48-30LAT52-17-30", ref},
		{30, -lat, -lon, 0, "CRS4326RES0-0-30LON-10-49-0LAT-52-18-0", ref},
		{1, lat, lon, 0, "CRS4326RES0-0-1LON10-48-45LAT52-17-59", ref},
		{1, -lat, -lon, 0, "CRS4326RES0-0-1LON-10-48-46LAT-52-18-0", ref},
		{6, lat, lon, 0, "CRS4326RES0-0-6LON10-48-42LAT52-17-54", ref},
		{1, math.NaN(), 10, 0, "", "DmsGridCellCodeTest.nullArgumentTest"},
		{1, 52, math.NaN(), 0, "", "DmsGridCellCodeTest.nullArgumentTest"},
		{1, 52, 10, math.NaN(), "", "DmsGridCellCodeTest.nullArgumentTest"},
		{1, 91, 10, 0, "", "DmsGridCellCodeTest.illegalArgumentTests"},
		{1, 52, 181, 0, "", "DmsGridCellCodeTest.illegalArgumentTests"},
	})
}

func TestDMSGEdges(t *testing.T) {
	checkGrid(t, "DMSG", DMSG, []gridCase{
		{3600, 90, 180, 0, "CRS4326RES1-0-0LON180-0-0LAT90-0-0", "north-east corner: GBIF names a cell beyond it"},
		{3600, -90, -180, 0, "CRS4326RES1-0-0LON-180-0-0LAT-90-0-0", "south-west corner"},
		{1800, -89.9, 179.9, 0, "CRS4326RES0-30-0LON179-30-0LAT-90-0-0", "half-degree cell at the pole"},
		{450, 1.2, 1.2, 0, "CRS4326RES0-7-30LON1-7-30LAT1-7-30", "7½-minute cells"},
		{3600, 10, 10, math.Inf(-1), "", "infinite uncertainty"},
		{3600, math.Inf(1), 10, 0, "", "infinite latitude"},
	})
}

func TestDMSGBadResolution(t *testing.T) {
	// DmsGridCellCodeTest.illegalArgumentTests: -1 and 13 are refused.
	for _, res := range []int{-1, 0, 13, 7, 7200, math.MinInt} {
		_, ok, err := DMSG(res, 52, 10, 0, nil)
		if ok || !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("DMSG(resolution %d) = ok %v, err %v; want an ArgumentError", res, ok, err)
		}
	}
	for _, res := range []int{1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 15, 16, 1200, 1800, 3600} {
		if _, ok, err := DMSG(res, 52, 10, 0, nil); !ok || err != nil {
			t.Errorf("DMSG(resolution %d) = ok %v, err %v; want a code", res, ok, err)
		}
	}
}
