package abcd

import (
	"cmp"
	"slices"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// mapUnit maps one Unit subtree to a raw record (see the table in doc.go).
func mapUnit(u *node, ds *DatasetMeta) occurrence.RawRecord {
	t := make(terms, 64)
	mapIdentity(t, u)
	mapUnitFacts(t, u)
	mapSpecimen(t, u)
	if ds != nil {
		t.set(dwc+"datasetName", ds.Title)
		t.set(dwc+"datasetID", ds.GUID)
		t.set(dc+"license", ds.License())
	}
	if g := child(u, "Gathering"); g != nil {
		mapEvent(t, g)
		mapPlace(t, g)
		mapStratigraphy(t, g, u)
	}
	mapTypes(t, u)
	ext := map[string][]occurrence.Terms{}
	core, others := pickIdentifications(all(u, "Identifications", "Identification"))
	if core != nil {
		mapIdentificationInto(t, core)
	}
	for _, id := range others {
		ext[occurrence.RowTypeIdentification] = append(ext[occurrence.RowTypeIdentification], occurrence.Terms(mapIdentification(id)))
	}
	if rows := multimediaRows(u); len(rows) > 0 {
		ext[occurrence.RowTypeMultimedia] = rows
	}
	if rows := measurementRows(u); len(rows) > 0 {
		ext[occurrence.RowTypeMeasurement] = rows
	}
	if len(ext) == 0 {
		ext = nil
	}
	return occurrence.RawRecord{Core: occurrence.Terms(t), Extensions: ext}
}

// mapIdentity sets the triplet and occurrenceID.
func mapIdentity(t terms, u *node) {
	inst, coll, id := text(u, "SourceInstitutionID"), text(u, "SourceID"), text(u, "UnitID")
	t.set(dwc+"institutionCode", inst)
	t.set(dwc+"collectionCode", coll)
	t.set(dwc+"catalogNumber", id)
	occID := text(u, "UnitGUID")
	if occID == "" && (inst != "" || coll != "" || id != "") {
		occID = "urn:catalog:" + inst + ":" + coll + ":" + id
	}
	t.set(dwc+"occurrenceID", occID)
}

// mapUnitFacts sets the unit-level terms outside identification and gathering.
func mapUnitFacts(t terms, u *node) {
	rb := text(u, "RecordBasis")
	t.set(dwc+"basisOfRecord", rb)
	if strings.EqualFold(rb, "AbsenceObservation") {
		t.set(dwc+"occurrenceStatus", "absent")
	}
	t.set(dc+"modified", text(u, "DateLastEdited"))
	t.set(dwc+"recordNumber", text(u, "CollectorsFieldNumber"))
	t.set(dwc+"occurrenceRemarks", text(u, "Notes"))
	t.set(dwc+"sex", text(u, "Sex"))
	t.set(dc+"references", text(u, "RecordURI"))
	t.set(dwc+"associatedSequences", joinValues(texts(u, "Sequences", "Sequence", "ID-in-Database")))
	refs := append(citations(all(u, "UnitReferences", "UnitReference")), citation(child(u, "SourceReference")))
	t.set(dwc+"associatedReferences", joinValues(refs))
	t.set(dwc+"lifeStage", joinValues(texts(u, "ZoologicalUnit", "PhasesOrStages", "PhaseOrStage")))
	var assoc []string
	for _, a := range all(u, "Associations", "UnitAssociation") {
		ref := strings.Join([]string{text(a, "SourceInstitutionCode"), text(a, "SourceName"), text(a, "UnitID")}, ":")
		if ref == "::" {
			continue
		}
		if typ := text(a, "AssociationType"); typ != "" {
			ref = typ + ": urn:catalog:" + ref
		} else {
			ref = "urn:catalog:" + ref
		}
		assoc = append(assoc, ref)
	}
	t.set(dwc+"associatedOccurrences", joinValues(assoc))
}

// mapSpecimen sets the terms of the physical specimen (SpecimenUnit):
// preparations and the owner.
func mapSpecimen(t terms, u *node) {
	preps := []string{text(u, "KindOfUnit")}
	for _, p := range append(all(u, "SpecimenUnit", "Preparations", "Preparation"), all(u, "SpecimenUnit", "Preparations", "preparation")...) {
		preps = append(preps, preparation(p))
	}
	preps = append(preps, text(u, "SpecimenUnit", "Preparations", "preparationsText")) // ABCD 2.1
	t.set(dwc+"preparations", joinValues(preps))
	t.set(dwc+"ownerInstitutionCode", ownerInstitution(child(u, "SpecimenUnit", "Owner")))
	t.set(dwc+"otherCatalogNumbers", otherCatalogNumbers(u))
}

// otherCatalogNumbers lists the unit's other numbers: the observation
// unit identifiers, the accession numbers and the previous units' IDs,
// joined; a value equal to the UnitID (the catalogNumber) is left out.
func otherCatalogNumbers(u *node) string {
	ids := texts(u, "ObservationUnit", "ObservationUnitIdentifiers", "ObservationUnitIdentifier")
	ids = append(ids, accessionNumbers(child(u, "SpecimenUnit", "Accessions"))...)
	for _, p := range all(u, "SpecimenUnit", "History", "PreviousUnits", "PreviousUnit") {
		ids = append(ids, previousUnit(p))
	}
	unitID := text(u, "UnitID")
	return joinValues(slices.DeleteFunc(ids, func(s string) bool { return s == unitID }))
}

// accessionNumbers are the AccessionNumbers of an Accessions element, each
// as "CATALOGUE:NUMBER" when its (date, catalogue, number) triple names an
// AccessionCatalogue.
func accessionNumbers(acc *node) []string {
	if acc == nil {
		return nil
	}
	var out []string
	catalogue := ""
	for c := range acc.children() {
		switch c.tag {
		case "AccessionDate": // starts the next triple
			catalogue = ""
		case "AccessionCatalogue":
			catalogue = c.value()
		case "AccessionNumber":
			if n := c.value(); n != "" && catalogue != "" {
				out = append(out, catalogue+":"+n)
			} else if n != "" {
				out = append(out, n)
			}
			catalogue = ""
		}
	}
	return out
}

// previousUnit is a PreviousUnit's ID, qualified as "INST:SOURCE:ID" when
// the previous institution or collection is given; without an ID its GUID
// (ABCD 2.1) or PreviousUnitText.
func previousUnit(p *node) string {
	id := text(p, "PreviousUnitID")
	if id == "" {
		return firstText(p, []string{"PreviousUnitGUID"}, []string{"PreviousUnitText"})
	}
	inst, src := text(p, "PreviousSourceInstitutionID"), text(p, "PreviousSourceID")
	if inst == "" && src == "" {
		return id
	}
	return inst + ":" + src + ":" + id
}

// preparation is one Preparation as its type followed by what else ABCD
// says of the step, in parentheses: "TYPE (process: P; materials: M;
// prepared by AGENT, DATE)", or the details alone without a type ("prepared
// by AGENT"). Darwin Core has a single preparations term, and kept with
// their preparation these still say how, with what and by whom each step
// was made. ABCD 2.1 spells the elements in lower camel case and adds the
// date.
func preparation(p *node) string {
	pick := func(name string) string {
		return firstText(p, []string{name}, []string{strings.ToLower(name[:1]) + name[1:]})
	}
	typ := pick("PreparationType")
	agent := cmp.Or(child(p, "PreparationAgent"), child(p, "preparationAgent"))
	var details []string
	if v := pick("PreparationProcess"); v != "" {
		details = append(details, "process: "+v)
	}
	if v := pick("PreparationMaterials"); v != "" {
		details = append(details, "materials: "+v)
	}
	by := firstText(agent, []string{"Person", "FullName"}, []string{"Organisation", "Name", "Representation", "Text"})
	switch date := pick("PreparationDate"); {
	case by != "" && date != "":
		details = append(details, "prepared by "+by+", "+date)
	case by != "":
		details = append(details, "prepared by "+by)
	case date != "":
		details = append(details, "prepared "+date)
	}
	switch {
	case len(details) == 0:
		return typ
	case typ == "":
		return strings.Join(details, "; ")
	}
	return typ + " (" + strings.Join(details, "; ") + ")"
}

// ownerInstitution names the organisation of an ABCD Contact: its
// Abbreviation (an acronym, like institutionCode), else its name; "" for an
// owner that is only a person.
func ownerInstitution(c *node) string {
	return firstText(child(c, "Organisation", "Name", "Representation"), []string{"Abbreviation"}, []string{"Text"})
}

// citations are the citation of each Reference.
func citations(refs []*node) []string {
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		out = append(out, citation(r))
	}
	return out
}

