package parquet

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"sync"
)

// footer is what a scan needs of a Parquet file's FileMetaData: the schema's
// leaf columns and where each row group keeps each column chunk.
type footer struct {
	leaves    []leafColumn
	byName    map[string]int // leaf path -> index
	rowGroups []rowGroupMeta
}

// leafColumn is a column of the file schema that holds values.
type leafColumn struct {
	path   string // dot-joined names below the root
	maxDef int16
	maxRep int16
}

type rowGroupMeta struct {
	rows   int64
	chunks []chunkMeta // by leaf index
}

// chunkMeta locates one column chunk.
type chunkMeta struct {
	codec     int32
	numValues int64
	size      int64 // total compressed bytes, page headers included
	dataAt    int64 // first data page
	dictAt    int64 // dictionary page, 0 when not set
	oiAt      int64 // offset index
	oiLen     int32
	bloomAt   int64 // bloom filter (header and bitset), 0 when none
	bloomLen  int32 // its length, 0 when the writer did not say
	ptype     int32 // physical type (ColumnMetaData.type), e.g. physInt64
}

// physInt64 is the Parquet physical type INT64.
const physInt64 = 2

// maxFooter bounds the FileMetaData a file may claim.
const maxFooter = 64 << 20

// tailPool holds the buffers footers are first read into (parseFooter
// keeps nothing of the bytes).
var tailPool = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

// readFooter reads and parses the footer of the Parquet file r of size
// bytes.
func readFooter(r io.ReaderAt, size int64) (*footer, error) {
	if size < 12 {
		return nil, fmt.Errorf("%d bytes is too short for a Parquet file: %w", size, errCorrupt)
	}
	// One read usually brings the whole footer: ours are a few KiB.
	buf := tailPool.Get().(*[]byte)
	defer tailPool.Put(buf)
	tail := (*buf)[:min(size, int64(len(*buf)))]
	if _, err := r.ReadAt(tail, size-int64(len(tail))); err != nil && err != io.EOF {
		return nil, err
	}
	magic := string(tail[len(tail)-4:])
	if magic == "PARE" {
		return nil, fmt.Errorf("encrypted Parquet footers are not supported: %w", errCorrupt)
	}
	if magic != "PAR1" {
		return nil, fmt.Errorf("no Parquet magic at the end of the file: %w", errCorrupt)
	}
	n := int64(binary.LittleEndian.Uint32(tail[len(tail)-8:]))
	if n > size-12 || n > maxFooter {
		return nil, fmt.Errorf("footer of %d bytes in a file of %d: %w", n, size, errCorrupt)
	}
	var meta []byte
	if n <= int64(len(tail))-8 {
		meta = tail[len(tail)-8-int(n) : len(tail)-8]
	} else {
		meta = make([]byte, n)
		if _, err := r.ReadAt(meta, size-8-n); err != nil && err != io.EOF {
			return nil, err
		}
	}
	return parseFooter(meta)
}

// parseFooter parses a FileMetaData.
func parseFooter(b []byte) (*footer, error) {
	f := &footer{}
	var schema []schemaElement
	d := tdec{b: b}
	d.each(func(id int16, typ byte) {
		switch id {
		case 2:
			schema = d.schema(typ)
		case 4:
			f.rowGroups = d.rowGroups(typ)
		default:
			d.skip(typ)
		}
	})
	if d.err != nil {
		return nil, fmt.Errorf("footer: %w (%w)", d.err, errCorrupt)
	}
	leaves, err := schemaLeaves(schema)
	if err != nil {
		return nil, err
	}
	f.leaves = leaves
	f.byName = make(map[string]int, len(leaves))
	for i, l := range leaves {
		f.byName[l.path] = i
	}
	for i, rg := range f.rowGroups {
		if len(rg.chunks) != len(leaves) {
			return nil, fmt.Errorf("footer: row group %d has %d column chunks for %d columns: %w", i, len(rg.chunks), len(leaves), errCorrupt)
		}
		if rg.rows < 0 {
			return nil, fmt.Errorf("footer: row group %d of %d rows: %w", i, rg.rows, errCorrupt)
		}
	}
	return f, nil
}

// schemaElement is the part of a SchemaElement that places a column.
type schemaElement struct {
	name       string
	repetition int32 // 0 required, 1 optional, 2 repeated
	children   int32
}

