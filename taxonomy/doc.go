// Package taxonomy owns scientific names and the taxonomies records are
// matched to: the name parser, checklists loaded into a store, the
// matcher that gives records GBIF-like taxon keys, and the taxonomy
// derived from the records when no checklist is loaded.
//
// # Names
//
// Parse splits a scientific name into genus, epithets, rank markers,
// hybrid markers, qualifiers (cf., aff.), authorships (basionym in
// brackets, ex-authors, years, sanctioning authors) and notes (sensu, non,
// nom. nud.), infers rank and nomenclatural code, and classifies what is
// no parsable name (viruses, hybrid formulas, OTUs and BOLD BINs,
// placeholders) the way GBIF's name parser does; GBIF's parser tests are
// its test cases. It is written here because the Go port of the Global
// Names parser (gnparser) is refused by the module proxy (403) and GBIF's
// parser is Java.
//
// # Checklists
//
// Load reads a checklist Darwin Core Archive (a Taxon core) into a new
// store file in a taxonomy directory and publishes it; Open returns the
// published Checklist. Keys are the checklist's numeric taxonIDs (GBIF's
// backbone keeps its keys) or minted through a persistent lookup, stable
// across reloads. The store is one immutable memory-mapped file per
// version: lookups are lock-free, readers keep the version they opened.
//
// # Matching
//
// Checklist.Match follows GBIF's backbone matcher (checklistbank's
// NubMatchingServiceImpl): it returns the usage, its accepted usage, the
// classification, the match type (EXACT, FUZZY, HIGHERRANK, NONE), a
// confidence of 0-100 and GBIF's TAXON_MATCH_* issues. Wrap it in a Cache
// for records, which repeat their names. Without a checklist, Derived
// mints stable keys from the records' own classifications and answers the
// same Match. Both implement Taxonomy, what the species API reads.
//
// A record's interpretation, for integrators (docs/taxonomy.md has the
// rest): build a Query from its Darwin Core terms (scientificName,
// scientificNameAuthorship, taxonRank, genericName, specificEpithet,
// infraspecificEpithet, kingdom..genus, taxonID) with Occurrence set;
// taxonKey is Match.Usage.Key, acceptedTaxonKey Match.Accepted.Key,
// kingdomKey..speciesKey come from Match.Ranked, TaxonKeys lists every key
// a taxon predicate must find the record under, Issues go to the record's
// issues; an unmatched record gets IncertaeSedis (key 0), as GBIF's do.
package taxonomy
