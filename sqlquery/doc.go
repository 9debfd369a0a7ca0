// Package sqlquery owns GBIF's SQL download dialect: it parses a query
// against the one table "occurrence", checks it against the interpreted
// record's columns and functions, and runs it over the scan's batches
// (filter, projection, grouping, aggregates, ordering, limit).
//
// GBIF's SQL downloads (format SQL_TSV_ZIP; rgbif's occ_download_sql) take
// a SELECT over the occurrence table, validated by Apache Calcite and run
// by Spark. The grammar here is read by TiDB's SQL parser in ANSI mode
// (double-quoted identifiers, || as concatenation), a maintained pure-Go
// parser; no Go library plans or evaluates SQL over Arrow batches from a
// scan, so the planner and evaluator are written here, small and
// row-at-a-time. The WHERE clause's conditions that a GBIF predicate can
// say (a column compared with literals) are handed to the scan as a
// predicate, so statistics prune files and the backends filter early; the
// whole WHERE is evaluated again row by row, so a pushed predicate only
// ever narrows what the scan delivers, never what the query returns.
//
// What is accepted, and what GBIF accepts that is not, is in docs/sql.md.
package sqlquery
