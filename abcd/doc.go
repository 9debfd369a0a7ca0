// Package abcd reads ABCD 2.06 and 2.1 documents (bare DataSets roots and
// BioCASe protocol responses, EFG extensions, ABCD 3.0 elements mixed into
// 2.06), ABCD archives (BioCASe zips of response.NNNNN.xml, GBIF .abcda) and
// BioCASe endpoints, and maps every Unit to a Darwin Core raw record
// (occurrence.RawRecord: core terms plus Identification, Multimedia and
// MeasurementOrFact extension rows). The dataset metadata becomes EML.
//
// # Reading
//
// A document is cut into one Unit at a time by a streaming lexer
// (github.com/orisano/gosax cuts markup and text; this package checks
// names, attributes, entities, nesting and UTF-8 and counts lines) and the
// unit is built into a node arena reused for the next unit, so memory is
// bounded by one unit whatever the document size. Elements are matched by
// local name: abcd:, abcd21:, a default namespace and prefixes that were
// never declared all work. Refused with a *ParseError naming the document,
// line and unit: malformed XML (ErrSyntax), a root other than DataSets or a
// BioCASe response (ErrWrongRoot), DataSets bound to a namespace other than
// ABCD 2.06's or 2.1's, such as ABCD 1.2's (ErrUnsupportedSchema; no
// namespace, or an undeclared prefix, is read as ABCD 2), a DOCTYPE
// declaring entities (ErrEntity;
// only the five predefined entities and character references are known), a
// text node or tag over Options.MaxTokenBytes or a unit over
// Options.MaxUnitBytes (ErrTooLarge; a 2 GB element is stopped after the
// cap, not buffered). Problems inside a unit (bad dates, coordinates out of
// range, an unknown record basis) are not errors: values pass through
// verbatim and the interpretation layer flags them.
//
// Text values are trimmed and line breaks with their indentation fold into
// one space. Lists are joined with " | " (the Darwin Core recommendation,
// and what GBIF does for recordedBy), dropping exact duplicates.
//
// # Mapping (paths relative to DataSets/DataSet/Units/Unit)
//
// G = what GBIF's ABCD indexing does, K = the BioCASe "DarwinCore Creator"
// Kettle job; the chosen rule and why.
//
//	ABCD                                        Darwin Core                 rule (why)
//	UnitGUID                                    occurrenceID                as is; else "urn:catalog:INST:COLL:UNITID" from the triplet
//	                                                                        (one record per unit, so the GUID is always safe to use; G uses
//	                                                                        the triplet when a unit yields several records)
//	UnitID / SourceInstitutionID / SourceID     catalogNumber / institutionCode / collectionCode   as is (G, K)
//	RecordBasis                                 basisOfRecord               verbatim (Living, "Type specimen" are mapped by the interpreter,
//	                                                                        which knows the vocabulary; RockSpecimen is flagged there as
//	                                                                        BASIS_OF_RECORD_INVALID); AbsenceObservation also
//	                                                                        sets occurrenceStatus=absent (K)
//	DateLastEdited                              dcterms:modified            as is
//	CollectorsFieldNumber; Gathering/Code       recordNumber; fieldNumber   as is
//	Notes; Sex; RecordURI                       occurrenceRemarks; sex; dcterms:references
//	KindOfUnit + SpecimenUnit/Preparations/     preparations                all joined (G takes KindOfUnit; 2.1 spells the elements in lower
//	  Preparation/PreparationType,                                          camel case, both accepted); a preparation as its type and, in
//	  PreparationProcess, -Materials,                                       parentheses, "process: P; materials: M; prepared by AGENT, DATE"
//	  PreparationAgent, 2.1's preparationDate;                              (the details alone without a type; agent = Person/FullName, else
//	  2.1's preparationsText                                                the Organisation's name): DwC has one preparations term, and this
//	                                                                        keeps how, with what and by whom each step was made; then 2.1's
//	                                                                        preparationsText
//	SpecimenUnit/Owner/Organisation/Name/       ownerInstitutionCode        the owner of the physical specimen: the first Representation's
//	  Representation/Abbreviation, else Text                                Abbreviation (an acronym, as the term's "code" asks), else its
//	                                                                        Text; an owner that is only a Person is not an institution and
//	                                                                        is left out, as are the owner's address, e-mail and roles
//	                                                                        (no DwC term); neither G nor K maps it
//	ObservationUnit/ObservationUnitIdentifiers/ otherCatalogNumbers         joined in this order; an accession number as "CATALOGUE:NUMBER"
//	  ObservationUnitIdentifier; SpecimenUnit/                              when its triple names an AccessionCatalogue; a previous unit as
//	  Accessions/AccessionNumber; SpecimenUnit/                             "INST:SOURCE:ID" when PreviousSourceInstitutionID or -SourceID
//	  History/PreviousUnits/PreviousUnit/                                   is given, else its ID, else PreviousUnitGUID (2.1), else
//	  PreviousUnitID                                                        PreviousUnitText; a value equal to UnitID is left out (G reads
//	                                                                        them as identifiers but writes none to DwC)
//	Sequences/Sequence/ID-in-Database           associatedSequences         joined
//	UnitReferences/UnitReference;               associatedReferences        each reference as "TitleCitation, CitationDetail" (a space, not
//	  SourceReference (TitleCitation,                                       ", ", after a title ending in . , ; :), joined; SourceReference
//	  CitationDetail)                                                       (the publication a literature record comes from) last; neither
//	                                                                        G nor K maps SourceReference or CitationDetail
//	ZoologicalUnit/PhasesOrStages/PhaseOrStage  lifeStage                   joined
//	Associations/UnitAssociation                associatedOccurrences       "TYPE: urn:catalog:INST:SOURCE:UNITID", joined
//	Gathering/Agents/GatheringAgent             recordedBy                  Person/FullName, else AgentText, else Organisation name; agents
//	                                                                        with primarycollector=true first, then by the sequence attribute,
//	                                                                        then document order; joined " | " (G). GatheringAgentsText only
//	                                                                        when no agent has a name (it usually repeats them; K takes the
//	                                                                        first kind present)
//	GatheringAgent/(Person/)ResourceURIs/       recordedByID                all URIs of all agents in the same order, joined (G; ABCD 3.0
//	  ResourceURI                                                           elements inside 2.06 documents)
//	Gathering/DateTime/ISODateTimeBegin, End    eventDate                   ISO interval "Begin/End"; Begin alone when End is missing or equal;
//	                                                                        End alone; else DateText (G falls back to End and DateText but
//	                                                                        drops End; K keeps only Begin). Verbatim: "31.12.1978" stays as is
//	Gathering/DateTime/DateText                 verbatimEventDate           as is
//	TimeOfDayBegin[/End]; DayNumberBegin, End   eventTime; startDayOfYear, endDayOfYear
//	Gathering/Method; Biotope/Text (else Name)  samplingProtocol; habitat
//	Gathering/Notes; Synecology/Comment         eventRemarks                joined; the Comment is on "synecological features of the
//	                                                                        gathering site" (XSD), so about the event, not occurrenceRemarks
//	Gathering/Synecology/AssociatedTaxa/        associatedTaxa              the names joined, without a relationship (ABCD gives none: they
//	  TaxonIdentified/ScientificName/                                       are "other taxa observed at the gathering site")
//	  FullScientificNameString
//	Gathering/Synecology/Syntaxon               habitat                     after Biotope, as "syntaxon: NAME" (the site's plant community;
//	                                                                        labelled, since "Quercetum ilicis" reads as a taxon)
//	Gathering/LocalityText; AreaDetail          locality; locationRemarks   (TDWG would say verbatimLocality; G and K say locality)
//	Gathering/Country/NameDerived, else Name    country
//	Gathering/Country/ISO3166Code               countryCode                 verbatim ("BRD" stays); never a name (G, K): the interpreter
//	                                                                        derives the code from country and flags it
//	Gathering/NamedAreas/NamedArea              continent, waterBody, islandGroup, island, stateProvince, county, municipality
//	                                                                        by lower-cased AreaClass (Latin/English synonyms: ocean, sea,
//	                                                                        archipelago, province, region, district...), first wins;
//	                                                                        all AreaNames joined -> higherGeography (K)
//	.../SiteCoordinates/CoordinatesLatLong/     decimalLatitude, decimalLongitude   the first SiteCoordinates with both (K); verbatim
//	  LatitudeDecimal, LongitudeDecimal
//	.../SpatialDatum, else CoordinatesUTM/      geodeticDatum               verbatim ("4326" is interpreted downstream)
//	  UTMDatum
//	.../CoordinateErrorDistanceInMeters         coordinateUncertaintyInMeters
//	.../VerbatimLatitude, VerbatimLongitude     verbatimLatitude, verbatimLongitude   ABCD 2.1 (G)
//	.../AccuracyStatement; SiteCoordinates/     georeferenceRemarks         joined; AccuracyStatement is free text ("GoogleEarth"); K puts
//	  GeoreferenceRemarks (2.1)                                             it into coordinatePrecision, which must be a number
//	SiteCoordinates/GeoreferenceSources,        georeferenceSources, georeferenceVerificationStatus   ABCD 2.1, as is
//	  GeoreferenceVerificationStatus (2.1)
//	.../CoordinatesText; SiteCoordinates/       verbatimCoordinates; georeferenceProtocol
//	  CoordinateMethod
//	.../CoordinatesUTM/UTMText, else UTMZone-   verbatimCoordinates, verbatimCoordinateSystem, verbatimSRS
//	  Full (else UTMZone + UTMSubzone),                                     when there is no CoordinatesText: "33U 389000 5819000"
//	  UTMEasting, UTMNorthing, UTMNS; UTMDatum                              (UTMNS in parentheses after it), system "UTM", SRS = UTMDatum;
//	                                                                        not converted to degrees (neither G nor K maps UTM values)
//	Gathering/GML                               (not mapped)                GML is not WKT; G copies it into footprintWKT, which then fails
//	Gathering/Altitude | Depth | Height         minimum/maximumElevationInMeters, minimum/maximumDepthInMeters,
//	  MeasurementOrFactAtomised/LowerValue,       minimum/maximumDistanceAboveSurfaceInMeters
//	  UpperValue, UnitOfMeasurement                                         metres as is, feet and km converted, other units left out;
//	                                                                        a text such as "0-1,5" or "100 m" is parsed when no atomised
//	                                                                        value exists; MeasurementOrFactText -> verbatimElevation /
//	                                                                        verbatimDepth
//	Gathering/Altitude | Depth/                 gbif:elevationAccuracy, gbif:depthAccuracy   (G) in metres, converted with the
//	  MeasurementOrFactAtomised/Accuracy                                    value's unit (50 ft -> 15.24); left out when not a number
//	Identifications/Identification              core + Identification extension   ONE record per unit: the first with PreferredFlag
//	                                                                        true/1/yes/y (any case) goes to the core, else the first
//	                                                                        identification; all others, in document order, become
//	                                                                        Identification extension rows (K's rule; G emits one record per
//	                                                                        identification when none is flagged, duplicating specimens; K
//	                                                                        leaves the core empty when none is flagged)
//	.../Result/TaxonIdentified/ScientificName/  scientificName, scientificNameID   FullScientificNameString; ResourceURIs joined
//	  FullScientificNameString; ResourceURIs
//	.../ScientificName/NameAtomised/(Botanical| genus, subgenus, specificEpithet, infraspecificEpithet, taxonRank,
//	  Zoological|Bacterial|Viral)                 scientificNameAuthorship, nomenclaturalCode
//	                                                                        GenusOrMonomial; FirstEpithet or SpeciesEpithet; Infraspecific-
//	                                                                        or SubspeciesEpithet; Rank; "(parenthetical) author" from the
//	                                                                        code's author elements (Zoological: "(AuthorTeamParenthesisAnd-
//	                                                                        Year) CombinationAuthorTeamAndYear", AuthorTeamOriginalAndYear
//	                                                                        only without a parenthesis); code = TaxonIdentified/Code, else ICN,
//	                                                                        ICZN, ICNP or ICTV from the atomised kind
//	.../HigherTaxa/HigherTaxon                  kingdom, phylum, class, order, family, genus   by HigherTaxonRank in Latin or English,
//	                                                                        any case (regnum, divisio/division -> phylum, classis, ordo,
//	                                                                        familia); all names joined -> higherClassification. K never
//	                                                                        fills phylum; we do
//	.../ScientificName/IdentificationQualifier; identificationQualifier; taxonRemarks
//	  TaxonIdentified/NameComments
//	.../Result/Extension/MineralRockIdentified  scientificName; higherClassification   EFG: ClassifiedName/FullScientificNameString
//	                                                                        (else VarietalNameString); MineralRockGroup/MineralRockGroupName
//	Identification/Identifiers/IdentifiersText, identifiedBy                joined person (or organisation) names
//	  else Identifier/PersonName/FullName
//	Identifier/ResourceURIs/ResourceURI         identifiedByID              joined
//	Identification/Date                         dateIdentified              same interval rule as eventDate
//	Identification/Notes; VerificationLevel;    identificationRemarks; identificationVerificationStatus; identificationReferences
//	  References/Reference (TitleCitation,                                  each reference "TitleCitation, CitationDetail" as in
//	  CitationDetail)                                                       associatedReferences, joined
//	SpecimenUnit/NomenclaturalTypeDesignations/ typeStatus; gbif:typifiedName   all designations, paired position by position: the
//	  .../TypeStatus; TypifiedName/FullScientificNameString                 n-th name is the n-th status's; identical (status, name) pairs
//	                                                                        once; a designation without a name leaves an empty slot
//	                                                                        ("holotype | paratype" with "| Aus bus L."), a list of empty
//	                                                                        slots is left out (G keeps the first, K joins with "; ")
//	UnitExtension/EarthScienceSpecimen/         earliest/latest{Eon,Era,Period,Epoch,Age}... by ChronoStratigraphicDivision
//	  UnitStratigraphicDetermination/             (System -> Period, Series -> Epoch, ...); Lithostratigraphic
//	  Chrono-/LithostratigraphicAttributions      group/formation/member/bed
//	Gathering/Stratigraphy/LithostratigraphicTerms  lithostratigraphicTerms     joined
//	Gathering/Stratigraphy/                     earliest/latest{Eon,Era,Period,Epoch,Age}...   both of a pair set to the Term,
//	  ChronostratigraphicTerms/                                             by its rank: Domain when that is a rank ("System"), else a rank
//	  ChronostratigraphicTerm (Domain, Term)                                closing the Term ("Jurassic Period" -> Period "Jurassic"), else
//	                                                                        the chart's name of an eon, era or period ("Paleozoic" -> Era;
//	                                                                        series and stages are too many and often regional); after EFG's
//	                                                                        attributions, which win. A term of unknown rank, or a second
//	                                                                        name for a filled rank, goes to locationRemarks as
//	                                                                        "chronostratigraphy: TERM" (one pair holds one name, and a
//	                                                                        document's order need not be oldest first)
//	Gathering/Stratigraphy/                     lowest/highestBiostratigraphicZone  one zone is both bounds; several (ABCD states no
//	  BiostratigraphicTerms/                                                order, so none is known to be the lowest) go to locationRemarks
//	  BiostratigraphicTerm/Term                                             as "biostratigraphy: ZONE", after the chronostratigraphy
//	Gathering/Stratigraphy/StratigraphyText     locationRemarks             "stratigraphy: TEXT", after AreaDetail: DwC's GeologicalContext
//	                                                                        has no remarks term, and stratigraphy places the find in the
//	                                                                        rock column (the XSD: "related to the site"); labelled since
//	                                                                        "Ashgill" alone reads as a place
//	MultiMediaObjects/MultiMediaObject          Multimedia extension (GBIF)  identifier=FileURI, references=ProductURI, format=Format,
//	                                                                        type from the MIME top level (image -> StillImage, audio -> Sound,
//	                                                                        video -> MovingImage; a IIIF manifest stays untyped),
//	                                                                        title=Context, description=Comment, created=CreatedDate,
//	                                                                        creator=Creator, license=IPR/Licenses/License/URI else Text,
//	                                                                        rightsHolder=IPR/Copyrights/Copyright/Text
//	MeasurementsOrFacts/MeasurementOrFact       MeasurementOrFact extension  type=Parameter, value=LowerValue or "Lower-Upper",
//	  /MeasurementOrFactAtomised                                            accuracy, unit, determinedBy=MeasuredBy,
//	                                                                        determinedDate=MeasurementDateTime, method; a text-only
//	                                                                        fact becomes the value with no type (no remarks: the type has no
//	                                                                        Notes in 2.06 or 2.1)
//	Gathering/SiteMeasurementsOrFacts/          MeasurementOrFact extension  the same columns, after the unit's facts, with
//	  SiteMeasurementOrFact                                                 measurementRemarks "site" (water temperature, pH...)
//	DataSet/Metadata/Description/Representation/Title  datasetName (every record) and EML title
//	DataSet/DatasetGUID                         datasetID (every record) and EML alternateIdentifier
//	DataSet/Metadata/IPRStatements/Licenses/    dcterms:license (every record) and EML intellectualRights: URI, else a Text that is
//	  License/URI, Text                                                     a URL, else the Text (misspelt URIs pass through)
//
// # Dataset metadata and EML
//
// DatasetMeta holds the DataSet-level elements; WriteEML writes EML 2.1.1
// (GBIF profile): title, alternateIdentifier (DatasetGUID), creator (each
// Owner: organisation, person, address, e-mail, URL; EML requires one, so
// without owners RevisionData/Creators, else the ContentContacts, else the
// TechnicalContacts, else an organisation named by the title, or
// "unknown"),
// metadataProvider (TechnicalContacts), pubDate (RevisionData/DateModified),
// abstract (Details), additionalInfo ("Coverage: " + Representation/Coverage,
// which is free text, often taxonomic, where EML's geographicCoverage would
// need bounding coordinates; "Dataset created: " + RevisionData/DateCreated,
// for which EML 2.1.1 has no element: pubDate is the publication and
// gbif:dateStamp the metadata's date), intellectualRights (licence text,
// copyrights, IPR declarations, terms of use, disclaimers, a text equal to
// the licence text written once, licence URI as a ulink), distribution URL
// (Representation/URI), contact (ContentContacts), and
// additionalMetadata/gbif citation and resourceLogoUrl.
//
// # Archives, sources and BioCASe
//
// OpenArchive lists *.xml and *.response entries in name order and refuses
// ../ or absolute entry names and entries or archives that inflate past
// ArchiveOptions.MaxRatio times their compressed size (ErrUnsafeArchive),
// counting real bytes since declared sizes can lie. OpenSource reads a
// document, an archive or a biocase+http(s) endpoint with documents parsed
// in parallel and records handed out in document order; a broken document
// is listed in Problems and counted while the others are still read (a
// document of up to SourceOptions.BatchSize units contributes nothing when
// broken). Harvester speaks the BioCASe protocol (inventory, capabilities,
// paged search with both paging conventions, retries with backoff, a
// polite request rate) and OpenSource prefers a provider's ready-made ABCD
// archive when the inventory lists one.
package abcd
