// Package dwca reads and writes Darwin Core Archives (DwC-A).
//
// Reading: Open accepts a DwC-A zip, an unpacked archive folder or a lone
// CSV/TSV data file; OpenURL downloads an http(s) archive to a temporary file
// first. The archive's meta.xml is parsed with the TDWG text guide defaults made
// explicit (ParseMeta); real-world quirks are tolerated: a single root folder is
// flattened, __MACOSX/ and dot-files are ignored, a missing meta.xml next to a
// single data file is derived from the header row, byte-order marks, CRLF and
// CR line ends, quote characters other than '"', default= values, and old row
// type names are normalized the way GBIF's dwca-io does.
//
// Rows streams the rows of one data file (RowReader), reporting broken rows as
// *RowError values a caller may count and skip. Records joins the core with its
// extensions into occurrence.RawRecord values (StarReader) in core-file order,
// with memory bounded by a byte budget: extensions that do not fit are joined by
// external sorting in temporary files (see star.go).
//
// Writing: Meta.WriteXML writes a meta.xml with every attribute explicit and
// TextWriter writes the tab-separated, unquoted data files, the way GBIF's
// downloads and python-dwca-reader expect them. The download formats built
// on them live in package download.
package dwca
