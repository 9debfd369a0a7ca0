package download

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/dwca"
)

// dictText is a string dictionary's entries with the text rules applied
// (dwca.CleanValue's) or encoded as a format's cells are (text), made once
// per dictionary: a dictionary-encoded column
// (occurrence.ScanRequest.Dictionaries) then appends each row's value as
// ready bytes, with no check per row. Entry k is data[offs[k]:offs[k+1]].
type dictText struct {
	// src is the dictionary the entries were made from. Dictionaries are
	// immutable and every batch of a column chunk shares the same one;
	// holding it keeps its address from naming another dictionary.
	src  arrow.ArrayData
	data []byte
	offs []int32
	// clean is set when src's entries need no cleaning: data and offs are
	// then unused and rows are formatted from src itself.
	clean bool
	// text, when set, writes an entry's text instead of cleaning its
	// value (appendLicence, an Avro field's encoder); such a dictionary is
	// always built; plainText, when set, takes text's place for a
	// dictionary whose bytes are all plain ASCII (taken as they are, as
	// the plain path takes them). null is what a null entry is written
	// as (nil: nothing, an empty cell).
	text, plainText func(dst []byte, v string) []byte
	null            []byte
}

// entries returns the clean text of a dictionary column whose values are
// strings and indices int32: row i's text (when valid) is
// data[offs[idx[i]]:offs[idx[i]+1]]. ok is false for any other column.
func (c *dictText) entries(a arrow.Array) (idx, offs []int32, data []byte, ok bool) {
	d, ok := a.(*array.Dictionary)
	if !ok {
		return nil, nil, nil, false
	}
	dict, ok := d.Dictionary().(*array.String)
	if !ok {
		return nil, nil, nil, false
	}
	ix, ok := d.Indices().(*array.Int32)
	if !ok {
		return nil, nil, nil, false
	}
	if src := d.Data().Dictionary(); c.src != src {
		// A dictionary whose bytes are all plain ASCII (one check over its
		// value buffer) is formatted from directly; only others are
		// cleaned entry by entry.
		plain := dwca.PlainASCII(dict.ValueBytes())
		if c.clean = c.text == nil && dict.NullN() == 0 && plain; !c.clean {
			text := c.text
			if plain && c.plainText != nil {
				text = c.plainText
			}
			c.build(dict, text)
		}
		c.src = src
	}
	if c.clean {
		offs, data = stringBuffers(dict)
		return ix.Int32Values(), offs, data, true
	}
	return ix.Int32Values(), c.offs, c.data, true
}

// stringBuffers returns a string column's offsets and value bytes: row i
// is data[offs[i]:offs[i+1]].
func stringBuffers(a *array.String) (offs []int32, data []byte) {
	if a.Len() == 0 {
		return nil, nil
	}
	if bufs := a.Data().Buffers(); len(bufs) > 2 && bufs[2] != nil {
		data = bufs[2].Bytes()
	}
	return a.ValueOffsets(), data
}

// build cleans every entry of dict, or writes it with text when set; a
// null entry is null's bytes (empty unless set, as cellFor formats it).
func (c *dictText) build(dict *array.String, text func(dst []byte, v string) []byte) {
	n := dict.Len()
	c.data = c.data[:0]
	c.offs = append(c.offs[:0], 0)
	for k := 0; k < n; k++ {
		switch {
		case !dict.IsValid(k):
			c.data = append(c.data, c.null...)
		case text != nil:
			c.data = text(c.data, dict.Value(k))
		default:
			c.data = dwca.AppendClean(c.data, dict.Value(k))
		}
		c.offs = append(c.offs, int32(len(c.data)))
	}
}
