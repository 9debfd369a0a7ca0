// Package download writes occurrence downloads in GBIF's formats (DWCA,
// SIMPLE_CSV, SPECIES_LIST, SIMPLE_PARQUET) from the batches of a table
// scan, with the licence, citations and metadata of the datasets they hold.
//
// An Export is one download archive: NewExport opens it on an io.Writer
// for an ExportSpec (format, key, fields, predicate), Write takes the scan's
// Arrow batches and Close writes the remaining entries (meta.xml, EML,
// citations, rights) and the zip directory; WriteScan does the scan as
// well. The zip is written by internal/pzip, whose workers deflate chunks
// in parallel; text files follow the Darwin Core Archive rules of
// dwca.TextWriter.
//
// Each dataset's title, licence and citation come from the table's catalog
// (occurrence.Catalog); a lookup that fails fails the export. The licence of
// a download is the most restrictive of its datasets' (CC0 < CC BY < CC
// BY-NC), and a dataset whose licence is not recognized is reported, never
// counted as CC0.
//
// It sits above occurrence and dwca and below the job service and the
// command line, which both call it.
package download
