package abcd

import (
	"errors"
	"fmt"

	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
)

// Error kinds. Test them with errors.Is; the concrete error is usually a
// *ParseError that also says where.
var (
	// ErrSyntax: the document is not well-formed XML.
	ErrSyntax = errors.New("malformed XML")
	// ErrWrongRoot: the root element is neither DataSets nor a BioCASe response.
	ErrWrongRoot = errors.New("not an ABCD document")
	// ErrUnsupportedSchema: the document's DataSets element is in a namespace
	// other than ABCD 2.06's or 2.1's (ABCD 1.2, for one, names its
	// elements otherwise: read as 2.06, its units would come out empty).
	ErrUnsupportedSchema = errors.New("not ABCD 2.06 or 2.1")
	// ErrEntity: the document declares entities (entity expansion is refused).
	ErrEntity = errors.New("entity declarations are not accepted")
	// ErrTooLarge: a single token, element, unit, document, archive entry,
	// response or download exceeds its cap (the project's one sentinel for
	// size caps, also dwca.ErrTooLarge).
	ErrTooLarge = zipsafe.ErrTooLarge
	// ErrUnsafeArchive: a zip entry name escapes the archive (../, absolute)
	// or an entry inflates beyond the allowed ratio (zip bomb).
	ErrUnsafeArchive = errors.New("unsafe archive")
	// ErrNoDocuments: an archive holds no *.xml or *.response entry.
	ErrNoDocuments = errors.New("no ABCD documents in archive")
	// ErrProtocol: a BioCASe provider answered with an error or something
	// that is not a protocol response.
	ErrProtocol = errors.New("BioCASe protocol error")
	// ErrDatasetNotFound: the dataset title given for a harvest is not in the
	// provider's inventory.
	ErrDatasetNotFound = errors.New("dataset not found")
)

// ParseError locates a problem in an input document. Path names the document
// (file name, "archive.zip!response.00003.xml" or a URL), Line is 1-based (0
// when unknown) and Unit is the 1-based unit number in the document when the
// problem is inside a unit.
type ParseError struct {
	Op   string
	Path string
	Line int
	Unit int
	Err  error
}

func (e *ParseError) Error() string {
	s := e.Op + " " + e.Path
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	if e.Unit > 0 {
		s += fmt.Sprintf(" (unit %d)", e.Unit)
	}
	return s + ": " + e.Err.Error()
}

func (e *ParseError) Unwrap() error { return e.Err }

// TooLargeError says which input passed which cap (documents, archive
// entries, responses, downloads; units and tokens say it in a *ParseError).
type TooLargeError = zipsafe.TooLargeError
