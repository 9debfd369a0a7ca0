package download

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/lanrat/extsort"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/internal/avro"
	"github.com/biodiversity-downloads/downloader/internal/pzip"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// FormatBionomia is GBIF's BIONOMIA download, the export the Bionomia
// project takes to attribute specimens to their collectors and
// identifiers.
const FormatBionomia Format = "BIONOMIA"

func init() {
	register(FormatInfo{
		Name:        FormatBionomia,
		Description: "a zip of four Avro files for Bionomia: the records with a collector or an identifier (occurrence.avro), and their gbifIDs grouped by collector and identifier (agents.avro), family (families.avro) and collector and identifier ID (identifiers.avro)",
		Extension:   ".zip", ContentType: "application/zip", Dictionaries: true,
		BytesPerRecord: 31, CompressionRatio: 9.6, Order: 6, Project: true,
		open: newBionomia,
		// GBIF's query keeps the records with a verbatim identifiedBy or
		// recordedBy (execute-bionomia-query.ftl); the interpreted lists
		// are filled from them.
		narrowing: &occurrence.Predicate{Type: occurrence.TypeOr, Predicates: []*occurrence.Predicate{
			{Type: occurrence.TypeIsNotNull, Parameter: "RECORDED_BY"},
			{Type: occurrence.TypeIsNotNull, Parameter: "IDENTIFIED_BY"},
		}},
	})
}

// GBIF's Bionomia schemas (gbif/occurrence download-workflow/bionomia/*.avsc):
// their own namespace, unions with null first, and the zip's entries as
// GBIF's DownloadArchiver names them.
const (
	bionomiaNamespace    = "org.gbif.occurrence.download.bionomia.avro"
	bionomiaAgentsSchema = `{"type":"record","name":"BionomiaAgents","namespace":"` + bionomiaNamespace + `","fields":[` +
		`{"name":"agent","type":"string"},{"name":"totalRecordedBy","type":"long"},{"name":"totalIdentifiedBy","type":"long"},` +
		`{"name":"gbifIDsRecordedBy","type":["null",{"type":"array","items":"string"}]},` +
		`{"name":"gbifIDsIdentifiedBy","type":["null",{"type":"array","items":"string"}]}]}`
	// GBIF's families schema gives the array a default of null, which
	// Avro's specification does not allow for an array (its readers
	// refuse it or ignore it); the default is left out.
	bionomiaFamiliesSchema = `{"type":"record","name":"BionomiaFamilies","namespace":"` + bionomiaNamespace + `","fields":[` +
		`{"name":"family","type":"string"},{"name":"total","type":"long"},` +
		`{"name":"gbifIDsFamily","type":{"type":"array","items":"string"}}]}`
	bionomiaIdentifiersSchema = `{"type":"record","name":"BionomiaIdentifiers","namespace":"` + bionomiaNamespace + `","fields":[` +
		`{"name":"identifier","type":"string"},{"name":"totalRecordedByID","type":"long"},{"name":"totalIdentifiedByID","type":"long"},` +
		`{"name":"gbifIDsRecordedByID","type":["null",{"type":"array","items":"string"}]},` +
		`{"name":"gbifIDsIdentifiedByID","type":["null",{"type":"array","items":"string"}]}]}`
)

// bionomiaVerbatim are the published terms the occurrence file carries,
// as v_<term>, in GBIF's order; the grouping keys are among them.
var bionomiaVerbatim = []string{"occurrenceID", "dateIdentified", "decimalLatitude", "decimalLongitude", "country",
	"eventDate", "year", "identifiedBy", "identifiedByID", "institutionCode", "collectionCode", "catalogNumber",
	"recordedBy", "recordedByID", "scientificName", "typeStatus"}

// bionomiaSchema is the occurrence file's record.
var bionomiaSchema = func() string {
	var b strings.Builder
	b.WriteString(`{"type":"record","name":"Bionomia","namespace":"` + bionomiaNamespace + `","fields":[` +
		`{"name":"gbifID","type":"string"},{"name":"datasetKey","type":"string"},{"name":"license","type":"string"},` +
		`{"name":"basisOfRecord","type":"string"},{"name":"countryCode","type":["null","string"],"default":null},` +
		`{"name":"dateIdentified","type":["null","string"],"default":null},{"name":"eventDate","type":["null","string"],"default":null},` +
		`{"name":"hasImage","type":"boolean"},{"name":"kingdom","type":["null","string"],"default":null},` +
		`{"name":"family","type":["null","string"],"default":null},{"name":"scientificName","type":["null","string"],"default":null}`)
	for _, t := range bionomiaVerbatim {
		fmt.Fprintf(&b, `,{"name":"v_%s","type":["null","string"],"default":null}`, t)
	}
	b.WriteString(`]}`)
	return b.String()
}()

