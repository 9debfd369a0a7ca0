package download

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// datasetInfos describes each dataset from the catalog. Any failure to
// look one up, an unknown dataset included (the table lost a dataset its
// records name), fails the export: a download's citation and licence are
// never made from less than the catalog holds. Without a catalog, and for
// records without a dataset key, an info holds only the key.
func datasetInfos(ctx context.Context, c occurrence.Catalog, keys []string) ([]occurrence.DatasetInfo, error) {
	out := make([]occurrence.DatasetInfo, 0, len(keys))
	for _, k := range keys {
		info := occurrence.DatasetInfo{Key: k}
		if c != nil && k != "" {
			var err error
			if info, err = c.Dataset(ctx, k); err != nil {
				return nil, fmt.Errorf("dwca: describe dataset %s: %w", k, err)
			}
			info.Key = k
		}
		out = append(out, info)
	}
	return out, nil
}

// datasetTitle is a dataset's title, or what is known of it when the
// catalog has none.
func datasetTitle(in occurrence.DatasetInfo) string {
	switch {
	case in.Title != "":
		return in.Title
	case in.Key == "":
		return "Records without a dataset key"
	}
	return "Dataset " + in.Key
}

// queryWords is the predicate in human-readable words.
func queryWords(p *occurrence.Predicate) string {
	if p == nil {
		return "all records"
	}
	return p.Describe()
}

// downloadTitle names the download as GBIF does ("GBIF Occurrence Download
// 10.15468/dl.abc123"): the portal's short name, then the DOI, else the key.
func downloadTitle(x *Export) string {
	t := "Occurrence Download " + x.identifier()
	if s := x.opts.Portal.Short; s != "" {
		t = s + " " + t
	}
	return t
}

// identifier is what names the download: its DOI, else its key.
func (x *Export) identifier() string {
	if x.spec.DOI != "" {
		return x.spec.DOI
	}
	return x.spec.Key
}

// downloadCitation is how the download asks to be cited, in the words of
// GBIF's /occurrence/download/{key}/citation: "GBIF.org (7 May 2026) GBIF
// Occurrence Download https://doi.org/10.15468/dl.v2j3ye", with the DOI's
// address, else the download's link, else its key; a FASTA archive's is
// worded as GBIF words it (fastaCitation).
func downloadCitation(x *Export) string {
	if x.spec.Format == FormatFastaArchive {
		return fastaCitation(x)
	}
	return Citation(x.opts.Portal, x.created, x.spec.DOI, x.spec.Link, x.spec.Key)
}

// Citation is a download's citation as GBIF words it (its
// /occurrence/download/{key}/citation and citations.txt): "<portal> (<day
// created, UTC>) [<short> ]Occurrence Download <ref>", where ref is the
// DOI's address, else link, else the key.
func Citation(p Portal, created time.Time, doi, link, key string) string {
	ref := downloadRef(doi, link)
	if ref == "" {
		ref = key
	}
	t := "Occurrence Download"
	if p.Short != "" {
		t = p.Short + " " + t
	}
	name := p.Name
	if name == "" {
		name = DefaultPortalName
	}
	return name + " (" + created.UTC().Format("2 January 2006") + ") " + t + " " + ref
}

// licenceNames are GBIF's License titles and URLs (gbif-api License).
var licenceNames = map[licenceRank]string{
	licCC0:    "Public Domain (CC0 1.0)",
	licCCBY:   "Creative Commons Attribution (CC-BY) 4.0",
	licCCBYNC: "Creative Commons Attribution Non Commercial (CC-BY-NC) 4.0",
}

