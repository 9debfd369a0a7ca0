package abcd

import (
	"slices"
	"strings"
)

// DatasetMeta is the dataset description of an ABCD DataSet, the source of
// the archive's EML.
type DatasetMeta struct {
	GUID        string // DataSet/DatasetGUID -> EML alternateIdentifier
	Title       string // Metadata/Description/Representation/Title
	Abstract    string // .../Representation/Details
	Coverage    string // .../Representation/Coverage
	Homepage    string // .../Representation/URI
	Language    string // .../Representation/@language
	IconURI     string // Metadata/IconURI
	Creators    string // Metadata/RevisionData/Creators
	Created     string // Metadata/RevisionData/DateCreated
	Modified    string // Metadata/RevisionData/DateModified
	Owners      []Party
	Contacts    []Party // ContentContacts
	TechContact []Party // TechnicalContacts
	LicenseURI  string  // IPRStatements/Licenses/License/URI (or a Text that is a URL)
	LicenseText string  // IPRStatements/Licenses/License/Text
	Rights      string  // copyrights, IPR declarations, terms of use, disclaimers (none equal to LicenseText)
	Citation    string  // IPRStatements/Citations/Citation/Text
}

// Party is an owner or contact.
type Party struct {
	Organisation string
	Abbreviation string
	Person       string
	Address      string
	Email        string
	Phone        string
	URL          string
	LogoURI      string
}

// License is the licence as one value: the URI when known, else the text.
func (m DatasetMeta) License() string {
	if m.LicenseURI != "" {
		return m.LicenseURI
	}
	return m.LicenseText
}

// parseMetadata reads the DataSet-level elements (everything before Units).
func parseMetadata(ds *node) DatasetMeta {
	md := child(ds, "Metadata")
	rep := child(md, "Description", "Representation")
	m := DatasetMeta{
		GUID:     text(ds, "DatasetGUID"),
		Title:    text(rep, "Title"),
		Abstract: text(rep, "Details"),
		Coverage: text(rep, "Coverage"),
		Homepage: text(rep, "URI"),
		Language: attr(rep, "language"),
		IconURI:  text(md, "IconURI"),
		Creators: text(md, "RevisionData", "Creators"),
		Created:  text(md, "RevisionData", "DateCreated"),
		Modified: text(md, "RevisionData", "DateModified"),
	}
	for _, o := range all(md, "Owners", "Owner") {
		m.Owners = append(m.Owners, Party{
			Organisation: text(o, "Organisation", "Name", "Representation", "Text"),
			Abbreviation: text(o, "Organisation", "Name", "Representation", "Abbreviation"),
			Person:       text(o, "Person", "FullName"),
			Address:      text(o, "Addresses", "Address"),
			Email:        text(o, "EmailAddresses", "EmailAddress"),
			Phone:        text(o, "TelephoneNumbers", "TelephoneNumber", "Number"),
			URL:          text(o, "URIs", "URL"),
			LogoURI:      text(o, "LogoURI"),
		})
	}
	m.Contacts = contacts(all(ds, "ContentContacts", "ContentContact"))
	m.TechContact = contacts(all(ds, "TechnicalContacts", "TechnicalContact"))
	ipr := child(md, "IPRStatements")
	for _, l := range all(ipr, "Licenses", "License") {
		u, t := text(l, "URI"), text(l, "Text")
		if u == "" && looksLikeURL(t) {
			u, t = t, ""
		}
		if m.LicenseURI == "" {
			m.LicenseURI = u
		}
		if m.LicenseText == "" {
			m.LicenseText = t
		}
	}
	var rights []string
	for _, p := range [][2]string{{"Copyrights", "Copyright"}, {"IPRDeclarations", "IPRDeclaration"}, {"TermsOfUseStatements", "TermsOfUse"}, {"Disclaimers", "Disclaimer"}} {
		rights = append(rights, texts(ipr, p[0], p[1], "Text")...)
	}
	rights = slices.DeleteFunc(rights, func(r string) bool { return r == m.LicenseText })
	m.Rights = strings.Join(dedupe(rights), " ")
	m.Citation = strings.Join(texts(ipr, "Citations", "Citation", "Text"), " ")
	return m
}

func contacts(es []*node) []Party {
	var out []Party
	for _, c := range es {
		out = append(out, Party{Person: text(c, "Name"), Email: text(c, "Email"), Phone: text(c, "Phone"), Address: text(c, "Address")})
	}
	return out
}

func looksLikeURL(s string) bool {
	return (strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")) && !strings.ContainsAny(s, " \t")
}