func (d *tdec) schema(typ byte) []schemaElement {
	var out []schemaElement
	d.structList(typ, "schema", func() {
		var e schemaElement
		d.each(func(id int16, typ byte) {
			switch id {
			case 3:
				e.repetition = d.i32Field(typ)
			case 4:
				if d.expect(typ, tBinary) {
					e.name = string(d.binary())
				}
			case 5:
				e.children = d.i32Field(typ)
			default:
				d.skip(typ)
			}
		})
		out = append(out, e)
	})
	return out
}

// schemaLeaves walks the flattened schema tree (the root first, each group
// followed by its children) and returns its leaves with their levels.
func schemaLeaves(schema []schemaElement) ([]leafColumn, error) {
	if len(schema) == 0 {
		return nil, fmt.Errorf("footer: no schema: %w", errCorrupt)
	}
	var leaves []leafColumn
	next := 1
	var walk func(names []string, def, rep int16, children int32, depth int) error
	walk = func(names []string, def, rep int16, children int32, depth int) error {
		if depth > maxThriftDepth {
			return fmt.Errorf("footer: schema nested deeper than %d: %w", maxThriftDepth, errCorrupt)
		}
		for range children {
			if next >= len(schema) {
				return fmt.Errorf("footer: schema ends inside a group: %w", errCorrupt)
			}
			e := schema[next]
			next++
			d, r := def, rep
			switch e.repetition {
			case 1:
				d++
			case 2:
				d++
				r++
			}
			path := append(names[:len(names):len(names)], e.name)
			if e.children > 0 {
				if err := walk(path, d, r, e.children, depth+1); err != nil {
					return err
				}
				continue
			}
			leaves = append(leaves, leafColumn{path: strings.Join(path, "."), maxDef: d, maxRep: r})
		}
		return nil
	}
	if schema[0].children < 0 {
		return nil, fmt.Errorf("footer: root of %d children: %w", schema[0].children, errCorrupt)
	}
	if err := walk(nil, 0, 0, schema[0].children, 0); err != nil {
		return nil, err
	}
	if next != len(schema) {
		return nil, fmt.Errorf("footer: %d schema elements outside the tree: %w", len(schema)-next, errCorrupt)
	}
	return leaves, nil
}

func (d *tdec) rowGroups(typ byte) []rowGroupMeta {
	var out []rowGroupMeta
	d.structList(typ, "row groups", func() {
		var rg rowGroupMeta
		d.each(func(id int16, typ byte) {
			switch id {
			case 1:
				rg.chunks = d.columnChunks(typ)
			case 3:
				rg.rows = d.i64Field(typ)
			default:
				d.skip(typ)
			}
		})
		out = append(out, rg)
	})
	return out
}

func (d *tdec) columnChunks(typ byte) []chunkMeta {
	var out []chunkMeta
	d.structList(typ, "column chunks", func() {
		var c chunkMeta
		d.each(func(id int16, typ byte) {
			switch id {
			case 1:
				if d.expect(typ, tBinary) && len(d.binary()) > 0 {
					d.fail(fmt.Errorf("%w: column chunk in another file", errThrift))
				}
			case 3:
				if d.expect(typ, tStruct) {
					d.each(func(id int16, typ byte) { c.metaField(d, id, typ) })
				}
			case 4:
				c.oiAt = d.i64Field(typ)
			case 5:
				c.oiLen = d.i32Field(typ)
			case 8, 9:
				d.fail(fmt.Errorf("%w: encrypted column chunk", errThrift))
			default:
				d.skip(typ)
			}
		})
		out = append(out, c)
	})
	return out
}

func (c *chunkMeta) metaField(d *tdec, id int16, typ byte) {
	switch id {
	case 1:
		c.ptype = d.i32Field(typ)
	case 4:
		c.codec = d.i32Field(typ)
	case 5:
		c.numValues = d.i64Field(typ)
	case 7:
		c.size = d.i64Field(typ)
	case 9:
		c.dataAt = d.i64Field(typ)
	case 11:
		c.dictAt = d.i64Field(typ)
	case 14:
		c.bloomAt = d.i64Field(typ)
	case 15:
		c.bloomLen = d.i32Field(typ)
	default:
		d.skip(typ)
	}
}
