package dwca

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
)

// isUTF8 reports whether an encoding label names UTF-8 (or plain ASCII, a subset).
func isUTF8(label string) bool {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return true
	}
	return false
}

// lookupEncoding returns the decoder for an encoding label such as
// "ISO-8859-1", "windows-1252" or "UTF-16".
func lookupEncoding(label string) (encoding.Encoding, error) {
	l := strings.ToLower(strings.TrimSpace(label))
	switch l {
	case "utf-16", "utf16":
		return unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), nil
	case "utf-16be":
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), nil
	case "utf-16le":
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), nil
	}
	e, err := htmlindex.Get(l)
	if err != nil {
		return nil, fmt.Errorf("unsupported encoding %q", label)
	}
	return e, nil
}

// decodeReader wraps r so it yields UTF-8 for the given encoding label.
func decodeReader(r io.Reader, label string) (io.Reader, error) {
	if isUTF8(label) {
		return r, nil
	}
	e, err := lookupEncoding(label)
	if err != nil {
		return nil, err
	}
	return e.NewDecoder().Reader(r), nil
}

// charsetReader lets encoding/xml read meta.xml and EML documents declared in
// encodings other than UTF-8.
func charsetReader(label string, r io.Reader) (io.Reader, error) {
	return decodeReader(r, label)
}

// newXMLDecoder returns a decoder for meta.xml and EML documents: declared
// encodings other than UTF-8 are decoded, and a document starting with a
// UTF-16 byte-order mark is read as UTF-16 whatever it declares.
func newXMLDecoder(r io.Reader) *xml.Decoder {
	br := bufio.NewReader(r)
	head, _ := br.Peek(2)
	if bytes.Equal(head, []byte{0xFF, 0xFE}) || bytes.Equal(head, []byte{0xFE, 0xFF}) {
		utf16 := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM)
		dec := xml.NewDecoder(utf16.NewDecoder().Reader(br))
		// already decoded: the declared "UTF-16" must not be applied again
		dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
		return dec
	}
	dec := xml.NewDecoder(br)
	dec.CharsetReader = charsetReader
	return dec
}
