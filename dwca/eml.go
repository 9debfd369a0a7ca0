package dwca

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

var uuidRE = regexp.MustCompile(`(?i)^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// emlReader collects DatasetInfo while walking an EML document.
type emlReader struct {
	path      []string
	text      strings.Builder
	info      occurrence.DatasetInfo
	packageID string
	altIDs    []string
	rightsURL string
	rights    string
}

// ReadDatasetInfo reads the title, licence, citation and dataset key from an
// EML document. Element names are matched without namespaces. Malformed XML
// gives an error with its line.
//
// Key is the first UUID among the alternateIdentifiers, else the UUID of
// packageId (without a "/v1.2" version suffix), else packageId. License is
// the licence as the document gives it: the URL of intellectualRights'
// ulink or licensed/url when there is one, else the rights text;
// normalizing it is up to the caller. Citation is GBIF's
// additionalMetadata citation text, if any.
func ReadDatasetInfo(r io.Reader) (occurrence.DatasetInfo, error) {
	e := &emlReader{}
	if err := walkEML(r, e.token); err != nil {
		return occurrence.DatasetInfo{}, err
	}
	info := e.result()
	if info.Key == "" && info.Title == "" && info.License == "" && info.Citation == "" {
		return occurrence.DatasetInfo{}, errors.New("dwca: EML: empty document")
	}
	return info, nil
}

// walkEML passes each token of an EML document to f; malformed XML gives
// an error with its line.
func walkEML(r io.Reader, f func(xml.Token)) error {
	dec := newXMLDecoder(r)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return fmt.Errorf("dwca: EML line %d: %s", se.Line, se.Msg)
			}
			return fmt.Errorf("dwca: EML: %w", err)
		}
		f(tok)
	}
}

func (e *emlReader) token(tok xml.Token) {
	switch t := tok.(type) {
	case xml.StartElement:
		name := t.Name.Local
		e.path = append(e.path, name)
		e.text.Reset()
		if name == "eml" {
			e.packageID = strings.TrimSpace(attr(t, "packageId"))
		}
		if name == "ulink" && e.under("intellectualRights") && e.rightsURL == "" {
			e.rightsURL = strings.TrimSpace(attr(t, "url"))
		}
	case xml.CharData:
		e.text.Write(t)
	case xml.EndElement:
		e.end(strings.Join(strings.Fields(e.text.String()), " "))
		if len(e.path) > 0 {
			e.path = e.path[:len(e.path)-1]
		}
	}
}

func (e *emlReader) end(text string) {
	p := strings.Join(e.path, "/")
	switch {
	case strings.HasSuffix(p, "eml/dataset/title") && e.info.Title == "":
		e.info.Title = text
	case strings.HasSuffix(p, "eml/dataset/alternateIdentifier"):
		e.altIDs = append(e.altIDs, text)
	case strings.HasSuffix(p, "dataset/licensed/url") && e.rightsURL == "":
		e.rightsURL = text
	case e.under("intellectualRights") && text != "":
		if e.rights != "" {
			e.rights += " "
		}
		e.rights += text
	case strings.HasSuffix(p, "additionalMetadata/metadata/gbif/citation") && e.info.Citation == "":
		e.info.Citation = text
	}
	e.text.Reset()
}

func (e *emlReader) under(name string) bool {
	for _, p := range e.path {
		if p == name {
			return true
		}
	}
	return false
}

func (e *emlReader) result() occurrence.DatasetInfo {
	info := e.info
	info.License = e.rightsURL
	if info.License == "" {
		info.License = e.rights
	}
	for _, id := range e.altIDs {
		if uuidRE.MatchString(id) {
			info.Key = strings.ToLower(id)
			break
		}
	}
	if info.Key == "" && e.packageID != "" {
		base, _, _ := strings.Cut(e.packageID, "/")
		if uuidRE.MatchString(base) {
			info.Key = strings.ToLower(base)
		} else {
			info.Key = e.packageID
		}
	}
	return info
}
