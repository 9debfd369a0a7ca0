package abcd

import (
	"crypto/sha1"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/beevik/etree"
	"golang.org/x/text/language"
)

// WriteEML writes meta as an EML 2.1.1 document (GBIF profile): title,
// abstract, creators (the owners, else a fallback: see creators),
// metadata providers (technical contacts), additional info (coverage,
// creation date), contacts (content contacts), intellectual rights with
// the licence, citation, logo, and the DatasetGUID as alternateIdentifier.
func WriteEML(w io.Writer, meta DatasetMeta) error {
	doc := etree.NewDocument()
	doc.CreateProcInst("xml", `version="1.0" encoding="UTF-8"`)
	root := doc.CreateElement("eml:eml")
	root.CreateAttr("xmlns:eml", "eml://ecoinformatics.org/eml-2.1.1")
	root.CreateAttr("xmlns:dc", "http://purl.org/dc/terms/")
	root.CreateAttr("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance")
	root.CreateAttr("xsi:schemaLocation", "eml://ecoinformatics.org/eml-2.1.1 http://rs.gbif.org/schema/eml-gbif-profile/1.1/eml.xsd")
	root.CreateAttr("packageId", packageID(meta))
	root.CreateAttr("system", "http://gbif.org")
	root.CreateAttr("scope", "system")
	if tag := languageTag(meta.Language); tag != "" {
		root.CreateAttr("xml:lang", tag)
	}
	ds := root.CreateElement("dataset")
	if meta.GUID != "" {
		ds.CreateElement("alternateIdentifier").SetText(meta.GUID)
	}
	title := meta.Title
	if title == "" {
		title = "Untitled ABCD dataset"
	}
	ds.CreateElement("title").SetText(title)
	for _, p := range creators(meta) {
		writeParty(ds.CreateElement("creator"), p)
	}
	for _, p := range meta.TechContact {
		writeParty(ds.CreateElement("metadataProvider"), p)
	}
	if d := dateOnly(meta.Modified); d != "" {
		ds.CreateElement("pubDate").SetText(d)
	}
	if meta.Language != "" {
		ds.CreateElement("language").SetText(meta.Language)
	}
	if meta.Abstract != "" {
		ds.CreateElement("abstract").CreateElement("para").SetText(meta.Abstract)
	}
	writeAdditionalInfo(ds, meta)
	writeRights(ds, meta)
	if meta.Homepage != "" {
		dist := ds.CreateElement("distribution")
		dist.CreateAttr("scope", "document")
		u := dist.CreateElement("online").CreateElement("url")
		u.CreateAttr("function", "information")
		u.SetText(meta.Homepage)
	}
	contacts := meta.Contacts
	if len(contacts) == 0 {
		contacts = meta.TechContact
	}
	for _, p := range contacts {
		writeParty(ds.CreateElement("contact"), p)
	}
	writeAdditional(root, meta)
	doc.Indent(2)
	_, err := doc.WriteTo(w)
	return err
}

// creators are EML's creators, which EML 2.1.1 requires: the owners, else
// RevisionData/Creators as an organisation, else the content contacts,
// else the technical contacts, else an organisation named by the title.
func creators(meta DatasetMeta) []Party {
	switch {
	case len(meta.Owners) > 0:
		return meta.Owners
	case meta.Creators != "":
		return []Party{{Organisation: meta.Creators}}
	case len(meta.Contacts) > 0:
		return meta.Contacts
	case len(meta.TechContact) > 0:
		return meta.TechContact
	}
	return []Party{{Organisation: meta.Title}} // writeParty names an empty one "unknown"
}

// writeAdditionalInfo writes the ABCD Coverage (geographic, taxonomic or
// other, as text: EML's geographicCoverage would need bounding
// coordinates) and RevisionData/DateCreated (EML 2.1.1 has no element for
// a dataset's creation date) as labelled paragraphs of additionalInfo.
func writeAdditionalInfo(ds *etree.Element, meta DatasetMeta) {
	if meta.Coverage == "" && meta.Created == "" {
		return
	}
	info := ds.CreateElement("additionalInfo")
	if meta.Coverage != "" {
		info.CreateElement("para").SetText("Coverage: " + meta.Coverage)
	}
	if meta.Created != "" {
		info.CreateElement("para").SetText("Dataset created: " + meta.Created)
	}
}

