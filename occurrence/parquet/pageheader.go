package parquet

import (
	"fmt"

	pq "github.com/apache/arrow-go/v18/parquet"
)

// Page types of a Parquet PageHeader.
const (
	pageData   = 0
	pageIndex  = 1
	pageDict   = 2
	pageDataV2 = 3
)

// pageHeader is what the page decoder needs of a Parquet PageHeader: the
// header of a data page (v1 or v2) or a dictionary page.
type pageHeader struct {
	typ          int32
	uncompressed int32 // bytes of the page body once decompressed
	compressed   int32 // bytes of the page body in the file
	numValues    int32 // values (v1, dictionary) or values and nulls (v2)
	encoding     pq.Encoding
	defEncoding  pq.Encoding // v1: encoding of the definition levels
	numRows      int32       // v2
	defLen       int32       // v2: bytes of definition levels, uncompressed
	repLen       int32       // v2: bytes of repetition levels, uncompressed
	compressedV2 bool        // v2: the values are compressed (the default)
	size         int         // bytes of the header itself
}

// parsePageHeader reads a PageHeader from the start of b. errShort (wrapped)
// means the header continues past b.
func parsePageHeader(b []byte) (pageHeader, error) {
	h := pageHeader{typ: -1, compressedV2: true}
	d := tdec{b: b}
	d.each(func(id int16, typ byte) {
		switch id {
		case 1:
			h.typ = d.i32Field(typ)
		case 2:
			h.uncompressed = d.i32Field(typ)
		case 3:
			h.compressed = d.i32Field(typ)
		case 5:
			if d.expect(typ, tStruct) {
				d.each(func(id int16, typ byte) { h.dataV1Field(&d, id, typ) })
			}
		case 7:
			if d.expect(typ, tStruct) {
				d.each(func(id int16, typ byte) {
					switch id {
					case 1:
						h.numValues = d.i32Field(typ)
					case 2:
						h.encoding = pq.Encoding(d.i32Field(typ))
					default:
						d.skip(typ)
					}
				})
			}
		case 8:
			if d.expect(typ, tStruct) {
				d.each(func(id int16, typ byte) { h.dataV2Field(&d, id, typ) })
			}
		default:
			d.skip(typ)
		}
	})
	if d.err != nil {
		return h, d.err
	}
	h.size = d.pos
	if h.uncompressed < 0 || h.compressed < 0 || h.numValues < 0 || h.numRows < 0 || h.defLen < 0 || h.repLen < 0 {
		return h, fmt.Errorf("%w: negative size or count in a page header", errThrift)
	}
	return h, nil
}

func (h *pageHeader) dataV1Field(d *tdec, id int16, typ byte) {
	switch id {
	case 1:
		h.numValues = d.i32Field(typ)
	case 2:
		h.encoding = pq.Encoding(d.i32Field(typ))
	case 3:
		h.defEncoding = pq.Encoding(d.i32Field(typ))
	default:
		d.skip(typ)
	}
}

func (h *pageHeader) dataV2Field(d *tdec, id int16, typ byte) {
	switch id {
	case 1:
		h.numValues = d.i32Field(typ)
	case 3:
		h.numRows = d.i32Field(typ)
	case 4:
		h.encoding = pq.Encoding(d.i32Field(typ))
	case 5:
		h.defLen = d.i32Field(typ)
	case 6:
		h.repLen = d.i32Field(typ)
	case 7:
		if d.expect(typ, tTrue) {
			h.compressedV2 = boolField(typ)
		}
	default:
		d.skip(typ)
	}
}

// rows is how many rows a data page holds: a flat column has one value
// (or null) per row.
func (h *pageHeader) rows() int64 {
	if h.typ == pageDataV2 {
		return int64(h.numRows)
	}
	return int64(h.numValues)
}

// i32Field reads an i32 field, skipping (and leaving 0) a field of another
// type.
func (d *tdec) i32Field(typ byte) int32 {
	if !d.expect(typ, tI32) {
		return 0
	}
	return d.i32()
}

// i64Field reads an i64 field, skipping (and leaving 0) a field of another
// type.
func (d *tdec) i64Field(typ byte) int64 {
	if !d.expect(typ, tI64) {
		return 0
	}
	return d.i64()
}

// pageLoc is one entry of a column chunk's offset index.
type pageLoc struct {
	offset   int64 // of the page header in the file
	size     int32 // header and body
	firstRow int64 // of the row group
}

// parseOffsetIndex reads a Parquet OffsetIndex.
func parseOffsetIndex(b []byte) ([]pageLoc, error) {
	var locs []pageLoc
	d := tdec{b: b}
	d.each(func(id int16, typ byte) {
		if id != 1 {
			d.skip(typ)
			return
		}
		d.structList(typ, "page locations", func() {
			var l pageLoc
			d.each(func(id int16, typ byte) {
				switch id {
				case 1:
					l.offset = d.i64Field(typ)
				case 2:
					l.size = d.i32Field(typ)
				case 3:
					l.firstRow = d.i64Field(typ)
				default:
					d.skip(typ)
				}
			})
			locs = append(locs, l)
		})
	})
	return locs, d.err
}
