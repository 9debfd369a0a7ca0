package dwca

import (
	"bufio"
	"encoding/xml"
	"io"

	"github.com/biodiversity-downloads/downloader/internal/charset"
)

// newXMLDecoder returns a decoder for meta.xml and EML documents: declared
// encodings other than UTF-8 are decoded, and a document starting with a
// UTF-16 byte-order mark is read as UTF-16 whatever it declares.
func newXMLDecoder(r io.Reader) *xml.Decoder {
	br := bufio.NewReader(r)
	if charset.PeekBOM(br) == charset.BOMUTF16 {
		utf16, _ := charset.NewReader(br, charset.BOMUTF16) // a known label: no error
		dec := xml.NewDecoder(utf16)
		// already decoded: the declared "UTF-16" must not be applied again
		dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
		return dec
	}
	dec := xml.NewDecoder(br)
	dec.CharsetReader = charset.XMLReader
	return dec
}