func writeRights(ds *etree.Element, meta DatasetMeta) {
	if meta.LicenseURI == "" && meta.LicenseText == "" && meta.Rights == "" {
		return
	}
	para := ds.CreateElement("intellectualRights").CreateElement("para")
	text := strings.TrimSpace(strings.Join([]string{meta.LicenseText, meta.Rights}, " "))
	if meta.LicenseURI != "" {
		if text != "" {
			para.CreateText(text + " ")
		}
		link := para.CreateElement("ulink")
		link.CreateAttr("url", meta.LicenseURI)
		link.CreateElement("citetitle").SetText(meta.LicenseURI)
		return
	}
	para.SetText(text)
}

func writeAdditional(root *etree.Element, meta DatasetMeta) {
	logo := meta.IconURI
	for _, o := range meta.Owners {
		if logo == "" {
			logo = o.LogoURI
		}
	}
	if meta.Citation == "" && logo == "" {
		return
	}
	g := root.CreateElement("additionalMetadata").CreateElement("metadata").CreateElement("gbif")
	if d := dateOnly(meta.Modified); d != "" {
		g.CreateElement("dateStamp").SetText(d)
	}
	if meta.Citation != "" {
		g.CreateElement("citation").SetText(meta.Citation)
	}
	if logo != "" {
		g.CreateElement("resourceLogoUrl").SetText(logo)
	}
}

// writeParty writes an EML ResponsibleParty; EML wants individualName,
// organizationName or positionName, so an empty party gets a placeholder
// organisation.
func writeParty(e *etree.Element, p Party) {
	if p.Person != "" {
		e.CreateElement("individualName").CreateElement("surName").SetText(p.Person)
	}
	org := p.Organisation
	if org == "" && p.Person == "" {
		org = p.Abbreviation
	}
	if org == "" && p.Person == "" {
		org = "unknown"
	}
	if org != "" {
		e.CreateElement("organizationName").SetText(org)
	}
	if p.Address != "" {
		e.CreateElement("address").CreateElement("deliveryPoint").SetText(p.Address)
	}
	if p.Phone != "" {
		e.CreateElement("phone").SetText(p.Phone)
	}
	if p.Email != "" {
		e.CreateElement("electronicMailAddress").SetText(p.Email)
	}
	if p.URL != "" {
		e.CreateElement("onlineUrl").SetText(p.URL)
	}
}

// packageID is the DatasetGUID, else a stable id derived from the title.
func packageID(meta DatasetMeta) string {
	if meta.GUID != "" {
		return meta.GUID
	}
	sum := sha1.Sum([]byte(meta.Title + "\x00" + meta.Citation))
	return fmt.Sprintf("urn:abcd:%x", sum[:10])
}

// dateOnly returns the YYYY-MM-DD prefix of an ISO date, "" otherwise
// ("20110624" is read as a compact date).
func dateOnly(s string) string {
	if len(s) >= 10 && s[4] == '-' && s[7] == '-' {
		return s[:10]
	}
	if len(s) == 8 && strings.Trim(s, "0123456789") == "" {
		return s[:4] + "-" + s[4:6] + "-" + s[6:]
	}
	return ""
}

// languageTag is an ABCD language as xml:lang needs it (a BCP 47 tag, XML
// Schema's language type): the value when it is one, else its first word
// when that is ("IT - ITA - Italiano" is "it"), else "" (the attribute is
// left out; dataset/language keeps the text as given).
func languageTag(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if t, err := language.Parse(s); err == nil {
		return t.String()
	}
	first := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if len(first) > 0 {
		if t, err := language.Parse(first[0]); err == nil {
			return t.String()
		}
	}
	return ""
}