// The indexes in bionomiaVerbatim of the four grouping keys.
var (
	bvIdentifiedBy   = slices.Index(bionomiaVerbatim, "identifiedBy")
	bvIdentifiedByID = slices.Index(bionomiaVerbatim, "identifiedByID")
	bvRecordedBy     = slices.Index(bionomiaVerbatim, "recordedBy")
	bvRecordedByID   = slices.Index(bionomiaVerbatim, "recordedByID")
)

// bionomiaGroup is one grouping of gbifIDs; the sort orders the three
// files' groups one file after another, a key's two columns (recorded,
// then identified) side by side, as GBIF's full outer joins pair them.
type bionomiaGroup uint8

const (
	groupRecordedBy bionomiaGroup = iota
	groupIdentifiedBy
	groupFamily
	groupRecordedByID
	groupIdentifiedByID
)

// file says which file a group's records go to: 0 agents, 1 families,
// 2 identifiers.
func (g bionomiaGroup) file() int {
	switch g {
	case groupRecordedBy, groupIdentifiedBy:
		return 0
	case groupFamily:
		return 1
	}
	return 2
}

// bionomiaItem is one record's gbifID under one group's key.
type bionomiaItem struct {
	group bionomiaGroup
	key   string
	id    int64
}

func compareBionomiaItems(a, b bionomiaItem) int {
	if c := cmp.Compare(a.group.file(), b.group.file()); c != 0 {
		return c
	}
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c
	}
	if c := cmp.Compare(a.group, b.group); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

func bionomiaItemBytes(it bionomiaItem) ([]byte, error) {
	b := make([]byte, 0, 1+binary.MaxVarintLen64+len(it.key))
	b = append(b, byte(it.group))
	b = binary.AppendVarint(b, it.id)
	return append(b, it.key...), nil
}

func bionomiaItemFrom(b []byte) (bionomiaItem, error) {
	if len(b) < 2 {
		return bionomiaItem{}, errors.New("download: bionomia: short sort record")
	}
	id, n := binary.Varint(b[1:])
	if n <= 0 {
		return bionomiaItem{}, errors.New("download: bionomia: bad sort record")
	}
	return bionomiaItem{group: bionomiaGroup(b[0]), id: id, key: string(b[1+n:])}, nil
}

// bionomiaSortChunk is how many grouping items the sort holds in memory
// before it writes a sorted run to disk (a record gives up to five).
var bionomiaSortChunk = 200_000

// bionomiaWriter writes GBIF's BIONOMIA download (gbif/occurrence's
// execute-bionomia-query.ftl): a zip of
//
//   - occurrence.avro/000000: the records with a verbatim recordedBy or
//     identifiedBy, record Bionomia: a few interpreted values and sixteen
//     published ones;
//   - agents.avro/000000: for each published recordedBy or identifiedBy
//     value, as one string, how many records have it as either and their
//     gbifIDs (GBIF's two GROUP BYs under a full outer join);
//   - families.avro/000000: the same for each interpreted family;
//   - identifiers.avro/000000: the same for each published recordedByID
//     and identifiedByID value.
//
// The three groupings are made by an external sort (lanrat/extsort) of
// (group, key, gbifID) items into runs on disk, so that memory holds a
// run and the largest group, not the download: GBIF's collect_set holds
// each group in a reducer the same way. Groups come sorted by key and
// their gbifIDs in ascending order; GBIF's order is Hive's.
type bionomiaWriter struct {
	x       *Export
	aw      *avro.Writer
	verb    *verbatimRow
	cell    []byte // one value's text, reused
	items   chan bionomiaItem
	sorted  <-chan bionomiaItem
	errs    <-chan error
	cancel  context.CancelFunc
	sorting chan struct{} // closed when Sort returns
}

