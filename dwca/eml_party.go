package dwca

import (
	"encoding/xml"
	"net/mail"
	"strings"
)

// party is a person or organization an EML document names directly under
// dataset: its creator, metadataProvider, contact, publisher or an
// associatedParty. ReadContacts and ReadCitationParts read them.
type party struct {
	element string // the element that names it
	// given collects the individualName's givenNames; sur is its
	// surName, position its positionName, org its organizationName.
	given, sur, position, org string
	role                      string // an associatedParty's role
	email                     string // the first electronicMailAddress that parses
}

// name is the party's person: given and family names, else the
// position, else the given names.
func (p party) name() string {
	switch {
	case p.sur != "":
		return strings.TrimSpace(p.given + " " + p.sur)
	case p.position != "":
		return p.position
	}
	return p.given
}

func isPartyElement(name string) bool {
	switch name {
	case "creator", "metadataProvider", "contact", "publisher", "associatedParty":
		return true
	}
	return false
}

// partyWalker collects the parties of an EML document as walkEML passes
// its tokens, and tells its caller what each element held.
type partyWalker struct {
	path    []string
	text    strings.Builder
	cur     *party
	parties []party
}

// token takes one token. For an end element it returns the element's path
// (ending with the element) and its text with spaces collapsed; ok is
// false for other tokens.
func (w *partyWalker) token(tok xml.Token) (path []string, text string, ok bool) {
	switch t := tok.(type) {
	case xml.StartElement:
		w.path = append(w.path, t.Name.Local)
		w.text.Reset()
		if n := len(w.path); n >= 2 && w.path[n-2] == "dataset" && isPartyElement(t.Name.Local) && w.cur == nil {
			w.cur = &party{element: t.Name.Local}
		}
	case xml.CharData:
		w.text.Write(t)
	case xml.EndElement:
		text = strings.Join(strings.Fields(w.text.String()), " ")
		w.text.Reset()
		path = w.path
		if w.cur != nil {
			w.end(t.Name.Local, text)
		}
		if len(w.path) > 0 {
			w.path = w.path[:len(w.path)-1]
		}
		return path, text, true
	}
	return nil, "", false
}

// end records the element name, ending with text, in the current party.
func (w *partyWalker) end(name, text string) {
	p, n := w.cur, len(w.path)
	switch name {
	case "givenName":
		p.given = strings.TrimSpace(p.given + " " + text)
	case "surName":
		p.sur = text
	case "positionName":
		if p.position == "" {
			p.position = text
		}
	case "organizationName":
		if n >= 2 && w.path[n-2] == p.element {
			p.org = text
		}
	case "role":
		p.role = text
	case "electronicMailAddress":
		if a, err := mail.ParseAddress(text); err == nil && p.email == "" {
			p.email = a.Address
		}
	case p.element:
		if n >= 2 && w.path[n-2] == "dataset" {
			w.parties = append(w.parties, *p)
			w.cur = nil
		}
	}
}
