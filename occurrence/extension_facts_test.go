package occurrence

import "testing"

// TestExtensionFacts: dwcaExtension lists the row types a record has rows
// of, sorted; measurementType the distinct types of its MeasurementOrFact
// and ExtendedMeasurementOrFact rows in the order found, "null" and blanks
// left out; measurementTypeID the ExtendedMeasurementOrFact rows' IDs only,
// as GBIF's ExtensionUtils reads them.
func TestExtensionFacts(t *testing.T) {
	mof := func(kv ...string) Terms {
		t := Terms{}
		for i := 0; i < len(kv); i += 2 {
			t[kv[i]] = kv[i+1]
		}
		return t
	}
	mt, mid := NSDwC+"measurementType", obis+"measurementTypeID"
	r := interpret(t, dwcTerms("occurrenceID", "x"), map[string][]Terms{
		RowTypeMeasurement: {mof(mt, " wing length "), mof(mt, "null"), mof(mt, "mass", mid, "ignored: not eMoF")},
		RowTypeExtendedMeasurement: {mof(mt, "Wing length", mid, "http://vocab/P01/WL"), mof(mt, "wing length", mid, " "),
			mof(mid, "http://vocab/P01/WL")},
		RowTypeIdentification: {mof(NSDwC+"identifiedBy", "A. Person")},
		RowTypeImage:          {},
	})
	for col, want := range map[string]string{
		ColDwcaExtension:     RowTypeExtendedMeasurement + ";" + RowTypeIdentification + ";" + RowTypeMeasurement,
		ColMeasurementType:   "wing length;mass;Wing length",
		ColMeasurementTypeID: "http://vocab/P01/WL",
	} {
		if got := get(r, col).S; got != want {
			t.Errorf("%s = %q, want %q", col, got, want)
		}
	}
	r = interpret(t, dwcTerms("occurrenceID", "y"), nil)
	for _, col := range []string{ColDwcaExtension, ColMeasurementType, ColMeasurementTypeID} {
		if v := get(r, col); v.Valid {
			t.Errorf("%s = %q for a record without extensions", col, v.S)
		}
	}
}