func newBionomia(ctx context.Context, x *Export) (formatWriter, error) {
	w, err := x.zw.CreateHeader(&pzip.FileHeader{Name: "occurrence.avro/000000", Modified: x.created, Stored: true})
	if err != nil {
		return nil, err
	}
	aw, err := avro.NewWriter(w, bionomiaSchema, avro.Options{Workers: x.opts.Zip.Workers, Level: x.opts.Zip.Level})
	if err != nil {
		return nil, fmt.Errorf("download: bionomia: %w", err)
	}
	keys := make([]string, len(bionomiaVerbatim))
	for i, t := range bionomiaVerbatim {
		keys[i] = occurrence.VerbatimKey(occurrence.NSDwC + t)
	}
	b := &bionomiaWriter{x: x, aw: aw, verb: newVerbatimRow(keys), items: make(chan bionomiaItem, 4096), sorting: make(chan struct{})}
	sortCtx, cancel := context.WithCancel(ctx)
	b.cancel = cancel
	var sorter *extsort.GenericSorter[bionomiaItem]
	sorter, b.sorted, b.errs = extsort.Generic(b.items, bionomiaItemFrom, bionomiaItemBytes, compareBionomiaItems,
		&extsort.Config{ChunkSize: bionomiaSortChunk, NumWorkers: 2, ChanBuffSize: 0, SortedChanBuffSize: 4096, TempFilesDir: x.opts.TempDir})
	go func() {
		defer close(b.sorting)
		sorter.Sort(sortCtx)
	}()
	return b, nil
}

// bionomiaColumns are the interpreted columns the writer reads, in the
// order of the bc indexes below.
var bionomiaColumns = []string{occurrence.ColGBIFID, occurrence.ColDatasetKey, occurrence.ColLicense,
	occurrence.ColBasisOfRecord, occurrence.ColCountryCode, "dateIdentified", occurrence.ColEventDateStart,
	occurrence.ColMediaType, occurrence.ColKingdom, occurrence.ColFamily, occurrence.ColScientificName, occurrence.ColVerbatim}

const (
	bcGBIFID = iota
	bcDatasetKey
	bcLicense
	bcBasisOfRecord
	bcCountryCode
	bcDateIdentified
	bcEventDateStart
	bcMediaType
	bcKingdom
	bcFamily
	bcScientificName
	bcVerbatim
)

func (b *bionomiaWriter) columns() []string { return bionomiaColumns }

// transient: every value is copied while write runs.
func (b *bionomiaWriter) transient() []string { return bionomiaColumns }

func (b *bionomiaWriter) write(bt *batch) error {
	cols := make([]arrow.Array, len(bionomiaColumns))
	for i, name := range bionomiaColumns {
		if cols[i] = bt.col(name); cols[i] == nil {
			return fmt.Errorf("download: bionomia: batch lacks column %s", name)
		}
	}
	ids, ok := cols[bcGBIFID].(*array.Int64)
	if !ok {
		return fmt.Errorf("download: bionomia: gbifID is a %s column", cols[bcGBIFID].DataType())
	}
	starts, ok := cols[bcEventDateStart].(*array.Timestamp)
	if !ok {
		return fmt.Errorf("download: bionomia: %s is a %s column", occurrence.ColEventDateStart, cols[bcEventDateStart].DataType())
	}
	unit := starts.DataType().(*arrow.TimestampType).Unit
	for i := 0; i < bt.n; i++ {
		b.verb.parse(str(cols[bcVerbatim], i))
		id := ids.Value(i)
		buf := b.aw.Buffer()
		buf = avro.AppendBytes(buf, strconv.AppendInt(b.cell[:0], id, 10))
		buf = avro.AppendString(buf, str(cols[bcDatasetKey], i))
		b.cell = appendLicence(b.cell[:0], str(cols[bcLicense], i))
		buf = avro.AppendBytes(buf, b.cell)
		buf = avro.AppendString(buf, str(cols[bcBasisOfRecord], i))
		buf = appendNullFirst(buf, str(cols[bcCountryCode], i))
		buf = appendNullFirst(buf, str(cols[bcDateIdentified], i))
		b.cell = b.cell[:0]
		if starts.IsValid(i) { // GBIF's secondsToLocalISO8601
			b.cell = appendTimestamp(b.cell, starts.Value(i), unit, occurrence.LayoutLocalDateTime)
		}
		buf = appendNullFirst(buf, b.cell)
		hasImage := false // GBIF's array_contains(mediaType, 'StillImage')
		for t := range listItems(str(cols[bcMediaType], i)) {
			if hasImage = t == "StillImage"; hasImage {
				break
			}
		}
		buf = avro.AppendBool(buf, hasImage)
		buf = appendNullFirst(buf, dwca.CleanValue(str(cols[bcKingdom], i)))
		family := dwca.CleanValue(str(cols[bcFamily], i))
		buf = appendNullFirst(buf, family)
		buf = appendNullFirst(buf, dwca.CleanValue(str(cols[bcScientificName], i)))
		for k := range bionomiaVerbatim {
			b.verb.values[k] = dwca.CleanValue(b.verb.values[k])
			buf = appendNullFirst(buf, b.verb.values[k])
		}
		if err := b.aw.Commit(buf); err != nil {
			return fmt.Errorf("download: bionomia: %w", err)
		}
		for _, it := range [...]bionomiaItem{
			{groupRecordedBy, b.verb.values[bvRecordedBy], id}, {groupIdentifiedBy, b.verb.values[bvIdentifiedBy], id},
			{groupFamily, family, id},
			{groupRecordedByID, b.verb.values[bvRecordedByID], id}, {groupIdentifiedByID, b.verb.values[bvIdentifiedByID], id},
		} {
			if it.key == "" {
				continue
			}
			// The key is a view of the batch's memory, which the scan
			// reuses once write returns: the sort keeps a copy.
			it.key = strings.Clone(it.key)
			if err := b.send(it); err != nil {
				return err
			}
		}
	}
	return nil
}