// writeDownloadEML writes metadata.xml: the EML document (GBIF's metadata
// profile, EML 2.2.0) describing the download itself, in the structure and
// words of GBIF's DownloadMetadataBuilder: its title, the query, the
// constituent datasets with their record counts, the service as creator and
// contact, and the citation. Unlike GBIF's, whose template drops it, the
// download's licence is stated (intellectualRights); the table snapshot,
// the format and the taxonomy that answered are given as methods.
func writeDownloadEML(w io.Writer, x *Export, res ExportResult, infos []occurrence.DatasetInfo) error {
	bw := bufio.NewWriter(w)
	e := dwca.EscapeXML
	var abs strings.Builder
	fmt.Fprintf(&abs, "A dataset containing all occurrences available in %s matching the query:\n%s\n", x.opts.Portal.Name, queryWords(x.spec.Predicate))
	abs.WriteString("The dataset includes records from the following constituent datasets. The full metadata for each constituent is also included in this archive:\n")
	for _, in := range infos {
		fmt.Fprintf(&abs, "%d records from %s\n", res.Datasets[in.Key], datasetTitle(in))
	}
	service := x.opts.Portal.Name
	if !strings.HasSuffix(strings.ToLower(service), "service") {
		service += " Download Service" // as GBIF's "GBIF Download Service"
	}
	party := "<individualName><surName>" + e(service) + "</surName></individualName>"
	taxonomy := "the taxonomy of the table (the names and keys its sources carry)"
	if x.spec.ChecklistKey != "" {
		taxonomy += "; checklist " + x.spec.ChecklistKey + " was asked for"
	}
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8"?>
<eml:eml xmlns:eml="https://eml.ecoinformatics.org/eml-2.2.0" xmlns:dc="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="https://eml.ecoinformatics.org/eml-2.2.0 https://rs.gbif.org/schema/eml-gbif-profile/1.3/eml.xsd" packageId="%s" system="http://gbif.org" scope="system" xml:lang="eng">
  <dataset>
    <alternateIdentifier>%s</alternateIdentifier>
    <title xml:lang="eng">%s</title>
    <creator>%s</creator>
    <metadataProvider>%s</metadataProvider>
    <pubDate>%s</pubDate>
    <language>eng</language>
    <abstract>
      <para>%s</para>
    </abstract>
    <intellectualRights>
      <para>%s</para>
    </intellectualRights>%s
    <contact>%s</contact>
    <methods>
      <methodStep><description><para>%s</para></description></methodStep>
      <methodStep><description><para>Table snapshot: %s. Format: %s. Taxonomy: %s.</para></description></methodStep>
    </methods>
  </dataset>
  <additionalMetadata>
    <metadata>
      <gbif>
        <dateStamp>%s</dateStamp>
        <citation identifier="%s">%s</citation>
      </gbif>
    </metadata>
  </additionalMetadata>
</eml:eml>
`, e(x.identifier()), e(x.spec.Key), e(downloadTitle(x)), party, party, x.created.Format("2006-01-02"),
		e(abs.String()), e(rightsText(res)), distribution(x), party, e("Records matching: "+queryWords(x.spec.Predicate)+"."),
		e(orNone(x.spec.Snapshot)), e(string(x.spec.Format)), e(taxonomy),
		formatTime(x.created), e(x.identifier()), e(downloadCitation(x)))
	return bw.Flush()
}

// downloadRef is the address a download is reached by: its DOI's, else
// link ("" without either).
func downloadRef(doi, link string) string {
	if doi != "" {
		return doiAddress(doi)
	}
	return link
}

// doiAddress is the https://doi.org/ address of a DOI name.
func doiAddress(name string) string { return "https://doi.org/" + name }

// distribution is metadata.xml's link to the download, as GBIF's download
// metadata gives it (the data description's URL): EML's distribution,
// after the rights; "" without a DOI or link.
func distribution(x *Export) string {
	ref := downloadRef(x.spec.DOI, x.spec.Link)
	if ref == "" {
		return ""
	}
	return "\n    <distribution scope=\"document\"><online><url function=\"download\">" + dwca.EscapeXML(ref) + "</url></online></distribution>"
}

// rightsText is GBIF's statement of a download's licence (its RIGHTS
// template), naming datasets without a recognized licence.
func rightsText(res ExportResult) string {
	r := rankLicence(res.License)
	if r == licUnknown {
		return "No licence of the constituent datasets is recognized: " + licenceWords(res) + "."
	}
	t := fmt.Sprintf("The data included in this download are provided to the user under a %s license (%s), please read the license terms and conditions to understand the implications of its usage and sharing.\nData from some individual datasets included in this download may be licensed under less restrictive terms; review the details below.",
		licenceNames[r], licenceURI[r])
	if n := len(res.UnknownLicense); n > 0 {
		t += "\n" + plural(n, "dataset has", "datasets have") + " no recognized licence: " + strings.Join(res.UnknownLicense, ", ") + "."
	}
	return t
}

func orNone(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}

// datasetCitation is a dataset's citation as GBIF's CitationGenerator
// makes it. With a citation in its metadata, that text, its DOI when the
// text gives none, and the access (generatePublisherProvidedCitation).
// Else one generated from its EML's parts p: "Authors (year). Title.
// Version v. Publisher. Occurrence dataset <DOI> accessed via <portal> on
// <date>." (the publisher leads when no author is named, the dataset key
// stands for a missing DOI; without authors or publisher, the title leads).
func datasetCitation(x *Export, in occurrence.DatasetInfo, p dwca.CitationParts) string {
	access := "accessed via " + x.opts.Portal.Name + " on " + x.created.Format("2006-01-02") + "."
	if in.Citation != "" {
		out := []string{in.Citation}
		if low := strings.ToLower(in.Citation); p.DOI != "" && !strings.Contains(low, "doi.org") && !strings.Contains(low, "doi:") {
			out = append(out, doiAddress(p.DOI))
		}
		return strings.Join(append(out, access), " ")
	}
	var out []string
	authors := strings.Join(p.Authors, ", ")
	if authors == "" {
		authors = p.Publisher
	}
	if authors != "" {
		if p.Year == "" {
			authors += "."
		}
		out = append(out, authors)
		if p.Year != "" {
			out = append(out, "("+p.Year+").")
		}
	}
	out = append(out, strings.TrimSuffix(datasetTitle(in), ".")+".")
	if p.Version != "" {
		out = append(out, "Version "+p.Version+".")
	}
	if len(p.Authors) > 0 && p.Publisher != "" {
		out = append(out, strings.TrimSuffix(p.Publisher, ".")+".")
	}
	id := in.Key
	if p.DOI != "" {
		id = doiAddress(p.DOI)
	}
	return strings.Join(append(out, "Occurrence dataset", id, access), " ")
}

// citationsOf are the datasets' citations (datasetCitation) and the DOIs
// their EML gives, by key, made once for citations.txt and the result.
func citationsOf(x *Export, infos []occurrence.DatasetInfo, parts map[string]dwca.CitationParts) (cites, dois map[string]string) {
	cites, dois = make(map[string]string, len(infos)), map[string]string{}
	for _, in := range infos {
		p := parts[in.Key]
		cites[in.Key] = datasetCitation(x, in, p)
		if p.DOI != "" {
			dois[in.Key] = p.DOI
		}
	}
	return cites, dois
}

// writeCitations writes citations.txt as GBIF's ConstituentsCitationWriter
// does: its header line, then each dataset's citation, one per line; the
// download's own citation comes first, as in GBIF's sequence downloads (the
// header asks for "the following citation").
func writeCitations(w io.Writer, x *Export, infos []occurrence.DatasetInfo, cites map[string]string) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("When using this dataset please use the following citation and pay attention to the rights documented in rights.txt:\n")
	bw.WriteString(dwca.CleanValue(downloadCitation(x)) + "\n\n")
	for i, in := range infos {
		if i > 0 {
			bw.WriteByte('\n')
		}
		bw.WriteString(dwca.CleanValue(cites[in.Key]))
	}
	if len(infos) > 0 {
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// writeRights writes rights.txt as GBIF's ConstituentsRightsWriter does:
// "Dataset: <title> " and "Rights as supplied: <licence URL>" per dataset.
// A licence GBIF does not recognize is written as supplied and said to be
// unrecognized (GBIF writes "Not supplied" for it, losing the text); none
// at all is "Not supplied".
func writeRights(w io.Writer, infos []occurrence.DatasetInfo, acct *accounting) error {
	bw := bufio.NewWriter(w)
	for i, in := range infos {
		lic := "Not supplied"
		switch r := acct.datasetLicence(in); {
		case r != licUnknown:
			lic = licenceURI[r]
		case in.License != "" && in.License != occurrence.LicenseUnspecified:
			lic = in.License + " (not a recognized licence)"
		}
		if i > 0 {
			bw.WriteByte('\n')
		}
		fmt.Fprintf(bw, "Dataset: %s \nRights as supplied: %s", dwca.CleanValue(datasetTitle(in)), dwca.CleanValue(lic))
	}
	if len(infos) > 0 {
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
