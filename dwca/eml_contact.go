package dwca

import (
	"encoding/xml"
	"io"
	"net/mail"
	"strings"
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
	var (
		path []string
		text strings.Builder
		cur  *Contact
		give string // individualName/givenName, kept until surName
		out  = map[string][]Contact{}
	)
	err := walkEML(r, func(tok xml.Token) {
		switch t := tok.(type) {
		case xml.StartElement:
			path = append(path, t.Name.Local)
			text.Reset()
			// A contact is a direct child of eml/dataset.
			if n := len(path); n >= 2 && path[n-2] == "dataset" && isContactRole(t.Name.Local) && cur == nil {
				cur = &Contact{Role: t.Name.Local}
				give = ""
			}
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			v := strings.Join(strings.Fields(text.String()), " ")
			text.Reset()
			if cur != nil {
				switch t.Name.Local {
				case "givenName":
					give = strings.TrimSpace(give + " " + v)
				case "surName":
					cur.Name = strings.TrimSpace(give + " " + v)
				case "positionName":
					if cur.Name == "" {
						cur.Name = v
					}
				case "organizationName":
					cur.Organization = v
				case "electronicMailAddress":
					if a, err := mail.ParseAddress(v); err == nil && cur.Email == "" {
						cur.Email = a.Address
					}
				case cur.Role:
					if len(path) >= 2 && path[len(path)-2] == "dataset" {
						if cur.Name == "" {
							cur.Name = give
						}
						if cur.Email != "" {
							out[cur.Role] = append(out[cur.Role], *cur)
						}
						cur = nil
					}
				}
			}
			if len(path) > 0 {
				path = path[:len(path)-1]
			}
		}
	})
	if err != nil {
		return nil, err
	}
	var all []Contact
	for _, role := range contactRoles {
		all = append(all, out[role]...)
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
