package download

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/sqlquery"
)

// FormatSQLTSVZip is GBIF's SQL download (SQL_TSV_ZIP): the result of the
// request's SQL query as one tab-separated file.
const FormatSQLTSVZip Format = "SQL_TSV_ZIP"

func init() {
	register(FormatInfo{
		Name:        FormatSQLTSVZip,
		Description: "one tab-separated <key>.csv holding the result of the request's SQL query (GBIF's SQL downloads)",
		Extension:   ".zip", ContentType: "application/zip", Dictionaries: true,
		// A query's result grows with its groups or rows, not the
		// records it reads: a rough guide only, as SPECIES_LIST's.
		BytesPerRecord: 8, CompressionRatio: 5, Order: 9, SQL: true,
		open: newSQLWriter,
	})
}

// sqlWriter runs the spec's query over the scan's batches and writes its
// result: ungrouped rows as they come, groups and sorted rows at the end.
type sqlWriter struct {
	x    *Export
	q    *sqlquery.Query
	run  *sqlquery.Run
	tw   *dwca.TextWriter
	buf  []byte
	kept []bool
}

func newSQLWriter(_ context.Context, x *Export) (formatWriter, error) {
	q := x.query
	if q == nil {
		return nil, fmt.Errorf("%w: %s needs a SQL query", ErrFormat, FormatSQLTSVZip)
	}
	w, err := x.create(x.spec.Key + ".csv")
	if err != nil {
		return nil, err
	}
	s := &sqlWriter{x: x, q: q, run: q.NewRun(x.opts.SQLMemory), tw: dwca.NewTextWriter(w)}
	return s, s.tw.WriteHeader(q.Header())
}

func (s *sqlWriter) columns() []string { return s.q.Columns() }
func (s *sqlWriter) abort()            {}

// selectRows runs the query over the batch and reports the rows its WHERE
// kept: those are the records the download is made of (its datasets and
// licence), not every record the scan's predicate let through.
func (s *sqlWriter) selectRows(b *batch) ([]bool, error) {
	kept, err := s.run.Add(b.rec, s.emit)
	s.kept = kept
	return kept, err
}

// write has nothing left to do: selectRows ran the batch.
func (s *sqlWriter) write(*batch) error { return s.tw.Error() }

func (s *sqlWriter) emit(vs []sqlquery.Value) error {
	for _, v := range vs {
		s.buf = appendSQLValue(s.buf[:0], v)
		s.tw.Value(string(s.buf))
	}
	return s.tw.EndRow()
}

func (s *sqlWriter) finish(context.Context, ExportResult, []occurrence.DatasetInfo) error {
	if err := s.run.Finish(s.emit); err != nil {
		return err
	}
	return s.tw.Flush()
}

// resultRows is the number of rows the result has (a SQL download's
// record count, as GBIF counts it).
func (s *sqlWriter) resultRows() int64 { return s.run.Rows() }

// appendSQLValue formats a result cell as the other text formats format
// the columns: numbers as GBIF prints them, timestamps ISO 8601 UTC,
// NULL as an empty cell.
func appendSQLValue(dst []byte, v sqlquery.Value) []byte {
	switch v.Kind {
	case sqlquery.Int:
		return appendInt(dst, v.Int)
	case sqlquery.Float:
		switch {
		case math.IsNaN(v.Float):
			return append(dst, "NaN"...)
		case math.IsInf(v.Float, 1):
			return append(dst, "Infinity"...)
		case math.IsInf(v.Float, -1):
			return append(dst, "-Infinity"...)
		}
		return appendFloat(dst, v.Float)
	case sqlquery.Bool:
		return strconv.AppendBool(dst, v.Int != 0)
	case sqlquery.Time:
		return appendTime(dst, time.UnixMilli(v.Int))
	case sqlquery.String:
		return append(dst, v.Str...)
	}
	return dst
}

// sqlVerbatimColumn names the verbatim column of a term as GBIF's SQL
// table does: "v_" and its simple name in lower case (v_scientificname).
func sqlVerbatimColumn(term string) string {
	return "v_" + strings.ToLower(occurrence.SimpleName(term))
}

// sqlVerbatim maps the verbatim columns of a SQL query, one for each of
// GBIF's verbatim terms (the first term of a name), to their terms.
var sqlVerbatim = func() map[string]string {
	m := make(map[string]string, len(gbifVerbatimTerms))
	for _, term := range gbifVerbatimTerms {
		if name := sqlVerbatimColumn(term); m[name] == "" {
			m[name] = term
		}
	}
	return m
}()

// ParseSQL parses a SQL download's query as an export reads it: the
// interpreted columns and GBIF's verbatim v_ columns (opts.Verbatim is
// set here).
func ParseSQL(sql string, opts sqlquery.Options) (*sqlquery.Query, error) {
	opts.Verbatim = sqlVerbatim
	return sqlquery.Parse(sql, opts)
}
