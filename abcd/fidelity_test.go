package abcd

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// unitsDoc wraps Unit elements into an ABCD 2.06 document.
func unitsDoc(units ...string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<DataSets xmlns="http://www.tdwg.org/schemas/abcd/2.06"><DataSet>
<Metadata><Description><Representation language="en"><Title>T</Title></Representation></Description></Metadata>
<Units>` + strings.Join(units, "\n") + `</Units></DataSet></DataSets>`
}

// mapDoc reads every record of a document given as text.
func mapDoc(t *testing.T, doc string) []occurrence.RawRecord {
	t.Helper()
	r := NewReader(strings.NewReader(doc), "doc.xml", Options{})
	var recs []occurrence.RawRecord
	for {
		rec, err := r.Next(context.Background())
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
}

// designation is a NomenclaturalTypeDesignation; an empty name is left out.
func designation(status, name string) string {
	d := "<NomenclaturalTypeDesignation><TypeStatus>" + status + "</TypeStatus>"
	if name != "" {
		d += "<TypifiedName><FullScientificNameString>" + name + "</FullScientificNameString></TypifiedName>"
	}
	return d + "</NomenclaturalTypeDesignation>"
}

// TestTypeDesignationsPaired: typeStatus and typifiedName stay paired
// position by position (the audit's crafted/types.xml): a designation
// without a name keeps an empty slot, equal statuses of different names
// are both kept, and only identical pairs are written once.
func TestTypeDesignationsPaired(t *testing.T) {
	unit := func(id string, ds ...string) string {
		return "<Unit><UnitID>" + id + "</UnitID><SpecimenUnit><NomenclaturalTypeDesignations>" +
			strings.Join(ds, "") + "</NomenclaturalTypeDesignations></SpecimenUnit></Unit>"
	}
	recs := mapDoc(t, unitsDoc(
		unit("T1", designation("holotype", ""), designation("paratype", "Aus bus L.")),
		unit("T2", designation("isotype", "Aus bus L."), designation("isotype", "Aus cus L.")),
		unit("T3", designation("isotype", "Aus bus L."), designation("isotype", "Aus bus L."), designation("holotype", "Aus cus L.")),
		unit("T4", designation("holotype", ""), designation("isotype", "")),
	))
	want := [][2]string{
		{"holotype | paratype", "| Aus bus L."},
		{"isotype | isotype", "Aus bus L. | Aus cus L."},
		{"isotype | holotype", "Aus bus L. | Aus cus L."},
		{"holotype | isotype", ""},
	}
	for i, w := range want {
		c := coreOf(recs[i])
		if c["typeStatus"] != w[0] || c["gbif:typifiedName"] != w[1] {
			t.Errorf("%s: typeStatus %q typifiedName %q, want %q and %q", c["catalogNumber"], c["typeStatus"], c["gbif:typifiedName"], w[0], w[1])
		}
	}
}

// TestCountryCodeOnlyFromISOCode: a country name never goes into
// countryCode (it stays in country; the interpreter derives the code).
func TestCountryCodeOnlyFromISOCode(t *testing.T) {
	recs := mapDoc(t, unitsDoc(
		`<Unit><UnitID>1</UnitID><Gathering><Country><Name>Croatia</Name></Country></Gathering></Unit>`,
		`<Unit><UnitID>2</UnitID><Gathering><Country><Name>Latvija</Name><NameDerived>Latvia</NameDerived><ISO3166Code>LV</ISO3166Code></Country></Gathering></Unit>`,
	))
	expect(t, "name only", coreOf(recs[0]), map[string]string{"country": "Croatia", "countryCode": ""})
	expect(t, "name and code", coreOf(recs[1]), map[string]string{"country": "Latvia", "countryCode": "LV"})
}

// TestUTMOnlyCoordinates: a coordinate set with only atomised UTM values
// (the audit's crafted/spot.xml U1) keeps them as verbatim coordinates.
func TestUTMOnlyCoordinates(t *testing.T) {
	utm := func(id, inner string) string {
		return "<Unit><UnitID>" + id + "</UnitID><Gathering><SiteCoordinateSets><SiteCoordinates><CoordinatesUTM>" +
			inner + "</CoordinatesUTM></SiteCoordinates></SiteCoordinateSets></Gathering></Unit>"
	}
	recs := mapDoc(t, unitsDoc(
		utm("1", `<UTMZone>33</UTMZone><UTMSubzone>U</UTMSubzone><UTMEasting>389000</UTMEasting><UTMNorthing>5819000</UTMNorthing><UTMDatum>ETRS89</UTMDatum>`),
		utm("2", `<UTMZone>33</UTMZone><UTMZoneFull>33 U</UTMZoneFull><UTMNS>N</UTMNS><UTMEasting>389000</UTMEasting><UTMNorthing>5819000</UTMNorthing>`),
		utm("3", `<UTMText>33U 389 5819 (km)</UTMText><UTMEasting>389000</UTMEasting><UTMDatum>WGS84</UTMDatum>`),
		utm("4", `<UTMZone>33</UTMZone><UTMDatum>WGS84</UTMDatum>`),
	))
	expect(t, "atomised", coreOf(recs[0]), map[string]string{"verbatimCoordinates": "33U 389000 5819000",
		"verbatimCoordinateSystem": "UTM", "verbatimSRS": "ETRS89", "geodeticDatum": "ETRS89", "decimalLatitude": ""})
	expect(t, "zone full", coreOf(recs[1]), map[string]string{"verbatimCoordinates": "33 U 389000 5819000 (N)",
		"verbatimCoordinateSystem": "UTM", "verbatimSRS": ""})
	expect(t, "text", coreOf(recs[2]), map[string]string{"verbatimCoordinates": "33U 389 5819 (km)",
		"verbatimCoordinateSystem": "UTM", "verbatimSRS": "WGS84"})
	expect(t, "zone only", coreOf(recs[3]), map[string]string{"verbatimCoordinates": "", "verbatimCoordinateSystem": "", "verbatimSRS": ""})
	checkDeclared(t, recs)
}

// TestABCD21Georeference: ABCD 2.1's verbatim latitude/longitude and
// georeference elements (the audit's crafted/v21.xml); GeoreferenceRemarks
// is joined to AccuracyStatement.
func TestABCD21Georeference(t *testing.T) {
	doc := strings.Replace(unitsDoc(`<Unit><UnitID>V21</UnitID><Gathering><SiteCoordinateSets><SiteCoordinates>
		<GeoreferenceSources>Gazetteer of Germany</GeoreferenceSources>
		<GeoreferenceVerificationStatus>verified by curator</GeoreferenceVerificationStatus>
		<GeoreferenceRemarks>centroid of village</GeoreferenceRemarks>
		<CoordinatesLatLong><VerbatimLongitude>13°22'E</VerbatimLongitude><VerbatimLatitude>52°31'N</VerbatimLatitude>
		<AccuracyStatement>GoogleEarth</AccuracyStatement></CoordinatesLatLong>
		</SiteCoordinates></SiteCoordinateSets></Gathering></Unit>`), "abcd/2.06", "abcd/2.1", 1)
	recs := mapDoc(t, doc)
	expect(t, "2.1", coreOf(recs[0]), map[string]string{
		"verbatimLatitude": "52°31'N", "verbatimLongitude": "13°22'E", "georeferenceSources": "Gazetteer of Germany",
		"georeferenceVerificationStatus": "verified by curator", "georeferenceRemarks": "GoogleEarth | centroid of village",
	})
	checkDeclared(t, recs)
}

// TestSourceReference: the publication a literature record comes from
// (Unit/SourceReference) follows the UnitReferences in associatedReferences.
func TestSourceReference(t *testing.T) {
	recs := mapDoc(t, unitsDoc(
		`<Unit><UnitID>1</UnitID><RecordBasis>Literature</RecordBasis><SourceReference><TitleCitation>Biondi E., 2001. Fitosociologia 38: 3-105.</TitleCitation><CitationDetail>p. 20</CitationDetail></SourceReference>
		<UnitReferences><UnitReference><TitleCitation>Smith 1990</TitleCitation></UnitReference></UnitReferences></Unit>`,
		`<Unit><UnitID>2</UnitID><SourceReference><TitleCitation>Flora europaea, Vol. 3</TitleCitation><CitationDetail>p. 461</CitationDetail></SourceReference></Unit>`,
	))
	expect(t, "with unit references", coreOf(recs[0]), map[string]string{"associatedReferences": "Smith 1990 | Biondi E., 2001. Fitosociologia 38: 3-105. p. 20"})
	expect(t, "alone", coreOf(recs[1]), map[string]string{"associatedReferences": "Flora europaea, Vol. 3, p. 461"})
}

// TestSiteMeasurements: Gathering/SiteMeasurementsOrFacts (the audit's
// crafted/spot.xml U1) become MeasurementOrFact rows after the unit's own,
// marked "site" in measurementRemarks.
func TestSiteMeasurements(t *testing.T) {
	recs := mapDoc(t, unitsDoc(`<Unit><UnitID>1</UnitID><Gathering><SiteMeasurementsOrFacts>
		<SiteMeasurementOrFact><MeasurementOrFactAtomised><Parameter>water temperature</Parameter><LowerValue>12.5</LowerValue><UnitOfMeasurement>°C</UnitOfMeasurement></MeasurementOrFactAtomised></SiteMeasurementOrFact>
		<SiteMeasurementOrFact><MeasurementOrFactText>turbid water</MeasurementOrFactText></SiteMeasurementOrFact>
		</SiteMeasurementsOrFacts></Gathering>
		<MeasurementsOrFacts><MeasurementOrFact><MeasurementOrFactAtomised><Parameter>weight</Parameter><LowerValue>3</LowerValue><UnitOfMeasurement>g</UnitOfMeasurement></MeasurementOrFactAtomised></MeasurementOrFact></MeasurementsOrFacts></Unit>`))
	rows := extOf(recs[0], occurrence.RowTypeMeasurement)
	if len(rows) != 3 {
		t.Fatalf("%d measurement rows, want 1 unit fact and 2 site facts: %v", len(rows), rows)
	}
	expect(t, "unit fact", rows[0], map[string]string{"measurementType": "weight", "measurementValue": "3", "measurementRemarks": ""})
	expect(t, "site fact", rows[1], map[string]string{"measurementType": "water temperature", "measurementValue": "12.5",
		"measurementUnit": "°C", "measurementRemarks": "site"})
	expect(t, "site text", rows[2], map[string]string{"measurementType": "", "measurementValue": "turbid water", "measurementRemarks": "site"})
	checkDeclared(t, recs)
}

// TestElevationAndDepthAccuracy: Altitude and Depth Accuracy go to GBIF's
// elevationAccuracy and depthAccuracy, converted with the value's unit
// (the audit's crafted/spot.xml U1: 1000-1200 ft, accuracy 50).
func TestElevationAndDepthAccuracy(t *testing.T) {
	mof := func(lo, unit, acc string) string {
		return "<MeasurementOrFactAtomised><LowerValue>" + lo + "</LowerValue><UnitOfMeasurement>" + unit +
			"</UnitOfMeasurement><Accuracy>" + acc + "</Accuracy></MeasurementOrFactAtomised>"
	}
	recs := mapDoc(t, unitsDoc(
		`<Unit><UnitID>1</UnitID><Gathering><Altitude><MeasurementOrFactAtomised><LowerValue>1000</LowerValue><UpperValue>1200</UpperValue>
		<UnitOfMeasurement>ft</UnitOfMeasurement><Accuracy>50</Accuracy></MeasurementOrFactAtomised></Altitude>
		<Depth>`+mof("12", "m", "0.5")+`</Depth></Gathering></Unit>`,
		`<Unit><UnitID>2</UnitID><Gathering><Altitude>`+mof("300ft", "", "10")+`</Altitude><Depth>`+mof("3", "fathoms", "1")+`</Depth></Gathering></Unit>`,
		`<Unit><UnitID>3</UnitID><Gathering><Altitude>`+mof("300", "m", "about 10")+`</Altitude></Gathering></Unit>`,
	))
	expect(t, "feet and metres", coreOf(recs[0]), map[string]string{"minimumElevationInMeters": "304.8", "maximumElevationInMeters": "365.76",
		"gbif:elevationAccuracy": "15.24", "minimumDepthInMeters": "12", "gbif:depthAccuracy": "0.5"})
	expect(t, "unit in the value; unknown unit", coreOf(recs[1]), map[string]string{"minimumElevationInMeters": "91.44",
		"gbif:elevationAccuracy": "3.05", "minimumDepthInMeters": "", "gbif:depthAccuracy": ""})
	expect(t, "not a number", coreOf(recs[2]), map[string]string{"gbif:elevationAccuracy": ""})
	checkDeclared(t, recs)
}

// TestZoologicalAuthorship: AuthorTeamParenthesisAndYear is the original
// author in parentheses and CombinationAuthorTeamAndYear the combination's;
// AuthorTeamOriginalAndYear is used only without a parenthesis (the
// audit's crafted/spot.xml U2 gave "(Linnaeus, 1761) Linnaeus, 1761").
func TestZoologicalAuthorship(t *testing.T) {
	unit := func(id, authors string) string {
		return "<Unit><UnitID>" + id + "</UnitID><Identifications><Identification><Result><TaxonIdentified><ScientificName>" +
			"<FullScientificNameString>Carabus auratus</FullScientificNameString><NameAtomised><Zoological>" +
			"<GenusOrMonomial>Carabus</GenusOrMonomial><SpeciesEpithet>auratus</SpeciesEpithet>" + authors +
			"</Zoological></NameAtomised></ScientificName></TaxonIdentified></Result></Identification></Identifications></Unit>"
	}
	recs := mapDoc(t, unitsDoc(
		unit("1", "<AuthorTeamOriginalAndYear>Linnaeus, 1761</AuthorTeamOriginalAndYear><AuthorTeamParenthesisAndYear>Linnaeus, 1761</AuthorTeamParenthesisAndYear>"),
		unit("2", "<AuthorTeamParenthesisAndYear>Linnaeus, 1761</AuthorTeamParenthesisAndYear><CombinationAuthorTeamAndYear>Fabricius, 1775</CombinationAuthorTeamAndYear>"),
		unit("3", "<AuthorTeamOriginalAndYear>Linnaeus, 1758</AuthorTeamOriginalAndYear>"),
	))
	for i, want := range []string{"(Linnaeus, 1761)", "(Linnaeus, 1761) Fabricius, 1775", "Linnaeus, 1758"} {
		if got := recs[i].Core[dwc+"scientificNameAuthorship"]; got != want {
			t.Errorf("unit %d: scientificNameAuthorship %q, want %q", i+1, got, want)
		}
	}
}

// TestSpecimenOwner: SpecimenUnit/Owner, the owner of the physical
// specimen, names the ownerInstitutionCode: the abbreviation when there is
// one, else the organisation's name (the .abcda sample's "Senckenberg
// Gesellschaft für Naturforschung"); a person alone is no institution.
func TestSpecimenOwner(t *testing.T) {
	owner := func(id, contact string) string {
		return "<Unit><UnitID>" + id + "</UnitID><SpecimenUnit><Owner>" + contact + "</Owner></SpecimenUnit></Unit>"
	}
	org := func(repr string) string {
		return `<Organisation><Name><Representation language="en">` + repr + `</Representation></Name></Organisation>`
	}
	recs := mapDoc(t, unitsDoc(
		owner("1", org("<Text>Senckenberg Gesellschaft für Naturforschung</Text>")+"<EmailAddresses><EmailAddress>a@b.de</EmailAddress></EmailAddresses>"),
		owner("2", org("<Text>Royal Museum for Central Africa</Text><Abbreviation>RMCA</Abbreviation>")),
		owner("3", "<Person><FullName>Smith, J.</FullName></Person>"),
	))
	expect(t, "name", coreOf(recs[0]), map[string]string{"ownerInstitutionCode": "Senckenberg Gesellschaft für Naturforschung"})
	expect(t, "abbreviation", coreOf(recs[1]), map[string]string{"ownerInstitutionCode": "RMCA"})
	expect(t, "person", coreOf(recs[2]), map[string]string{"ownerInstitutionCode": ""})
	checkDeclared(t, recs)
}

// TestOtherCatalogNumbers: observation unit identifiers, accession numbers
// (with their catalogue) and previous units' IDs (with the previous
// institution and collection) become otherCatalogNumbers; the UnitID
// itself is not repeated (the audit's all_simple_fields sample lost all
// three).
func TestOtherCatalogNumbers(t *testing.T) {
	recs := mapDoc(t, unitsDoc(
		`<Unit><UnitID>1</UnitID><ObservationUnit><ObservationUnitIdentifiers>
		<ObservationUnitIdentifier preferred="true">OBS-7</ObservationUnitIdentifier><ObservationUnitIdentifier>1</ObservationUnitIdentifier>
		</ObservationUnitIdentifiers></ObservationUnit></Unit>`,
		`<Unit><UnitID>2</UnitID><SpecimenUnit><Accessions>
		<AccessionCatalogue>Main register</AccessionCatalogue><AccessionNumber>A-100</AccessionNumber>
		<AccessionDate>1901</AccessionDate><AccessionNumber>A-200</AccessionNumber>
		</Accessions><History><PreviousUnits>
		<PreviousUnit><PreviousSourceInstitutionID>B</PreviousSourceInstitutionID><PreviousSourceID>Herbarium</PreviousSourceID><PreviousUnitID>B 10 0001</PreviousUnitID></PreviousUnit>
		<PreviousUnit><PreviousUnitID>135791113</PreviousUnitID></PreviousUnit>
		<PreviousUnit><PreviousSourceInstitutionID>M</PreviousSourceInstitutionID><PreviousUnitText>ex herb. Schultes</PreviousUnitText></PreviousUnit>
		</PreviousUnits></History></SpecimenUnit></Unit>`,
	))
	expect(t, "observation", coreOf(recs[0]), map[string]string{"otherCatalogNumbers": "OBS-7"})
	expect(t, "specimen", coreOf(recs[1]), map[string]string{
		"otherCatalogNumbers": "Main register:A-100 | A-200 | B:Herbarium:B 10 0001 | 135791113 | ex herb. Schultes"})
	checkDeclared(t, recs)
}

// TestSynecology: the Synecology Comment follows Gathering/Notes in
// eventRemarks (the culture-collection sample's "Algal taxon co-cultured as
// prey." was dropped) and the associated taxa's names become associatedTaxa.
func TestSynecology(t *testing.T) {
	taxon := func(name string) string {
		return "<TaxonIdentified><ScientificName><FullScientificNameString>" + name + "</FullScientificNameString></ScientificName></TaxonIdentified>"
	}
	recs := mapDoc(t, unitsDoc(
		`<Unit><UnitID>1</UnitID><Gathering><Notes>pond almost dry</Notes><Synecology><Comment language="en">Algal taxon co-cultured as prey.</Comment>
		<AssociatedTaxa>`+taxon("Quercus robur L.")+taxon("Fagus sylvatica L.")+`</AssociatedTaxa></Synecology></Gathering></Unit>`,
		`<Unit><UnitID>2</UnitID><Gathering><Synecology><Comment>on oak bark</Comment></Synecology></Gathering></Unit>`,
		`<Unit><UnitID>3</UnitID><Gathering><Biotope><Text>maquis on limestone</Text></Biotope><Synecology><Syntaxon>Quercetum ilicis</Syntaxon></Synecology></Gathering></Unit>`,
		`<Unit><UnitID>4</UnitID><Gathering><Synecology><Syntaxon>Arrhenatheretum elatioris</Syntaxon></Synecology></Gathering></Unit>`,
	))
	expect(t, "all", coreOf(recs[0]), map[string]string{"eventRemarks": "pond almost dry | Algal taxon co-cultured as prey.",
		"associatedTaxa": "Quercus robur L. | Fagus sylvatica L."})
	expect(t, "comment only", coreOf(recs[1]), map[string]string{"eventRemarks": "on oak bark", "associatedTaxa": "", "habitat": ""})
	expect(t, "biotope and syntaxon", coreOf(recs[2]), map[string]string{"habitat": "maquis on limestone | syntaxon: Quercetum ilicis"})
	expect(t, "syntaxon only", coreOf(recs[3]), map[string]string{"habitat": "syntaxon: Arrhenatheretum elatioris"})
	checkDeclared(t, recs)
}

// TestPreparationAgent: a preparation's agent stays with its type in
// preparations (the culture-collection sample's 100 PreparationAgents were
// dropped), in ABCD 2.06 and 2.1 spelling, and so do its process,
// materials and (2.1) date; 2.1's preparationsText follows.
func TestPreparationAgent(t *testing.T) {
	unit := func(id, preps string) string {
		return "<Unit><UnitID>" + id + "</UnitID><KindOfUnit>whole organism</KindOfUnit><SpecimenUnit><Preparations>" + preps + "</Preparations></SpecimenUnit></Unit>"
	}
	recs := mapDoc(t, unitsDoc(
		unit("1", `<Preparation><PreparationAgent><Person><FullName>Melkonian, M.</FullName></Person></PreparationAgent></Preparation>`),
		unit("2", `<Preparation><PreparationType>herbarium sheet</PreparationType><PreparationAgent><Organisation><Name><Representation language="en">
		<Text>Herbarium Berolinense</Text></Representation></Name></Organisation></PreparationAgent></Preparation><Preparation><PreparationType>DNA extract</PreparationType></Preparation>`),
		unit("3", `<preparation><preparationType>clone culture</preparationType><preparationAgent><Person><FullName>Bruder, K.</FullName></Person></preparationAgent></preparation>`),
		unit("4", `<Preparation><PreparationType>skin</PreparationType><PreparationProcess>tanned</PreparationProcess>`+
			`<PreparationMaterials>borax</PreparationMaterials><PreparationAgent><Person><FullName>Ortiz, P.</FullName></Person></PreparationAgent></Preparation>`+
			`<Preparation><PreparationProcess>frozen</PreparationProcess></Preparation>`),
		unit("5", `<preparation><preparationType>slide</preparationType><preparationAgent><Person><FullName>Lee, J.</FullName></Person></preparationAgent>`+
			`<preparationDate>1998-05-02</preparationDate></preparation><preparation><preparationDate>2001</preparationDate></preparation>`+
			`<preparationsText>remounted in 2010</preparationsText>`),
	))
	expect(t, "agent only", coreOf(recs[0]), map[string]string{"preparations": "whole organism | prepared by Melkonian, M."})
	expect(t, "organisation", coreOf(recs[1]), map[string]string{"preparations": "whole organism | herbarium sheet (prepared by Herbarium Berolinense) | DNA extract"})
	expect(t, "2.1", coreOf(recs[2]), map[string]string{"preparations": "whole organism | clone culture (prepared by Bruder, K.)"})
	expect(t, "process and materials", coreOf(recs[3]), map[string]string{
		"preparations": "whole organism | skin (process: tanned; materials: borax; prepared by Ortiz, P.) | process: frozen"})
	expect(t, "2.1 dates and text", coreOf(recs[4]), map[string]string{
		"preparations": "whole organism | slide (prepared by Lee, J., 1998-05-02) | prepared 2001 | remounted in 2010"})
}

// TestReferenceCitationDetail: the CitationDetail of an identification's
// references and of the unit's references follows its TitleCitation, as
// for SourceReference (the id_latin sample's "p.  20 + 461" was dropped).
func TestReferenceCitationDetail(t *testing.T) {
	ref := func(title, detail string) string {
		return "<Reference><TitleCitation>" + title + "</TitleCitation><CitationDetail>" + detail + "</CitationDetail></Reference>"
	}
	recs := mapDoc(t, unitsDoc(`<Unit><UnitID>1</UnitID><Identifications>
		<Identification><PreferredFlag>1</PreferredFlag><References>`+ref("Rabenhorst, L: Flora europaea algarum, Vol. 3", "p. 20 + 461")+ref("Smith 1990.", "fig. 2")+`</References></Identification>
		<Identification><References>`+ref("Jones 2001", "p. 4")+`</References></Identification></Identifications>
		<UnitReferences><UnitReference><TitleCitation>Brown 1950</TitleCitation><CitationDetail>pl. 3</CitationDetail></UnitReference>
		<UnitReference><TitleCitation>Green 1960</TitleCitation></UnitReference></UnitReferences></Unit>`))
	expect(t, "core", coreOf(recs[0]), map[string]string{
		"identificationReferences": "Rabenhorst, L: Flora europaea algarum, Vol. 3, p. 20 + 461 | Smith 1990. fig. 2",
		"associatedReferences":     "Brown 1950, pl. 3 | Green 1960"})
	expect(t, "extension", extOf(recs[0], occurrence.RowTypeIdentification)[0], map[string]string{"identificationReferences": "Jones 2001, p. 4"})
}

// TestGatheringStratigraphy: Gathering/Stratigraphy chronostratigraphic
// terms fill the earliest/latest term pair of their rank (from Domain, a
// rank closing the term, or the chart's eons, eras and periods: the
// 206-response sample's "Paleozoic" was dropped); a term of unknown rank, a
// second name for a rank already filled, and StratigraphyText ("Ashgill")
// go to locationRemarks, labelled.
func TestGatheringStratigraphy(t *testing.T) {
	chrono := func(domain, term string) string {
		d := ""
		if domain != "" {
			d = "<Domain>" + domain + "</Domain>"
		}
		return `<ChronostratigraphicTerm Language="en">` + d + "<Term>" + term + "</Term></ChronostratigraphicTerm>"
	}
	recs := mapDoc(t, unitsDoc(
		`<Unit><UnitID>1</UnitID><Gathering><AreaDetail>quarry wall</AreaDetail><Stratigraphy><ChronostratigraphicTerms>`+
			chrono("", "Ordovician")+chrono("", "Paleozoic")+chrono("", "Silurian")+chrono("", "Ashgillian")+
			`</ChronostratigraphicTerms><BiostratigraphicTerms><BiostratigraphicTerm><Term>Dicellograptus complanatus zone</Term></BiostratigraphicTerm>`+
			`</BiostratigraphicTerms><StratigraphyText>Ashgill</StratigraphyText></Stratigraphy></Gathering>
		<UnitExtension><EarthScienceSpecimen><UnitStratigraphicDetermination><ChronostratigraphicAttributions><ChronostratigraphicAttribution>
		<ChronoStratigraphicDivision>System</ChronoStratigraphicDivision><ChronostratigraphicName>Ordovician</ChronostratigraphicName>
		</ChronostratigraphicAttribution></ChronostratigraphicAttributions></UnitStratigraphicDetermination></EarthScienceSpecimen></UnitExtension></Unit>`,
		`<Unit><UnitID>2</UnitID><Gathering><Stratigraphy><ChronostratigraphicTerms>`+
			chrono("Stage", "Toarcian")+chrono("", "Lower Jurassic Series")+chrono("", "Mesozoic Era")+
			`</ChronostratigraphicTerms><BiostratigraphicTerms><BiostratigraphicTerm><Term>Dactylioceras tenuicostatum zone</Term></BiostratigraphicTerm>`+
			`<BiostratigraphicTerm><Domain>ammonites</Domain><Term>Harpoceras serpentinum zone</Term></BiostratigraphicTerm></BiostratigraphicTerms>`+
			`</Stratigraphy></Gathering></Unit>`,
	))
	expect(t, "chart names", coreOf(recs[0]), map[string]string{
		"earliestPeriodOrLowestSystem": "Ordovician", "latestPeriodOrHighestSystem": "Ordovician",
		"earliestEraOrLowestErathem": "Paleozoic", "latestEraOrHighestErathem": "Paleozoic",
		"lowestBiostratigraphicZone": "Dicellograptus complanatus zone", "highestBiostratigraphicZone": "Dicellograptus complanatus zone",
		"locationRemarks": "quarry wall | chronostratigraphy: Silurian | chronostratigraphy: Ashgillian | stratigraphy: Ashgill"})
	expect(t, "ranks given", coreOf(recs[1]), map[string]string{
		"earliestAgeOrLowestStage": "Toarcian", "latestAgeOrHighestStage": "Toarcian",
		"earliestEpochOrLowestSeries": "Lower Jurassic", "latestEpochOrHighestSeries": "Lower Jurassic",
		"earliestEraOrLowestErathem": "Mesozoic", "lowestBiostratigraphicZone": "", "highestBiostratigraphicZone": "",
		"locationRemarks": "biostratigraphy: Dactylioceras tenuicostatum zone | biostratigraphy: Harpoceras serpentinum zone"})
	checkDeclared(t, recs)
}
