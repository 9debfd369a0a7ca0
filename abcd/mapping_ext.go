package abcd

import (
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// multimediaRows maps Unit/MultiMediaObjects/MultiMediaObject to GBIF
// Multimedia rows. dc:type is derived from the MIME type's top level only
// (image -> StillImage, audio -> Sound, video -> MovingImage); a IIIF
// manifest (application/json) keeps an empty type for the interpreter.
func multimediaRows(u *node) []occurrence.Terms {
	var rows []occurrence.Terms
	for _, m := range all(u, "MultiMediaObjects", "MultiMediaObject") {
		t := terms{}
		format := text(m, "Format")
		t.set(dc+"identifier", text(m, "FileURI"))
		t.set(dc+"references", text(m, "ProductURI"))
		t.set(dc+"format", format)
		t.set(dc+"type", mediaType(format))
		t.set(dc+"title", text(m, "Context"))
		t.set(dc+"description", text(m, "Comment"))
		t.set(dc+"created", text(m, "CreatedDate"))
		t.set(dc+"creator", text(m, "Creator"))
		lic := child(m, "IPR", "Licenses", "License")
		t.set(dc+"license", firstText(lic, []string{"URI"}, []string{"Text"}))
		t.set(dc+"rightsHolder", text(m, "IPR", "Copyrights", "Copyright", "Text"))
		if len(t) > 0 {
			rows = append(rows, occurrence.Terms(t))
		}
	}
	return rows
}

func mediaType(format string) string {
	top, _, _ := strings.Cut(strings.ToLower(format), "/")
	switch top {
	case "image":
		return "StillImage"
	case "audio":
		return "Sound"
	case "video":
		return "MovingImage"
	}
	return ""
}

// measurementRows maps Unit/MeasurementsOrFacts/MeasurementOrFact, then
// Gathering/SiteMeasurementsOrFacts/SiteMeasurementOrFact (measurementRemarks
// "site"), to MeasurementOrFact rows.
func measurementRows(u *node) []occurrence.Terms {
	var rows []occurrence.Terms
	for _, m := range all(u, "MeasurementsOrFacts", "MeasurementOrFact") {
		rows = appendMeasurement(rows, m, "")
	}
	for _, m := range all(u, "Gathering", "SiteMeasurementsOrFacts", "SiteMeasurementOrFact") {
		rows = appendMeasurement(rows, m, "site")
	}
	return rows
}

// appendMeasurement appends the row of one MeasurementOrFact: a range
// LowerValue-UpperValue is one value "L-U"; a text-only fact becomes the
// value with no type; remark (if any) is the measurementRemarks of a row
// that has a value of its own. The MeasurementOrFact type of ABCD 2.06 and
// 2.1 has no Notes child, so there is no other remark.
func appendMeasurement(rows []occurrence.Terms, m *node, remark string) []occurrence.Terms {
	t := terms{}
	a := child(m, "MeasurementOrFactAtomised")
	val := text(a, "LowerValue")
	if up := text(a, "UpperValue"); up != "" && up != val {
		if val != "" {
			val += "-" + up
		} else {
			val = up
		}
	}
	if val == "" {
		val = text(m, "MeasurementOrFactText")
	}
	t.set(dwc+"measurementType", text(a, "Parameter"))
	t.set(dwc+"measurementValue", val)
	t.set(dwc+"measurementAccuracy", text(a, "Accuracy"))
	t.set(dwc+"measurementUnit", text(a, "UnitOfMeasurement"))
	t.set(dwc+"measurementDeterminedBy", text(a, "MeasuredBy"))
	t.set(dwc+"measurementDeterminedDate", text(a, "MeasurementDateTime"))
	t.set(dwc+"measurementMethod", text(a, "Method"))
	if len(t) == 0 {
		return rows
	}
	t.set(dwc+"measurementRemarks", remark)
	return append(rows, occurrence.Terms(t))
}
