package download

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"

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

// downloadTitle names the download.
func downloadTitle(x *Export) string { return "Occurrence download " + x.spec.Key }

// downloadCitation is how the download asks to be cited.
func downloadCitation(x *Export) string {
	return downloadTitle(x) + " (" + x.created.Format("2 January 2006") + ")"
}

// writeDownloadEML writes metadata.xml: an EML 2.1.1 document describing the
// download itself.
func writeDownloadEML(w io.Writer, x *Export, res ExportResult, datasets int) error {
	bw := bufio.NewWriter(w)
	e := dwca.EscapeXML
	summary := fmt.Sprintf("A dataset containing %s from %s.", plural64(res.Records, "record", "records"),
		plural(datasets, "dataset", "datasets"))
	query := "Records matching: " + queryWords(x.spec.Predicate) + "."
	lic := licenceWords(res)
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8"?>
<eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" xmlns:dc="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="eml://ecoinformatics.org/eml-2.1.1 http://rs.gbif.org/schema/eml-gbif-profile/1.1/eml.xsd" packageId="%s" system="http://gbif.org" scope="system" xml:lang="en">
  <dataset>
    <alternateIdentifier>%s</alternateIdentifier>
    <title xml:lang="en">%s</title>
    <creator><organizationName>Occurrence download service</organizationName></creator>
    <metadataProvider><organizationName>Occurrence download service</organizationName></metadataProvider>
    <pubDate>%s</pubDate>
    <language>eng</language>
    <abstract>
      <para>%s</para>
      <para>%s</para>
    </abstract>
    <intellectualRights>
      <para>%s</para>
    </intellectualRights>
    <methods>
      <methodStep><description><para>%s</para></description></methodStep>
      <methodStep><description><para>Table snapshot: %s. Format: %s.</para></description></methodStep>
    </methods>
  </dataset>
  <additionalMetadata>
    <metadata>
      <gbif>
        <dateStamp>%s</dateStamp>
        <citation>%s</citation>
      </gbif>
    </metadata>
  </additionalMetadata>
</eml:eml>
`, e(x.spec.Key), e(x.spec.Key), e(downloadTitle(x)), x.created.Format("2006-01-02"),
		e(summary), e(query), e("This work is licensed under "+lic+"."), e(query),
		e(orNone(x.spec.Snapshot)), e(string(x.spec.Format)), formatTime(x.created), e(downloadCitation(x)))
	return bw.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}

func plural64(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

// writeCitations writes citations.txt: the download's citation, then each
// dataset's citation with its record count.
func writeCitations(w io.Writer, x *Export, res ExportResult, infos []occurrence.DatasetInfo) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "When using this dataset please use the following citation and pay attention to the rights documented in rights.txt:\n%s\n\n", downloadCitation(x))
	fmt.Fprintf(bw, "The data included in this download are provided by the following %s:\n\n", plural(len(infos), "dataset", "datasets"))
	for _, in := range infos {
		c := in.Citation
		if c == "" {
			c = datasetTitle(in) + ". Dataset " + in.Key + "."
		}
		fmt.Fprintf(bw, "%s (%s)\n", dwca.CleanValue(c), plural64(res.Datasets[in.Key], "record", "records"))
	}
	return bw.Flush()
}

// writeRights writes rights.txt: the licence of each dataset.
func writeRights(w io.Writer, res ExportResult, infos []occurrence.DatasetInfo, acct *accounting) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Licence of this download (the most restrictive of its datasets): %s\n\n", licenceWords(res))
	for _, in := range infos {
		lic := in.License
		if lic == "" {
			if d := acct.datasets[in.Key]; d != nil && !d.unknown {
				lic = licenceURI[d.maxLic]
			}
		}
		if lic == "" {
			lic = occurrence.LicenseUnspecified
		}
		if rankLicence(lic) == licUnknown {
			lic += " (not a recognized licence)"
		}
		fmt.Fprintf(bw, "Dataset: %s\nKey: %s\nRights as supplied: %s\n\n", dwca.CleanValue(datasetTitle(in)), in.Key, dwca.CleanValue(lic))
	}
	return bw.Flush()
}