// citation is an ABCD Reference as one text: TitleCitation, then
// CitationDetail (after ", ", or after a space when the title ends in
// punctuation); "" without a TitleCitation.
func citation(ref *node) string {
	title, detail := text(ref, "TitleCitation"), text(ref, "CitationDetail")
	switch {
	case title == "" || detail == "":
		return title
	case strings.ContainsAny(title[len(title)-1:], ".,;:"):
		return title + " " + detail
	}
	return title + ", " + detail
}

// mapTypes sets typeStatus and typifiedName from all type designations,
// paired position by position: identical (status, name) pairs are written
// once, and a designation without a name (or status) keeps an empty slot
// in its list ("holotype | paratype" with "| Aus bus L."), so the n-th
// name is always the n-th status's. A list whose slots are all empty is
// left out.
func mapTypes(t terms, u *node) {
	var pairs [][2]string
	for _, d := range all(u, "SpecimenUnit", "NomenclaturalTypeDesignations", "NomenclaturalTypeDesignation") {
		p := [2]string{text(d, "TypeStatus"), text(d, "TypifiedName", "FullScientificNameString")}
		if p != [2]string{} && !slices.Contains(pairs, p) {
			pairs = append(pairs, p)
		}
	}
	t.set(dwc+"typeStatus", joinSlots(pairs, 0))
	t.set(gbif+"typifiedName", joinSlots(pairs, 1))
}

// joinSlots joins the i-th values of pairs with the list separator, empty
// values included as empty slots; "" when every value is empty.
func joinSlots(pairs [][2]string, i int) string {
	vals := make([]string, len(pairs))
	filled := false
	for j, p := range pairs {
		vals[j] = p[i]
		filled = filled || p[i] != ""
	}
	if !filled {
		return ""
	}
	return strings.TrimSpace(strings.Join(vals, " | "))
}
