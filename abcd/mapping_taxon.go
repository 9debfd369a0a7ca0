package abcd

import (
	"strings"
)

// pickIdentifications chooses the identification for the core record: the
// first with PreferredFlag true/1/yes/y (any case), else the first one. The
// others go to the Identification extension, in document order.
func pickIdentifications(ids []*node) (core *node, others []*node) {
	if len(ids) == 0 {
		return nil, nil
	}
	pick := 0
	for i, id := range ids {
		if isTrue(text(id, "PreferredFlag")) {
			pick = i
			break
		}
	}
	for i, id := range ids {
		if i != pick {
			others = append(others, id)
		}
	}
	return ids[pick], others
}

func isTrue(s string) bool {
	switch strings.ToLower(s) {
	case "1", "true", "yes", "y":
		return true
	}
	return false
}

// rankTerm maps Latin and English higher-taxon rank names (any case) to the
// Darwin Core term.
var rankTerm = map[string]string{
	"regnum": "kingdom", "kingdom": "kingdom",
	"phylum": "phylum", "divisio": "phylum", "division": "phylum",
	"classis": "class", "class": "class",
	"ordo": "order", "order": "order",
	"familia": "family", "family": "family",
	"genus": "genus",
}

// mapIdentification maps one Identification.
func mapIdentification(id *node) terms {
	t := make(terms, 16)
	mapIdentificationInto(t, id)
	return t
}

// mapIdentificationInto adds the terms of one Identification to t.
func mapIdentificationInto(t terms, id *node) {
	ids := child(id, "Identifiers")
	by := text(ids, "IdentifiersText")
	if by == "" {
		var names []string
		for _, p := range all(ids, "Identifier") {
			names = append(names, firstText(p, []string{"PersonName", "FullName"}, []string{"Organisation", "Name", "Representation", "Text"}))
		}
		by = joinValues(names)
	}
	t.set(dwc+"identifiedBy", by)
	t.set(dwc+"identifiedByID", joinValues(texts(ids, "Identifier", "ResourceURIs", "ResourceURI")))
	t.set(dwc+"dateIdentified", dateValue(child(id, "Date")))
	t.set(dwc+"identificationRemarks", text(id, "Notes"))
	t.set(dwc+"identificationVerificationStatus", text(id, "VerificationLevel"))
	t.set(dwc+"identificationReferences", joinValues(citations(all(id, "References", "Reference"))))
	res := child(id, "Result")
	if ti := child(res, "TaxonIdentified"); ti != nil {
		mapTaxon(t, ti)
	} else if mr := mineralRock(res); mr != nil {
		t.set(dwc+"scientificName", firstText(mr, []string{"ClassifiedName", "FullScientificNameString"}, []string{"VarietalNameString"}))
		t.set(dwc+"higherClassification", joinValues(texts(mr, "MineralRockGroup", "MineralRockGroupName")))
	}
}

// mineralRock finds an EFG MineralRockIdentified in Result/Extension.
func mineralRock(res *node) *node {
	if mr := child(res, "Extension", "MineralRockIdentified"); mr != nil {
		return mr
	}
	return child(res, "MineralRockIdentified")
}

func mapTaxon(t terms, ti *node) {
	sn := child(ti, "ScientificName")
	t.set(dwc+"scientificName", text(sn, "FullScientificNameString"))
	t.set(dwc+"scientificNameID", joinValues(texts(sn, "ResourceURIs", "ResourceURI")))
	t.set(dwc+"identificationQualifier", text(sn, "IdentificationQualifier"))
	t.set(dwc+"taxonRemarks", text(ti, "NameComments"))
	t.set(dwc+"nomenclaturalCode", text(ti, "Code"))
	t.set(dwc+"higherClassification", classifiedNames(t, all(ti, "HigherTaxa", "HigherTaxon"), "HigherTaxonName", "HigherTaxonRank", rankTerm))
	if na := child(sn, "NameAtomised"); na != nil {
		for c := range na.children() {
			mapAtomised(t, c)
			break
		}
	}
}

// nomenclaturalCodes names the code behind each NameAtomised kind.
var nomenclaturalCodes = map[string]string{"Botanical": "ICN", "Zoological": "ICZN", "Bacterial": "ICNP", "Viral": "ICTV"}

func mapAtomised(t terms, a *node) {
	if g := text(a, "GenusOrMonomial"); g != "" {
		t[dwc+"genus"] = g // the atomised name beats a "genus" higher taxon
	}
	t.set(dwc+"subgenus", text(a, "Subgenus"))
	t.set(dwc+"specificEpithet", firstText(a, []string{"FirstEpithet"}, []string{"SpeciesEpithet"}))
	t.set(dwc+"infraspecificEpithet", firstText(a, []string{"InfraspecificEpithet"}, []string{"SubspeciesEpithet"}))
	t.set(dwc+"taxonRank", text(a, "Rank"))
	t.setDefault(dwc+"nomenclaturalCode", nomenclaturalCodes[a.tag])
	t.set(dwc+"scientificNameAuthorship", authorship(a))
}

// authorship is "(parenthetical) author" from the author elements of a
// NameAtomised kind. Zoological: AuthorTeamParenthesisAndYear is the
// original author cited in parentheses after a transfer, followed by
// CombinationAuthorTeamAndYear when given ("(Linnaeus, 1761)");
// AuthorTeamOriginalAndYear is the authorship only when there is no
// parenthesis (it names the same author, so is not repeated).
func authorship(a *node) string {
	var paren, author string
	switch a.tag {
	case "Botanical":
		paren, author = text(a, "AuthorTeamParenthesis"), text(a, "AuthorTeam")
	case "Zoological":
		paren, author = text(a, "AuthorTeamParenthesisAndYear"), text(a, "CombinationAuthorTeamAndYear")
		if paren == "" {
			author = firstText(a, []string{"AuthorTeamOriginalAndYear"}, []string{"CombinationAuthorTeamAndYear"})
		}
	case "Bacterial":
		paren, author = text(a, "ParentheticalAuthorTeamAndYear"), text(a, "AuthorTeamAndYear")
	}
	if paren != "" {
		author = strings.TrimSpace("(" + paren + ") " + author)
	}
	return author
}