// send hands one item to the sort, or the sort's error if it stopped.
func (b *bionomiaWriter) send(it bionomiaItem) error {
	select {
	case b.items <- it:
		return nil
	case <-b.sorting:
		return b.sortError(errors.New("the sort stopped"))
	}
}

// sortError is the sort's reported error, else err.
func (b *bionomiaWriter) sortError(err error) error {
	select {
	case e := <-b.errs:
		if e != nil {
			err = e
		}
	default:
	}
	return fmt.Errorf("download: bionomia: grouping: %w", err)
}

func (b *bionomiaWriter) finish(ctx context.Context, _ ExportResult, _ []occurrence.DatasetInfo) error {
	if err := b.aw.Close(); err != nil {
		return fmt.Errorf("download: bionomia: %w", err)
	}
	close(b.items)
	b.items = nil
	files := [3]struct{ name, schema string }{
		{"agents.avro/000000", bionomiaAgentsSchema},
		{"families.avro/000000", bionomiaFamiliesSchema},
		{"identifiers.avro/000000", bionomiaIdentifiersSchema},
	}
	g := groupReader{in: b.sorted}
	for f, file := range files {
		w, err := b.x.zw.CreateHeader(&pzip.FileHeader{Name: file.name, Modified: b.x.created, Stored: true})
		if err != nil {
			return err
		}
		aw, err := avro.NewWriter(w, file.schema, avro.Options{Workers: b.x.opts.Zip.Workers, Level: b.x.opts.Zip.Level})
		if err != nil {
			return fmt.Errorf("download: bionomia: %w", err)
		}
		for g.next(f) {
			buf := appendGroup(aw.Buffer(), f, &g)
			if err := aw.Commit(buf); err != nil {
				aw.Abort()
				return fmt.Errorf("download: bionomia: %s: %w", file.name, err)
			}
		}
		if err := aw.Close(); err != nil {
			return fmt.Errorf("download: bionomia: %s: %w", file.name, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	for err := range b.errs { // closed once the merge is done
		if err != nil {
			return fmt.Errorf("download: bionomia: grouping: %w", err)
		}
	}
	return nil
}

// groupReader reads the sorted items one key at a time.
type groupReader struct {
	in      <-chan bionomiaItem
	head    bionomiaItem
	hasHead bool
	done    bool
	key     string
	// ids are the key's gbifIDs: of its first group (recorded), then of
	// its second (identified); a family has only the first.
	ids [2][]int64
}

// next reads the next key of file f; false when the items of f are
// exhausted (the first item of the next file stays as head).
func (g *groupReader) next(f int) bool {
	g.ids[0], g.ids[1] = g.ids[0][:0], g.ids[1][:0]
	if !g.peek() || g.head.group.file() != f {
		return false
	}
	g.key = g.head.key
	for g.peek() && g.head.group.file() == f && g.head.key == g.key {
		side := 0
		if g.head.group == groupIdentifiedBy || g.head.group == groupIdentifiedByID {
			side = 1
		}
		g.ids[side] = append(g.ids[side], g.head.id)
		g.hasHead = false
	}
	return true
}

// peek makes head the next item, reporting whether there is one.
func (g *groupReader) peek() bool {
	if g.hasHead {
		return true
	}
	if g.done {
		return false
	}
	it, ok := <-g.in
	if !ok {
		g.done = true
		return false
	}
	g.head, g.hasHead = it, true
	return true
}

// appendGroup encodes the key g holds as a record of file f.
func appendGroup(dst []byte, f int, g *groupReader) []byte {
	dst = avro.AppendString(dst, g.key)
	if f == 1 { // family, total, gbifIDsFamily
		dst = avro.AppendLong(dst, int64(len(g.ids[0])))
		return appendIDs(dst, g.ids[0])
	}
	dst = avro.AppendLong(dst, int64(len(g.ids[0])))
	dst = avro.AppendLong(dst, int64(len(g.ids[1])))
	for _, ids := range g.ids {
		if len(ids) == 0 {
			dst = avro.AppendLong(dst, 0) // the union's null
			continue
		}
		dst = appendIDs(avro.AppendLong(dst, 1), ids)
	}
	return dst
}

// appendIDs encodes gbifIDs as an Avro array of strings (one block).
func appendIDs(dst []byte, ids []int64) []byte {
	if len(ids) > 0 {
		dst = avro.AppendLong(dst, int64(len(ids)))
		var num [20]byte
		for _, id := range ids {
			dst = avro.AppendBytes(dst, strconv.AppendInt(num[:0], id, 10))
		}
	}
	return avro.AppendLong(dst, 0)
}

// appendNullFirst encodes v in a ["null","string"] union, empty as null.
func appendNullFirst[T string | []byte](dst []byte, v T) []byte {
	if len(v) == 0 {
		return avro.AppendLong(dst, 0)
	}
	dst = avro.AppendLong(avro.AppendLong(dst, 1), int64(len(v)))
	return append(dst, v...)
}

func (b *bionomiaWriter) abort() {
	b.aw.Abort()
	b.cancel()
	if b.items != nil {
		close(b.items)
		b.items = nil
	}
	go func() {
		for range b.sorted {
		}
	}()
	for range b.errs { // closed once the sort has stopped
	}
}

// DescribedBionomia is the BIONOMIA download's four files, each read from
// its Avro schema.
type DescribedBionomia struct {
	Occurrence  DescribedTable `json:"occurrence"`
	Agents      DescribedTable `json:"agents"`
	Families    DescribedTable `json:"families"`
	Identifiers DescribedTable `json:"identifiers"`
}

func describeBionomia() (DescribedBionomia, error) {
	var d DescribedBionomia
	for _, f := range []struct {
		schema string
		out    *DescribedTable
	}{{bionomiaSchema, &d.Occurrence}, {bionomiaAgentsSchema, &d.Agents}, {bionomiaFamiliesSchema, &d.Families}, {bionomiaIdentifiersSchema, &d.Identifiers}} {
		t, err := describeAvroSchema(f.schema)
		if err != nil {
			return DescribedBionomia{}, err
		}
		*f.out = t
	}
	return d, nil
}

// describeAvroSchema describes a record schema's fields in Hive's type
// names, as the other describe routes do: a union with null is nullable, a
// v_ field is its Darwin Core term as published, another field the term
// of the column of its name.
func describeAvroSchema(schema string) (DescribedTable, error) {
	var rec struct {
		Fields []struct {
			Name string          `json:"name"`
			Type json.RawMessage `json:"type"`
		} `json:"fields"`
	}
	if err := json.Unmarshal([]byte(schema), &rec); err != nil {
		return DescribedTable{}, fmt.Errorf("download: describe: %w", err)
	}
	var t DescribedTable
	for _, f := range rec.Fields {
		var types []json.RawMessage
		if json.Unmarshal(f.Type, &types) != nil {
			types = []json.RawMessage{f.Type}
		}
		d := DescribedField{Name: f.Name}
		for _, typ := range types {
			switch string(typ) {
			case `"null"`:
				d.Nullable = true
			case `"string"`:
				d.Type = "STRING"
			case `"long"`:
				d.Type = "BIGINT"
			case `"boolean"`:
				d.Type = "BOOLEAN"
			default:
				d.Type = "ARRAY<STRING>"
			}
		}
		if term, ok := strings.CutPrefix(f.Name, "v_"); ok {
			d.Term = occurrence.NSDwC + term
		} else if c, _, ok := occurrence.ColumnByName(f.Name); ok {
			d.Term = c.Term
		}
		t.Fields = append(t.Fields, d)
	}
	return t, nil
}
