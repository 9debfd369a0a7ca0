// Package species answers GBIF's species API over the table's taxonomy
// (package taxonomy): the name match of /v1/species/match (GBIF's
// NameUsageMatch) and /v2/species/match (the matching service's shape,
// which pygbif 0.7's name_backbone calls), name suggestions
// (/v1/species/suggest), name usages (/v1/species/{key}) with their
// children, synonyms and parents. The web package routes requests here;
// answers are GBIF's JSON shapes.
//
// The taxonomy comes from a Source: Dir reads a taxonomy directory, the
// loaded checklist when there is one (reopened when a load publishes a
// new version) else the taxonomy derived from the records, read-only.
package species
