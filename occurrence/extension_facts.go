package occurrence

import (
	"slices"
	"strings"
)

// RowTypeExtendedMeasurement is OBIS's ExtendedMeasurementOrFact extension.
const RowTypeExtendedMeasurement = obis + "ExtendedMeasurementOrFact"

var (
	iDwcaExtension     = mustIndex(ColDwcaExtension)
	iMeasurementType   = mustIndex(ColMeasurementType)
	iMeasurementTypeID = mustIndex(ColMeasurementTypeID)
)

// extensionFacts sets what GBIF's download table derives from a record's
// extension rows (gbif/pipelines OccurrenceHdfsRecordConverter's
// mapExtendedRecord and ExtensionUtils.convertMoFFromVerbatim):
// dwcaExtension, the row types it has rows of (sorted: GBIF's come in a
// hash map's order), and measurementType and measurementTypeID, each
// distinct measurement type of its MeasurementOrFact and
// ExtendedMeasurementOrFact rows and each type ID of the latter's, in the
// order found ("null" is no value, as GBIF reads it).
func (in *interpreter) extensionFacts(ext map[string][]Terms) {
	var rowTypes []string
	for rt, rows := range ext {
		if len(rows) > 0 {
			rowTypes = append(rowTypes, rt)
		}
	}
	if len(rowTypes) == 0 {
		return
	}
	slices.Sort(rowTypes)
	in.setList(iDwcaExtension, rowTypes)
	var types, ids []string
	add := func(list []string, v string) []string {
		v = strings.TrimSpace(v)
		if v == "" || strings.EqualFold(v, "null") {
			return list
		}
		return appendUnique(list, v)
	}
	for _, row := range ext[RowTypeMeasurement] {
		types = add(types, row[dwc+"measurementType"])
	}
	for _, row := range ext[RowTypeExtendedMeasurement] {
		types = add(types, row[dwc+"measurementType"])
		ids = add(ids, row[obis+"measurementTypeID"])
	}
	in.setList(iMeasurementType, types)
	in.setList(iMeasurementTypeID, ids)
}
