package download

import (
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// licenceRank orders licences from least to most restrictive; 0 is unknown.
type licenceRank int

const (
	licUnknown licenceRank = iota
	licCC0
	licCCBY
	licCCBYNC
)

var licenceURI = map[licenceRank]string{
	licCC0:    occurrence.LicenseCC0,
	licCCBY:   occurrence.LicenseCCBY,
	licCCBYNC: occurrence.LicenseCCBYNC,
}

var licenceTitle = map[licenceRank]string{
	licUnknown: "unspecified",
	licCC0:     "CC0 1.0",
	licCCBY:    "CC BY 4.0",
	licCCBYNC:  "CC BY-NC 4.0",
}

// rankLicence ranks a licence given as a URI, a GBIF enum name or words,
// recognized by occurrence.NormalizeLicense (the rule records are
// interpreted with, so a dataset's licence and its records' agree). Anything
// it does not recognize, "unspecified" and licences GBIF does not support
// (CC BY-NC-ND, CC BY-SA, ...) included, is unknown.
func rankLicence(s string) licenceRank {
	l, ok := occurrence.NormalizeLicense(s)
	if !ok {
		return licUnknown
	}
	switch l {
	case occurrence.LicenseCC0:
		return licCC0
	case occurrence.LicenseCCBY:
		return licCCBY
	case occurrence.LicenseCCBYNC:
		return licCCBYNC
	}
	return licUnknown
}

// datasetAcct is what the records say about one dataset.
type datasetAcct struct {
	records int64
	maxLic  licenceRank
	unknown bool // some record carries no recognized licence
}

// accounting counts records per dataset and the licences they carry.
type accounting struct {
	records  int64
	datasets map[string]*datasetAcct
	// lastKey/last cache the previous row's dataset: records come grouped.
	lastKey string
	last    *datasetAcct
}

func (a *accounting) init() { a.datasets = map[string]*datasetAcct{} }

// withAccounting makes sure the scan delivers the columns accounting needs.
func withAccounting(cols []string) []string {
	out := append([]string(nil), cols...)
	for _, need := range []string{occurrence.ColDatasetKey, occurrence.ColLicense} {
		found := false
		for _, c := range out {
			found = found || c == need
		}
		if !found {
			out = append(out, need)
		}
	}
	return out
}

func (a *accounting) add(b *batch) {
	keys, lics := b.col(occurrence.ColDatasetKey), b.col(occurrence.ColLicense)
	a.records += int64(b.n)
	for i := 0; i < b.n; {
		// Records come grouped by dataset: account a run of rows with the
		// same dataset and licence at once.
		j := sameRun(keys, i, b.n)
		j = sameRun(lics, i, j)
		a.account(str(keys, i), str(lics, i), int64(j-i))
		i = j
	}
}

// account adds n records of dataset k with licence lic.
func (a *accounting) account(k, lic string, n int64) {
	if a.last == nil || k != a.lastKey {
		d := a.datasets[k]
		if d == nil {
			d = &datasetAcct{}
			a.datasets[strings.Clone(k)] = d
		}
		a.lastKey, a.last = strings.Clone(k), d
	}
	d := a.last
	d.records += n
	rank := rankLicence(lic)
	if rank == licUnknown {
		d.unknown = true
	}
	d.maxLic = max(d.maxLic, rank)
}

// sameRun returns the end of the run of rows from i (before end) that hold
// the same value of a as row i: dictionary indices are compared where a is
// a dictionary, else the values.
func sameRun(a arrow.Array, i, end int) int {
	j := i + 1
	if d, ok := a.(*array.Dictionary); ok && d.NullN() == 0 {
		if ix, ok := d.Indices().(*array.Int32); ok {
			idx := ix.Int32Values()
			for j < end && idx[j] == idx[i] {
				j++
			}
			return j
		}
	}
	v, null := str(a, i), a == nil || a.IsNull(i)
	for j < end && (a == nil || a.IsNull(j) == null) && str(a, j) == v {
		j++
	}
	return j
}

// datasetKeys returns the datasets in key order.
// addKept accounts the rows of b that kept marks.
func (a *accounting) addKept(b *batch, kept []bool) {
	keys, lics := b.col(occurrence.ColDatasetKey), b.col(occurrence.ColLicense)
	for i, k := range kept {
		if k {
			a.records++
			a.account(str(keys, i), str(lics, i), 1)
		}
	}
}

func (a *accounting) datasetKeys() []string {
	keys := make([]string, 0, len(a.datasets))
	for k := range a.datasets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// datasetLicence is the licence a dataset declares when its source knows
// it (info), else the most restrictive of its records' licences when all of
// them are recognized.
func (a *accounting) datasetLicence(info occurrence.DatasetInfo) licenceRank {
	if r := rankLicence(info.License); r != licUnknown {
		return r
	}
	d := a.datasets[info.Key]
	if d == nil || d.unknown {
		return licUnknown
	}
	return d.maxLic
}

// result fills the counts and the download licence; infos (datasetInfos)
// describe every dataset.
func (a *accounting) result(infos []occurrence.DatasetInfo) ExportResult {
	res := ExportResult{Records: a.records, Datasets: make(map[string]int64, len(a.datasets)), DatasetInfos: infos}
	top := licUnknown
	for _, in := range infos {
		k := in.Key
		res.Datasets[k] = a.datasets[k].records
		r := a.datasetLicence(in)
		if r == licUnknown {
			res.UnknownLicense = append(res.UnknownLicense, k)
		}
		top = max(top, r)
	}
	res.License = licenceURI[top]
	return res
}

// licenceWords returns the download licence in words, naming unknown ones.
func licenceWords(res ExportResult) string {
	words := licenceTitle[rankLicence(res.License)]
	if res.License == "" {
		words = "no recognized licence"
	}
	if len(res.UnknownLicense) > 0 {
		words += "; " + plural(len(res.UnknownLicense), "dataset has", "datasets have") +
			" no recognized licence (" + strings.Join(res.UnknownLicense, ", ") + ")"
	}
	return words
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
