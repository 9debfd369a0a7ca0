package dwca

import (
	"encoding/xml"
	"io"
)

// Contact is a person or organization an EML document names for a
// dataset, with an e-mail address.
type Contact struct {
	// Role is the EML element that names it: contact, creator or
	// metadataProvider.
	Role string
	// Name is the person's given and family names, or the position's
	// name; Organization the organization's.
	Name, Organization string
	// Email is the first electronicMailAddress that parses as an address.
	Email string
}

// Label names the contact for people: "Name (Organization)", or either.
func (c Contact) Label() string {
	switch {
	case c.Name != "" && c.Organization != "":
		return c.Name + " (" + c.Organization + ")"
	case c.Name != "":
		return c.Name
	}
	return c.Organization
}

// contactRoles are the EML elements of dataset that name people to write
// to, in the order a message to the publisher picks them: the contact
// (EML's point of contact), else the creator, else the metadata provider.
var contactRoles = []string{"contact", "creator", "metadataProvider"}

// ReadContacts returns the dataset's contacts that have an e-mail address,
// in the order of contactRoles and then of the document. Element names are
// matched without namespaces. Malformed XML gives an error with its line.
func ReadContacts(r io.Reader) ([]Contact, error) {
	var w partyWalker
	if err := walkEML(r, func(tok xml.Token) { w.token(tok) }); err != nil {
		return nil, err
	}
	var all []Contact
	for _, role := range contactRoles {
		for _, p := range w.parties {
			if p.element == role && p.email != "" {
				all = append(all, Contact{Role: role, Name: p.name(), Organization: p.org, Email: p.email})
			}
		}
	}
	return all, nil
}

func isContactRole(name string) bool {
	for _, r := range contactRoles {
		if r == name {
			return true
		}
	}
	return false
}
