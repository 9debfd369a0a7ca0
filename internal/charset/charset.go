// Package charset turns the encoding labels that archives and XML documents
// declare (a meta.xml encoding attribute, an XML declaration) into readers
// yielding UTF-8. It is the one label table of the Darwin Core Archive and
// ABCD readers.
//
// Accepted labels, compared without case and surrounding space:
//   - UTF-8 and its ASCII subset: "", "utf-8", "utf8", "us-ascii", "ascii"
//     (read as they are);
//   - "utf-16"/"utf16" (a byte-order mark decides the byte order, little
//     endian without one), "utf-16be" and "utf-16le";
//   - "latin-1", "latin9" and "latin-9", names BioCASe providers use that the
//     WHATWG table lacks;
//   - every label of the WHATWG Encoding Standard (golang.org/x/text's
//     htmlindex): "iso-8859-1", "latin1", "windows-1252", "iso-8859-15",
//     "windows-1250", "koi8-r", "shift_jis", ...
//
// As in the WHATWG standard, ISO-8859-1 and its aliases decode as
// windows-1252: the bytes 0x80-0x9F, C1 control characters in ISO-8859-1,
// are the typographic characters (€, ‘ ’, “ ”, –, ...) that files declared
// ISO-8859-1 but written by Windows software mean by them.
package charset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
)

// ErrUnsupported marks a label no decoder is known for.
var ErrUnsupported = errors.New("unsupported encoding")

// ErrNotUTF16 marks an XML document that declares UTF-16 but was read as
// single bytes, so it cannot be UTF-16.
var ErrNotUTF16 = errors.New("document declares UTF-16 but has no UTF-16 byte-order mark")

func normalize(label string) string { return strings.ToLower(strings.TrimSpace(label)) }

// IsUTF8 reports whether a label names UTF-8 or plain ASCII (a subset of
// it); an empty label means UTF-8.
func IsUTF8(label string) bool {
	switch normalize(label) {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return true
	}
	return false
}

// isUTF16 reports whether a label names one of the UTF-16 forms.
func isUTF16(l string) bool {
	switch l {
	case "utf-16", "utf16", "utf-16be", "utf-16le":
		return true
	}
	return false
}

// lookup returns the encoding a label names. The error wraps ErrUnsupported
// and quotes the label.
func lookup(label string) (encoding.Encoding, error) {
	switch l := normalize(label); l {
	case "utf-16", "utf16":
		return unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), nil
	case "utf-16be":
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), nil
	case "utf-16le":
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), nil
	case "latin-1":
		return charmap.Windows1252, nil // htmlindex's "latin1"
	case "latin9", "latin-9":
		return charmap.ISO8859_15, nil
	default:
		e, err := htmlindex.Get(l)
		if err != nil {
			return nil, fmt.Errorf("%w %q (want UTF-8, UTF-16 or a WHATWG label such as ISO-8859-1 or windows-1252)",
				ErrUnsupported, label)
		}
		return e, nil
	}
}

// NewReader wraps r so it yields UTF-8 for text in the labelled encoding;
// UTF-8 text is returned as it is (invalid bytes included, for the caller to
// judge).
func NewReader(r io.Reader, label string) (io.Reader, error) {
	if IsUTF8(label) {
		return r, nil
	}
	e, err := lookup(label)
	if err != nil {
		return nil, err
	}
	return e.NewDecoder().Reader(r), nil
}

// XMLReader is NewReader for the encoding an XML declaration names, in the
// form of encoding/xml's Decoder.CharsetReader. A declaration read this way
// was read as single bytes, so a UTF-16 label is an error wrapping
// ErrNotUTF16 (a UTF-16 document starts with a byte-order mark, which the
// caller detects before the declaration).
func XMLReader(label string, r io.Reader) (io.Reader, error) {
	if isUTF16(normalize(label)) {
		return nil, fmt.Errorf("%w (declared %q)", ErrNotUTF16, label)
	}
	return NewReader(r, label)
}

// Byte-order marks a text may start with.
const (
	BOMNone  = ""
	BOMUTF8  = "utf-8"
	BOMUTF16 = "utf-16"
)

// PeekBOM reports which byte-order mark br starts with, without consuming
// it: BOMUTF8 (EF BB BF), BOMUTF16 (FE FF or FF FE) or BOMNone. A UTF-16
// text is read with NewReader(br, BOMUTF16), which honours the mark.
func PeekBOM(br *bufio.Reader) string {
	head, _ := br.Peek(3)
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		return BOMUTF8
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}), bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		return BOMUTF16
	}
	return BOMNone
}
