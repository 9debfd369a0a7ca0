// Package taxonomy owns scientific names and taxonomies: the name parser,
// checklists loaded into a persistent store, the matcher that maps a
// record's names to taxon keys the way GBIF's backbone matcher does, and
// the taxonomy derived from records when no checklist is loaded.
package taxonomy
